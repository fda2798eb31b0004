"""OpenAI-compatible endpoints (legacy ``/v1/completions`` and ``/v1/chat/completions``).

Built on langchain-openai, with what real "OpenAI-compatible" servers need on top:

* the response stream is read inside ``async with`` so that closing the generator closes the
  HTTP response (the server sees the disconnect and stops generating);
* provider errors become :class:`BackendError` (``429``/``503`` with ``Retry-After``, a ``200``
  carrying an error body, an error event inside the stream);
* a ``400`` naming an optional field (``suffix``, ``stop``) is retried once without it, and the field
  is not sent to that server again;
* the completion text is repaired as the model's :class:`Quirks` declare (echoed prompt, literal
  ``\\n``, a stray leading space); an empty completion is one empty chunk, not an error.

The client never retries on its own (a retry in the typing path only adds latency); timeouts come
from the model config. ``native_suffix`` is off unless ``options["native_suffix"]`` turns it on and the
server's quirks allow it (llama-cpp-python's ``suffix`` is broken: :data:`quirks.SERVER_QUIRKS`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, cast

import httpx
import openai
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_openai import ChatOpenAI, OpenAI

from .base import Backend, BackendError, ModelConfig, register_backend
from .http import error_message, parse_retry_after, status_error
from .quirks import QuirkFilter, Quirks, QuirkState, resolve_quirks

# langchain-openai insists on a key; local servers need none.
_NO_KEY = "not-needed"


class _NoEvents:
    def __aiter__(self) -> _NoEvents:
        return self

    async def __anext__(self) -> Any:
        raise StopAsyncIteration


_NO_EVENTS: Any = _NoEvents()


def backend_error(exc: BaseException, secrets: list[str]) -> BaseException:
    """An openai SDK exception as a :class:`BackendError` (HTTP status errors and others unchanged)."""

    def clean(text: str) -> str:
        for s in secrets:
            if s:
                text = text.replace(s, "***")
        return text[:2000]

    if isinstance(exc, openai.APITimeoutError):
        return BackendError("timeout", clean(f"The model server timed out: {exc}"))
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
        return BackendError("backend_unreachable", clean(f"Cannot reach the model server: {exc}{detail}"))
    if isinstance(exc, openai.APIStatusError):
        # Left as it is: completion/base.py maps it (status in the title, Retry-After) already.
        return exc
    if isinstance(exc, openai.APIError):
        return BackendError("backend_error", clean(f"The model server reported an error: {exc.message}"))
    if isinstance(exc, httpx.TransportError):
        return BackendError("backend_unreachable", clean(f"Cannot reach the model server: {exc}"))
    return exc


# What a malformed answer raises while it is read (not JSON, or JSON of an unexpected shape).
PARSE_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError)


def parse_error(exc: BaseException) -> BackendError:
    """A malformed answer from the model server: always ``backend_error``."""
    if isinstance(exc, json.JSONDecodeError):
        return BackendError("backend_error", "The model server sent an answer that is not JSON.")
    return BackendError(
        "backend_error", f"The model server sent an answer of an unexpected shape ({type(exc).__name__})."
    )


def _rejected(exc: BaseException) -> str | None:
    if isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
        body = exc.body if isinstance(exc.body, dict) else {}
        return error_message(body) or error_message({"error": body}) or exc.message
    return None


# takes the SDK's own response type (its private HTTP client package)
_drain: Callable[[Any], Awaitable[None]] | None = None
try:  # the SDK's own clean-up after [DONE]; optional (a private module of the openai package)
    from openai._streaming_cleanup import drain_response_async

    _drain = drain_response_async
except ImportError:  # pragma: no cover - other openai versions
    pass


async def _raw_events(stream: Any) -> AsyncIterator[Any]:
    """The stream's events as plain dicts, without the SDK building a pydantic model per chunk.

    That construction was a third of the server's CPU per request (docs/performance.md). Uses the
    SDK's own SSE decoder; falls back to the SDK's iteration when that is not available. The
    caller's ``async with`` closes the response; after ``[DONE]`` the rest of the body is read so
    the connection can be reused.
    """
    iter_events = getattr(stream, "_iter_events", None)
    response = getattr(stream, "response", None)
    if iter_events is None or response is None:
        async for item in stream:
            yield item
        return
    async for sse in iter_events():
        if sse.data.startswith("[DONE]"):
            if _drain is not None:  # read the end of the body so the connection can be reused
                await _drain(response)
            return
        try:
            yield json.loads(sse.data)
        except json.JSONDecodeError:
            raise BackendError("backend_error", "The model server sent an event that is not JSON.") from None


class CompatOpenAI(QuirkState, OpenAI):
    """Legacy completions with streaming cancellation, error mapping and quirk repairs."""

    def _params(self, prompt: str, stop: list[str] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        params = self.memory.apply({**self._invocation_params, **kwargs, "stop": stop})
        stop = params.pop("stop", None)
        if not self.streaming:
            params.pop("stream", None)
        else:
            params["stream"] = True
        self.get_sub_prompts(params, [prompt], stop or None)
        if not params.get("stop"):
            params.pop("stop", None)
        return params

    async def _open(self, prompt: str, stop: list[str] | None, kwargs: dict[str, Any]) -> Any:
        for attempt in range(2):
            params = self._params(prompt, stop, kwargs)
            try:
                if not self.streaming:
                    # The body parsed to a plain dict: no SDK model built and dumped again (a 10 MB
                    # answer held the loop 56 ms that way, 39 ms so; the rest is json's C decoder).
                    raw = await self.async_client.with_raw_response.create(prompt=prompt, **params)
                    return json.loads(raw.http_response.content)
                return await self.async_client.create(prompt=prompt, **params)
            except openai.APIError as exc:
                message = _rejected(exc)
                if attempt == 0 and message is not None and self.memory.learn(params, message) is not None:
                    continue
                raise backend_error(exc, self.secrets) from exc
        raise AssertionError("unreachable")

    async def _astream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[GenerationChunk]:
        repair = QuirkFilter(self.quirks, prompt=prompt, before_cursor=prompt)
        sent = False
        try:
            answer = await self._open(prompt, stop, kwargs)
            if not self.streaming:
                texts = [self._read(answer)]
                for text in texts:
                    out = repair.feed(text)
                    if out:
                        sent = True
                        yield GenerationChunk(text=out)
            else:
                async with answer as stream:
                    response = getattr(stream, "response", None)
                    ctype = response.headers.get("content-type", "") if response is not None else ""
                    if response is not None and ctype.startswith("application/json"):
                        # Not a stream: a 200 with an error body (or a server that ignores `stream`).
                        out = repair.feed(self._read(json.loads(await response.aread())))
                        if out:
                            sent = True
                            yield GenerationChunk(text=out)
                        stream = _NO_EVENTS
                    async for resp in _raw_events(stream):
                        text = self._read(resp)
                        out = repair.feed(text) if text else ""
                        if out:
                            sent = True
                            chunk = GenerationChunk(text=out)
                            if run_manager:
                                await run_manager.on_llm_new_token(out, chunk=chunk)
                            yield chunk
        except (openai.APIError, httpx.TransportError) as exc:
            raise backend_error(exc, self.secrets) from exc
        except PARSE_ERRORS as exc:
            raise parse_error(exc) from exc
        tail = repair.finish()
        if tail or not sent:
            yield GenerationChunk(text=tail)

    def _read(self, resp: Any) -> str:
        data = resp if isinstance(resp, dict) else resp.model_dump()
        message = error_message(data)
        if message is not None:
            raise BackendError("backend_error", f"The model server reported an error: {message}")
        if data.get("model"):
            self._reported = str(data["model"])
        choices = data.get("choices") or []
        if not choices:
            return ""
        return str(choices[0].get("text") or "")


class CompatChatOpenAI(QuirkState, ChatOpenAI):
    """Chat completions with error mapping and the rejected-``stop`` retry."""

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for attempt in range(2):
            sent = self.memory.apply({"stop": stop, **kwargs})
            use_stop = sent.pop("stop", None)
            # ChatOpenAI._astream is an async generator; LangChain declares the wider AsyncIterator
            gen = cast(
                "AsyncGenerator[ChatGenerationChunk, None]",
                super()._astream(messages, use_stop or None, run_manager, **sent),
            )
            got = False
            try:
                async with contextlib.aclosing(gen):
                    async for chunk in gen:
                        got = True
                        yield chunk
                return
            except openai.APIError as exc:
                message = _rejected(exc)
                fields = {k: v for k, v in {"stop": use_stop, **sent}.items() if v is not None}
                if not got and attempt == 0 and message is not None and self.memory.learn(fields, message):
                    continue
                raise backend_error(exc, self.secrets) from exc
            except httpx.TransportError as exc:
                raise backend_error(exc, self.secrets) from exc
            except PARSE_ERRORS as exc:  # an event that is not JSON, or not a chat chunk
                raise parse_error(exc) from exc


def _common(config: ModelConfig, quirks: Quirks) -> dict[str, object]:
    kwargs: dict[str, object] = {
        "model": config.api_model or config.model or "default",
        "api_key": config.resolved_api_key() or _NO_KEY,
        "temperature": config.temperature,
        "max_retries": 0,
        "timeout": config.first_request_timeout,
        "streaming": config.streaming,
        "quirks": quirks,
        "secrets": config.secrets(),
    }
    if config.base_url:
        kwargs["base_url"] = config.base_url
    if config.top_p is not None:
        kwargs["top_p"] = config.top_p
    if config.headers:
        kwargs["default_headers"] = dict(config.headers)
    return kwargs


def _native_suffix(config: ModelConfig, quirks: Quirks) -> bool:
    wanted = bool(config.options.get("native_suffix", False))
    return wanted and quirks.native_suffix is not False and "suffix" not in quirks.unsupported_fields


def _describe(llm: Any, config: ModelConfig) -> Any:
    async def describe() -> str | None:
        headers = dict(config.headers)
        key = config.resolved_api_key()
        if key:
            headers.setdefault("Authorization", f"Bearer {key}")
        base = (config.base_url or "https://api.openai.com/v1").rstrip("/")
        async with httpx.AsyncClient(timeout=5.0) as client:
            try:
                r = await client.get(base + "/models", headers=headers)
            except httpx.TransportError as exc:
                raise BackendError("backend_unreachable", f"Cannot reach {base}/models: {exc}") from exc
        if r.status_code >= 400:
            raise status_error(r.status_code, r.text[:200], parse_retry_after(r.headers.get("retry-after")))
        data = r.json().get("data") or []
        ids = [str(m.get("id")) for m in data if isinstance(m, dict)]
        want = config.api_model or config.model
        return want if want in ids else (ids[0] if ids else getattr(llm, "reported_model", None))

    return describe


@register_backend("openai")
def openai_completions(config: ModelConfig) -> Backend:
    quirks = resolve_quirks("openai", config.server, config.quirks)
    # arg-type: _common's values are typed `object` (one keyword dict for both clients)
    llm = CompatOpenAI(max_tokens=config.max_tokens, **_common(config, quirks))  # type: ignore[arg-type]
    backend = Backend(config=config, llm=llm, kind="openai", native_suffix=_native_suffix(config, quirks))
    backend.describe = _describe(llm, config)
    return backend


@register_backend("openai-chat")
def openai_chat(config: ModelConfig) -> Backend:
    quirks = resolve_quirks("openai-chat", config.server, config.quirks)
    # arg-type: as above; call-arg: the pydantic plugin knows the field by its name (max_tokens) only,
    # ChatOpenAI takes its alias too
    llm = CompatChatOpenAI(  # type: ignore[call-arg]
        max_completion_tokens=config.max_tokens,
        **_common(config, quirks),  # type: ignore[arg-type]
    )
    backend = Backend(config=config, llm=llm, kind="openai-chat", chat=True)
    backend.describe = _describe(llm, config)
    return backend
