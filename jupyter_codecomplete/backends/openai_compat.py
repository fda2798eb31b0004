"""OpenAI-compatible endpoints (legacy ``/v1/completions`` and ``/v1/chat/completions``).

``openai`` (legacy completions) is an :class:`~.http.HttpStreamingLLM`: the body is built here and
the stream read by the shared httpx base, which owns what real "OpenAI-compatible" servers need:

* the response stream is read inside ``async with`` so that closing the generator closes the
  HTTP response (the server sees the disconnect and stops generating);
* provider errors become :class:`BackendError` through :mod:`jupyter_codecomplete.errors`
  (``429``/``502``/``503``/``504`` with ``Retry-After``, a ``200`` carrying an error body, an error
  event inside the stream);
* a ``400`` naming an optional field (``suffix``, ``stop``) is retried once without it, and the field
  is not sent to that server again;
* the completion text is repaired as the model's :class:`Quirks` declare (echoed prompt, literal
  ``\\n``, a stray leading space); an empty completion is one empty chunk, not an error.

``openai-chat`` is langchain-openai's ``ChatOpenAI`` with the same error mapping and the
rejected-``stop`` retry on top.

The client never retries on its own (a retry in the typing path only adds latency); timeouts come
from the model config. ``native_suffix`` is off unless ``options["native_suffix"]`` turns it on and the
server's quirks allow it (llama-cpp-python's ``suffix`` is broken: :data:`quirks.SERVER_QUIRKS`);
:func:`~.base.native_suffix` decides.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import openai
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_openai import ChatOpenAI
from pydantic import Field

from .. import errors
from ..errors import BackendError, error_message
from .base import Backend, Describe, Description, ModelConfig
from .http import Call, Event, HttpStreamingLLM
from .quirks import Quirks, QuirkState, resolve_quirks

DEFAULT_URL = "https://api.openai.com/v1"

# langchain-openai insists on a key; local servers need none.
_NO_KEY = "not-needed"


def backend_error(exc: BaseException, secrets: list[str]) -> BaseException:
    """An openai SDK or httpx exception as a :class:`BackendError` (:func:`errors.as_error`)."""
    err = errors.as_error(exc, secrets)
    return err if isinstance(err, BackendError) else exc


# What a malformed answer raises while it is read (not JSON, or JSON of an unexpected shape).
PARSE_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError)


def parse_error(exc: BaseException) -> BackendError:
    """A malformed answer from the model server: always ``backend_error``."""
    if isinstance(exc, json.JSONDecodeError):
        return errors.bad_answer("an answer that is not JSON")
    return errors.bad_answer("an answer of an unexpected shape", exc)


def _rejected(exc: BaseException) -> str | None:
    if isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
        body = exc.body if isinstance(exc.body, dict) else {}
        return error_message(body) or error_message({"error": body}) or exc.message
    return None


class OpenAICompletionsLLM(HttpStreamingLLM):
    """Legacy ``POST /v1/completions`` on the shared httpx base: one JSON body, server-sent events.

    Built here rather than through the OpenAI SDK and langchain-openai: the body is a small dict,
    the stream is read once by :class:`HttpStreamingLLM` (cancellation, the one error mapping,
    retry-without-a-rejected-field, quirk repairs), and nothing is validated twice on the way. That
    path cost most of the server's time from a websocket frame to the model request
    (docs/performance.md)."""

    # Sent as they are (a config's ``options.extra_body``: e.g. vLLM's ``min_tokens``).
    extra_body: dict[str, Any] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "openai-completions"

    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        body: dict[str, Any] = {
            "model": self.model or "default",
            "prompt": prompt,
            "max_tokens": int(kwargs.pop("max_tokens", self.max_tokens)),
            "temperature": float(kwargs.pop("temperature", self.temperature)),
            "stream": self.streaming,
        }
        top_p = kwargs.pop("top_p", self.top_p)
        if top_p is not None:
            body["top_p"] = top_p
        if stop:
            body["stop"] = stop
        suffix = kwargs.pop("suffix", None)
        if suffix is not None:
            body["suffix"] = suffix
        body.update(self.extra_body)
        body.update(kwargs)  # anything else bound on the model goes to the server as it is
        return Call("/completions", body, "sse" if self.streaming else "json", before_cursor=prompt)

    def _read_event(self, data: Any) -> Event:
        choices = data.get("choices") or []
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        return Event(
            text=str(choice.get("text") or ""),
            done=not self.streaming,  # a stream ends with [DONE] or its end
            model=data.get("model") or None,
            finish_reason=choice.get("finish_reason"),
        )


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
            gen = super()._astream(messages, use_stop or None, run_manager, **sent)
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
    # A client of its own: langchain-openai's default async client is one per process, shared by
    # every model (and kept across event loops, whose closed connections it would reuse).
    kwargs["http_async_client"] = httpx.AsyncClient(
        timeout=config.first_request_timeout, follow_redirects=True
    )
    return kwargs


def _describe(llm: Any, config: ModelConfig) -> Describe:
    async def describe() -> Description:
        headers = dict(config.headers)
        key = config.resolved_api_key()
        if key:
            headers.setdefault("Authorization", f"Bearer {key}")
        base = (config.base_url or DEFAULT_URL).rstrip("/")
        async with httpx.AsyncClient(timeout=5.0) as client:
            try:
                r = await client.get(base + "/models", headers=headers)
            except httpx.TimeoutException as exc:
                raise errors.timed_out(base + "/models", exc, config.secrets()) from exc
            except httpx.TransportError as exc:
                raise errors.unreachable(base + "/models", exc, config.secrets()) from exc
        if r.status_code >= 400:
            raise errors.from_response(r.status_code, r.headers, r.content, config.secrets())
        data = r.json().get("data") or []
        ids = [str(m.get("id")) for m in data if isinstance(m, dict)]
        want = config.api_model or config.model
        model = want if want in ids else (ids[0] if ids else getattr(llm, "reported_model", None))
        return Description(model=model)

    return describe


def openai_completions(config: ModelConfig) -> Backend:
    """``/v1/completions``: the suffix goes natively only when ``options.native_suffix`` says so."""
    quirks = resolve_quirks("openai", config.server, config.quirks)
    kwargs = OpenAICompletionsLLM.config_kwargs(config, quirks)
    llm = OpenAICompletionsLLM(
        base_url=(config.base_url or DEFAULT_URL).rstrip("/"),
        extra_body=dict(config.options.get("extra_body") or {}),
        **kwargs,
    )
    return Backend(config=config, llm=llm, kind="openai", quirks=quirks, describe=_describe(llm, config))


def openai_chat(config: ModelConfig) -> Backend:
    quirks = resolve_quirks("openai-chat", config.server, config.quirks)
    llm = CompatChatOpenAI(max_completion_tokens=config.max_tokens, **_common(config, quirks))  # type: ignore[arg-type]
    return Backend(
        config=config, llm=llm, kind="openai-chat", chat=True, quirks=quirks, describe=_describe(llm, config)
    )
