"""The shared base of the native HTTP backends (Ollama, llama.cpp server, Mistral FIM).

:class:`HttpStreamingLLM` is a LangChain ``LLM`` that POSTs one JSON body and streams the answer
(server-sent events or newline-delimited JSON) with an ``httpx.AsyncClient``. It owns what every
provider needs the same way:

* cancellation: the response is read inside ``async with client.stream(...)``; closing the
  generator (a superseded request, a cancelled task) closes the response and its connection, so
  the server sees the disconnect and stops generating;
* errors: HTTP statuses, error bodies (also with status 200 and inside a stream), unreachable
  servers and timeouts all become :class:`BackendError` (``retry_after`` from ``Retry-After``),
  with the model's secrets scrubbed from the message;
* rejected optional fields: a 400 naming one (``suffix``, ``stop``...) is retried once without it,
  and the field is never sent to that server again (:class:`FieldMemory`);
* the text repairs declared in the model's :class:`Quirks` (:class:`QuirkFilter`).

Subclasses say how to build the body (:meth:`_request`) and read one event (:meth:`_read_event`).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.llms import LLM
from langchain_core.outputs import GenerationChunk
from pydantic import Field, PrivateAttr, SecretStr

from .base import BackendError, ModelConfig
from .quirks import QuirkFilter, Quirks, QuirkState

Format = Literal["sse", "ndjson", "json"]


@dataclass
class Call:
    """One request to make: path, JSON body, how the answer is framed."""

    path: str
    body: dict[str, Any]
    format: Format
    # The text right before the cursor, when the request shows it (for the leading-space repair).
    before_cursor: str | None = None


@dataclass
class Event:
    """What one streamed event carries."""

    text: str = ""
    done: bool = False
    model: str | None = None
    finish_reason: str | None = None


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    with contextlib.suppress(TypeError, ValueError):
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    return None


def error_message(data: Any) -> str | None:
    """The error message of a provider's error body, or None when ``data`` is not an error."""
    if not isinstance(data, dict):
        return None
    err = data.get("error")
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or json.dumps(err))
    if isinstance(err, str) and err:
        return err
    if data.get("object") == "error" or ("detail" in data and "choices" not in data):
        detail = data.get("message") or data.get("detail")
        return detail if isinstance(detail, str) else json.dumps(detail)
    return None


def status_error(status: int, message: str, retry_after: float | None) -> BackendError:
    if status == 429:
        kind = "rate_limited"
    elif status in (502, 503, 504):
        kind = "backend_unavailable"
    else:
        kind = "backend_error"
    return BackendError(kind, f"HTTP {status}: {message}", retry_after, status)


class HttpStreamingLLM(QuirkState, LLM):
    """A completion model behind a native HTTP API, streamed with httpx."""

    base_url: str
    model: str = ""
    api_key: SecretStr | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = 120.0
    connect_timeout: float = 10.0
    max_tokens: int = 256
    temperature: float = 0.2
    top_p: float | None = None
    stop: list[str] = Field(default_factory=list)
    streaming: bool = True

    _clients: dict[int, httpx.AsyncClient] = PrivateAttr(default_factory=dict)

    # -- configuration
    @classmethod
    def config_kwargs(cls, config: ModelConfig, quirks: Quirks) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": config.api_model or config.model,
            "headers": dict(config.headers),
            "timeout": config.first_request_timeout,
            "max_tokens": config.max_tokens,
            "temperature": config.temperature,
            "top_p": config.top_p,
            "streaming": config.streaming,
            "quirks": quirks,
            "secrets": config.secrets(),
        }
        key = config.resolved_api_key()
        if key:
            kwargs["api_key"] = SecretStr(key)
        return kwargs

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        }

    # -- subclass interface
    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        raise NotImplementedError

    def _read_event(self, data: Any) -> Event:
        raise NotImplementedError

    # -- HTTP
    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")

    def request_headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", **self.headers}
        if self.api_key is not None and not any(k.lower() == "authorization" for k in headers):
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        return headers

    def client(self) -> httpx.AsyncClient:
        """One pooled client per event loop (connections belong to the loop that opened them)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(id(loop))
        if client is None or client.is_closed:
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout, connect=min(self.connect_timeout, self.timeout)),
                follow_redirects=False,
            )
            self._clients[id(loop)] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = dict(self._clients), {}
        for client in clients.values():
            with contextlib.suppress(Exception):
                await client.aclose()

    def scrub(self, text: str) -> str:
        for s in self.secrets:
            if s:
                text = text.replace(s, "***")
        if self.api_key is not None:
            text = text.replace(self.api_key.get_secret_value(), "***")
        return text

    def _error(
        self, kind: str, message: str, retry_after: float | None = None, status: int | None = None
    ) -> BackendError:
        return BackendError(kind, self.scrub(message)[:2000], retry_after, status)

    async def get_json(self, path: str, method: str = "GET", body: Any = None, timeout: float = 5.0) -> Any:
        """A small JSON request (model info); errors become :class:`BackendError`."""
        try:
            resp = await self.client().request(
                method, self.url(path), json=body, headers=self.request_headers(), timeout=timeout
            )
        except httpx.TimeoutException as exc:
            raise self._error("timeout", f"{self.url(path)} did not answer in {timeout:g} s") from exc
        except httpx.TransportError as exc:
            raise self._error("backend_unreachable", f"Cannot reach {self.url(path)}: {exc}") from exc
        try:
            data = resp.json()
        except ValueError:
            data = None
        if resp.status_code >= 400:
            msg = error_message(data) or resp.text[:300] or resp.reason_phrase
            raise self._error(
                status_error(resp.status_code, msg, None).type,
                f"HTTP {resp.status_code}: {msg}",
                parse_retry_after(resp.headers.get("retry-after")),
            )
        return data

    async def events(self, call: Call) -> AsyncIterator[Any]:
        """The decoded JSON events of one streamed answer (retried once without a rejected field)."""
        body = self.memory.apply(call.body)
        for attempt in range(2):
            try:
                async with self.client().stream(
                    "POST", self.url(call.path), json=body, headers=self.request_headers()
                ) as resp:
                    if resp.status_code >= 400:
                        raw = (await resp.aread()).decode("utf-8", errors="replace")
                        try:
                            msg = error_message(json.loads(raw)) or raw[:500]
                        except ValueError:
                            msg = raw[:500] or resp.reason_phrase
                        if resp.status_code in (400, 422) and attempt == 0:
                            dropped = self.memory.learn(body, msg)
                            if dropped is not None:
                                body = self.memory.apply(body)
                                continue
                        err = status_error(
                            resp.status_code, msg, parse_retry_after(resp.headers.get("retry-after"))
                        )
                        raise self._error(err.type, str(err), err.retry_after, err.status)
                    async for data in self._decode(resp, call.format):
                        reported = error_message(data)
                        if reported is not None:  # 200 with an error body, or an error inside the stream
                            raise self._error(
                                "backend_error", f"The model server reported an error: {reported}"
                            )
                        yield data
                    return
            except httpx.TimeoutException as exc:
                raise self._error(
                    "timeout", f"{self.url(call.path)} timed out ({type(exc).__name__})"
                ) from exc
            except httpx.RemoteProtocolError as exc:
                raise self._error("backend_error", f"The model server closed the stream: {exc}") from exc
            except httpx.TransportError as exc:
                raise self._error(
                    "backend_unreachable", f"Cannot reach {self.url(call.path)}: {exc}"
                ) from exc

    async def _decode(self, resp: httpx.Response, fmt: Format) -> AsyncIterator[Any]:
        ctype = resp.headers.get("content-type", "")
        if fmt == "json" or (ctype.startswith("application/json") and fmt == "sse"):
            raw = await resp.aread()
            try:
                yield json.loads(raw)
            except ValueError as exc:
                raise self._error(
                    "backend_error", f"Invalid JSON from the model server: {raw[:200]!r}"
                ) from exc
            return
        async for line in resp.aiter_lines():
            line = line.strip()
            if not line:
                continue
            if fmt == "sse":
                if line.startswith(":") or not line.startswith("data:"):
                    continue  # comments, event:/id: lines
                line = line[5:].strip()
                if line == "[DONE]":
                    return
            try:
                yield json.loads(line)
            except ValueError as exc:
                raise self._error("backend_error", f"Invalid JSON in the stream: {line[:200]!r}") from exc

    # -- LangChain
    def _stops(self, stop: list[str] | None, kwargs: dict[str, Any]) -> list[str]:
        extra = kwargs.pop("stop", None) or []
        return list(dict.fromkeys(s for s in [*self.stop, *(stop or []), *extra] if s))

    async def _astream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[GenerationChunk, None]:
        call = self._request(prompt, self._stops(stop, kwargs), dict(kwargs))
        repair = QuirkFilter(self.quirks, prompt=prompt, before_cursor=call.before_cursor)
        sent = False
        async for data in self.events(call):
            if not isinstance(data, dict):  # every provider's events are JSON objects
                raise self._error(
                    "backend_error",
                    f"The model server sent an event of an unexpected shape ({type(data).__name__}).",
                )
            try:
                event = self._read_event(data)
            except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
                raise self._error(
                    "backend_error",
                    f"The model server sent an event of an unexpected shape ({type(exc).__name__}).",
                ) from exc
            if event.model:
                self._reported = event.model
            text = repair.feed(event.text) if event.text else ""
            if text:
                sent = True
                chunk = GenerationChunk(text=text)
                if run_manager:
                    await run_manager.on_llm_new_token(text, chunk=chunk)
                yield chunk
            if event.done:
                break
        tail = repair.finish()
        if tail or not sent:  # LangChain wants at least one chunk, even for an empty completion
            yield GenerationChunk(text=tail)

    async def _acall(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> str:
        parts: list[str] = []
        gen = self._astream(prompt, stop, run_manager, **kwargs)
        async with contextlib.aclosing(gen):
            async for chunk in gen:
                parts.append(chunk.text)
        return "".join(parts)

    def _call(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> str:
        return "".join(c.text for c in self._stream(prompt, stop, run_manager, **kwargs))

    def _stream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[GenerationChunk]:
        """Synchronous use (scripts): the async stream run on a private loop in a thread."""
        import queue

        out: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop_flag = threading.Event()

        async def pump() -> None:
            gen = self._astream(prompt, stop, None, **kwargs)
            try:
                async with contextlib.aclosing(gen):
                    async for chunk in gen:
                        if stop_flag.is_set():
                            break
                        out.put(("chunk", chunk))
            except BaseException as exc:
                out.put(("error", exc))
            finally:
                await self.aclose()
                out.put(("end", None))

        thread = threading.Thread(target=lambda: asyncio.run(pump()), daemon=True)
        thread.start()
        try:
            while True:
                kind, value = out.get()
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                if run_manager:
                    run_manager.on_llm_new_token(value.text, chunk=value)
                yield value
        finally:
            stop_flag.set()
