"""The one streaming base of the HTTP backends (OpenAI-compatible, Ollama, llama.cpp server, Mistral FIM).

:class:`HttpTransport` POSTs one JSON body and streams the answer (server-sent events or
newline-delimited JSON) with an ``httpx.AsyncClient``; :class:`HttpStreamingLLM` is its LangChain
``LLM`` face, :class:`HttpStreamingChat` its chat-model face. It owns what every provider needs
the same way:

* cancellation: the response is read inside ``async with client.stream(...)``; closing the
  generator (a superseded request, a cancelled task) closes the response and its connection, so
  the server sees the disconnect and stops generating;
* errors: HTTP statuses, error bodies (also with status 200 and inside a stream), unreachable
  servers and timeouts all become :class:`BackendError` through :mod:`jupyter_codecomplete.errors`
  (the one status table, ``retry_after`` from ``Retry-After``), with the model's secrets scrubbed;
* rejected optional fields: a 400 naming one (``suffix``, ``stop``...) is retried once without it,
  and the field is never sent to that server again (:class:`FieldMemory`);
* the text repairs declared in the model's :class:`Quirks` (:class:`QuirkFilter`).

Subclasses say how to build the body (:meth:`_request`) and read one event (:meth:`_read_event`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.llms import LLM
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, convert_to_openai_messages
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, GenerationChunk
from pydantic import Field, PrivateAttr, SecretStr

from .. import errors
from ..errors import BackendError, error_message, parse_retry_after
from .base import ModelConfig
from .quirks import QuirkFilter, Quirks, QuirkState

Format = Literal["sse", "ndjson", "json"]
T = TypeVar("T")


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


class HttpTransport(QuirkState):
    """What every HTTP backend shares, whichever LangChain face it has (LLM or chat model): the
    pooled httpx client, the request, the decoded event stream, the errors and the repairs."""

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
                limits=POOL_LIMITS,
                follow_redirects=False,
            )
            self._clients[id(loop)] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = dict(self._clients), {}
        for client in clients.values():
            with contextlib.suppress(Exception):
                await client.aclose()

    def all_secrets(self) -> list[str]:
        out = list(self.secrets)
        if self.api_key is not None:
            out.append(self.api_key.get_secret_value())
        return out

    def scrub(self, text: str) -> str:
        return errors.scrub(text, self.all_secrets())

    def _error(self, kind: str, message: str) -> BackendError:
        return BackendError(kind, errors.clip(self.scrub(message)))

    async def get_json(self, path: str, method: str = "GET", body: Any = None, timeout: float = 5.0) -> Any:
        """A small JSON request (model info); errors become :class:`BackendError`."""
        try:
            resp = await self.client().request(
                method, self.url(path), json=body, headers=self.request_headers(), timeout=timeout
            )
        except httpx.TimeoutException as exc:
            raise errors.timed_out(self.url(path), exc, self.all_secrets()) from exc
        except httpx.TransportError as exc:
            raise errors.unreachable(self.url(path), exc, self.all_secrets()) from exc
        if resp.status_code >= 400:
            raise errors.from_response(
                resp.status_code, resp.headers, resp.content, self.all_secrets(), url=self.url(path)
            )
        if resp.is_redirect or 300 <= resp.status_code < 400:
            raise errors.redirected(resp.status_code, resp.headers.get("location"), self.all_secrets())
        try:
            return resp.json()
        except ValueError:
            return None

    async def events(self, call: Call) -> AsyncGenerator[Any, None]:
        """The decoded JSON events of one streamed answer (retried once without a rejected field)."""
        body = self.memory.apply(call.body)
        for attempt in range(2):
            try:
                async with self.client().stream(
                    "POST", self.url(call.path), json=body, headers=self.request_headers()
                ) as resp:
                    if resp.status_code >= 400:
                        msg = errors.body_message(await resp.aread(), resp.reason_phrase)
                        if resp.status_code in (400, 422) and attempt == 0:
                            dropped = self.memory.learn(body, msg)
                            if dropped is not None:
                                body = self.memory.apply(body)
                                continue
                        raise errors.from_status(
                            resp.status_code,
                            msg,
                            resp.headers.get("retry-after"),
                            self.all_secrets(),
                            url=self.url(call.path),
                        )
                    if 300 <= resp.status_code < 400:
                        raise errors.redirected(
                            resp.status_code, resp.headers.get("location"), self.all_secrets()
                        )
                    async for data in self._decode(resp, call.format):
                        reported = error_message(data)
                        if reported is not None:  # 200 with an error body, or an error inside the stream
                            raise errors.reported(reported, self.all_secrets())
                        yield data
                    return
            except httpx.TimeoutException as exc:
                raise errors.timed_out(self.url(call.path), exc, self.all_secrets()) from exc
            except httpx.RemoteProtocolError as exc:
                raise self._error("backend_error", f"The model server closed the stream: {exc}") from exc
            except httpx.TransportError as exc:
                raise errors.unreachable(self.url(call.path), exc, self.all_secrets()) from exc

    async def _decode(self, resp: httpx.Response, fmt: Format) -> AsyncIterator[Any]:
        ctype = resp.headers.get("content-type", "")
        if fmt == "json" or (ctype.startswith("application/json") and fmt == "sse"):
            raw = await resp.aread()
            try:
                yield json.loads(raw)
            except ValueError as exc:
                raise errors.bad_answer("an answer that is not JSON") from exc
            return
        lines = resp.aiter_lines()
        async for line in lines:
            line = line.strip()
            if not line:
                continue
            if fmt == "sse":
                if line.startswith(":") or not line.startswith("data:"):
                    continue  # comments, event:/id: lines
                line = line[5:].strip()
                if line == "[DONE]":
                    # Read what follows (the stream's last bytes) so the connection is reused: a
                    # response closed before its end takes its connection with it, and the next
                    # request pays a new TCP connection (measured: most of the time before the
                    # model request, docs/performance.md). Briefly, and quietly: the answer is
                    # complete, so a server that closes without the body's last chunk
                    # (llama-cpp-python's server does) or keeps it open costs only the connection.
                    await _drain(lines, httpx.HTTPError)
                    return
            try:
                yield json.loads(line)
            except ValueError as exc:
                raise errors.bad_answer("an event that is not JSON") from exc

    # -- what both LangChain faces share
    def _stops(self, stop: list[str] | None, kwargs: dict[str, Any]) -> list[str]:
        extra = kwargs.pop("stop", None) or []
        return list(dict.fromkeys(s for s in [*self.stop, *(stop or []), *extra] if s))

    async def texts(self, call: Call, prompt: str, repair: bool = True) -> AsyncGenerator[str, None]:
        """The completion text of one call, repaired as the quirks declare; at least one piece
        (LangChain wants a chunk even for an empty completion)."""
        fix = QuirkFilter(self.quirks, prompt=prompt, before_cursor=call.before_cursor) if repair else None
        sent = done = False
        stream = self.events(call)
        async with contextlib.aclosing(stream):
            async for data in stream:
                if not isinstance(data, dict):  # every provider's events are JSON objects
                    raise errors.bad_answer(f"an event of an unexpected shape ({type(data).__name__})")
                try:
                    event = self._read_event(data)
                except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
                    raise errors.bad_answer("an event of an unexpected shape", exc) from exc
                if event.model:
                    self._answered = event.model
                text = (fix.feed(event.text) if fix is not None else event.text) if event.text else ""
                if text:
                    sent = True
                    yield text
                if event.done:
                    done = True
                    break
            tail = fix.finish() if fix is not None else ""
            if tail or not sent:
                yield tail
            if done:
                # The server said it is done (Ollama's `done`, llama.cpp's `stop`): read the last
                # bytes of the body, so the connection goes back to the pool instead of being
                # dropped with a half-read response. Briefly: a server that keeps the body open
                # after its last event loses only its connection.
                await _drain(stream, BackendError)


# The connection pool of one backend. httpx's default (100 connections) queues requests beyond
# it inside the pool, whose bookkeeping scans every connection for every queued request on every
# request start and end: with 200 streams in flight that was a sixth of the server's CPU
# (docs/performance.md). The model server queues what it cannot serve at once; we do not. A
# superseded stream is closed (that stops the model), so only live requests hold connections.
POOL_LIMITS = httpx.Limits(max_connections=1024, max_keepalive_connections=32, keepalive_expiry=30.0)

# How long to wait for the end of a body after the server's last event (see HttpTransport.texts).
DRAIN_SECONDS = 0.05


async def _drain(stream: AsyncIterator[Any], quiet: type[Exception]) -> None:
    """Read what is left of a stream for at most :data:`DRAIN_SECONDS`; running out of time or
    an error of type ``quiet`` ends it silently."""
    with contextlib.suppress(TimeoutError, asyncio.TimeoutError, quiet):
        if sys.version_info >= (3, 11):
            # A timeout scope on the current task (wait_for makes a task per call on 3.11).
            async with asyncio.timeout(DRAIN_SECONDS):
                async for _ in stream:
                    pass
        else:  # pragma: no cover - Python 3.10
            await asyncio.wait_for(_consume(stream), DRAIN_SECONDS)


async def _consume(stream: AsyncIterator[Any]) -> None:
    async for _ in stream:
        pass


def run_sync(transport: HttpTransport, make: Callable[[], AsyncGenerator[T, None]]) -> Iterator[T]:
    """Synchronous use (scripts): an async stream run on a private loop in a thread."""
    import queue

    out: queue.Queue[tuple[str, Any]] = queue.Queue()
    stop_flag = threading.Event()

    async def pump() -> None:
        gen = make()
        try:
            async with contextlib.aclosing(gen):
                async for item in gen:
                    if stop_flag.is_set():
                        break
                    out.put(("item", item))
        except BaseException as exc:
            out.put(("error", exc))
        finally:
            await transport.aclose()
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
            yield value
    finally:
        stop_flag.set()


class HttpStreamingLLM(HttpTransport, LLM):
    """A completion model behind a native HTTP API, streamed with httpx.

    Subclasses say how to build the body (:meth:`_request`) and read one event (:meth:`_read_event`)."""

    async def stream_text(
        self, prompt: str, stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncGenerator[str, None]:
        """The completion's text as it streams, with no LangChain run around it: the engine's path
        when nothing observes the run (``DefaultInlineCompletionHandler.direct``), and what
        :meth:`_astream` wraps. Closing it closes the HTTP response at once."""
        call = self._request(prompt, self._stops(stop, kwargs), dict(kwargs))
        async with contextlib.aclosing(self.texts(call, prompt)) as texts:
            async for text in texts:
                yield text

    async def _astream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[GenerationChunk, None]:
        async with contextlib.aclosing(self.stream_text(prompt, stop, **kwargs)) as texts:
            async for text in texts:
                chunk = GenerationChunk(text=text)
                if run_manager and text:
                    await run_manager.on_llm_new_token(text, chunk=chunk)
                yield chunk

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
        for chunk in run_sync(self, lambda: self._astream(prompt, stop, None, **kwargs)):
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


class HttpStreamingChat(HttpTransport, BaseChatModel):
    """A chat model behind an HTTP API, streamed with httpx (no quirk repairs: a chat answer is the
    model's own message). Subclasses build the body from OpenAI-style message dicts
    (:meth:`_chat_request`) and read one event (:meth:`_read_event`)."""

    def _chat_request(self, messages: list[dict[str, Any]], stop: list[str], kwargs: dict[str, Any]) -> Call:
        raise NotImplementedError

    async def stream_text(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncGenerator[str, None]:
        """The answer's text as it streams, with no LangChain run around it (see
        :meth:`HttpStreamingLLM.stream_text`)."""
        dicts: Any = convert_to_openai_messages(messages)
        call = self._chat_request(dicts, self._stops(stop, kwargs), dict(kwargs))
        async with contextlib.aclosing(self.texts(call, "", repair=False)) as texts:
            async for text in texts:
                yield text

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[ChatGenerationChunk, None]:
        async with contextlib.aclosing(self.stream_text(messages, stop, **kwargs)) as texts:
            async for text in texts:
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=text))
                if run_manager and text:
                    await run_manager.on_llm_new_token(text, chunk=chunk)
                yield chunk

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        parts: list[str] = []
        gen = self._astream(messages, stop, run_manager, **kwargs)
        async with contextlib.aclosing(gen):
            async for chunk in gen:
                parts.append(chunk.text)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="".join(parts)))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in run_sync(self, lambda: self._astream(messages, stop, None, **kwargs)):
            if run_manager:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = "".join(c.text for c in self._stream(messages, stop, run_manager, **kwargs))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


# Kept for importers of the old names (the functions live in jupyter_codecomplete.errors).
status_error = errors.from_status
__all__ = [
    "Call",
    "Event",
    "HttpStreamingChat",
    "HttpStreamingLLM",
    "HttpTransport",
    "error_message",
    "parse_retry_after",
    "run_sync",
    "status_error",
]
