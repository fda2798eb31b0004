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
* the text repairs declared in the model's :class:`Quirks` (:class:`QuirkFilter`);
* a shared service: each request's session key (:mod:`.affinity`, bound as ``session``) in the
  configured header and, for kinds that take one, the body's user field (:attr:`session_field`);
  a ``429``/``503`` (or a spent rate-limit budget) pauses that server for every request of the
  process (:mod:`.pressure`): meanwhile requests are answered at once with ``model_busy``.

Subclasses say how to build the body (:meth:`_request`) and read one event (:meth:`_read_event`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, convert_to_openai_messages
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, GenerationChunk
from pydantic import Field, PrivateAttr, SecretStr

from .. import errors
from ..errors import BackendError, error_message, parse_retry_after
from ..pieces import Piece
from .affinity import Session
from .aio import AiohttpTransport, wants_httpx_transport
from .base import Backend, Description, ModelConfig, pick_model
from .pressure import BUSY_STATUSES, PRESSURE
from .quirks import QuirkFilter, Quirks, QuirkState
from .streaming import END, Identified, StreamedLLM, achunks, chunks, take

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
    # The request's session key for a session-aware router (:mod:`.affinity`), when it has one.
    session: Session | None = None


@dataclass
class Event:
    """What one streamed event carries."""

    text: str = ""
    done: bool = False
    model: str | None = None
    finish_reason: str | None = None


class HttpTransport(Identified, QuirkState):
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

    identity: ClassVar[tuple[str, ...]] = ("base_url", "model", "max_tokens", "temperature")
    # The body field that names the end user, where the kind's API has one (OpenAI's ``user``):
    # it carries the session key too (None: only the header does).
    session_field: ClassVar[str | None] = None

    # -- subclass interface
    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        raise NotImplementedError

    def _read_event(self, data: dict[str, Any]) -> Event:
        """What one event of the answer says (``data``: a JSON object; :meth:`texts` checks)."""
        raise NotImplementedError

    # -- HTTP
    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")

    def request_headers(self, session: Session | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", **self.headers}
        if self.api_key is not None and not any(k.lower() == "authorization" for k in headers):
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        if session is not None and session.header:
            headers[session.header] = session.key
        return headers

    def with_session(self, call: Call, kwargs: dict[str, Any]) -> Call:
        """``call`` with the session bound on the model call (``session``, popped from ``kwargs``
        before the body is built): its header, and the body's user field where the kind has one
        (a body that names a user already keeps it)."""
        session = kwargs.pop("session", None)
        if not isinstance(session, Session):
            return call
        call.session = session
        if session.body and self.session_field and self.session_field not in call.body:
            call.body[self.session_field] = session.key
        return call

    def client(self) -> httpx.AsyncClient:
        """One pooled client per event loop (connections belong to the loop that opened them)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(id(loop))
        if client is None or client.is_closed:
            client = make_client(self.timeout, connect=self.connect_timeout, limits=POOL_LIMITS, lean=True)
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

    @contextlib.contextmanager
    def _mapped(self, url: str) -> Iterator[None]:
        """httpx's errors of a small request to ``url`` as :class:`BackendError`."""
        secrets = self.all_secrets()
        try:
            yield
        except httpx.TimeoutException as exc:
            raise errors.timed_out(url, exc, secrets) from exc
        except httpx.HTTPStatusError as exc:
            resp = exc.response
            if resp.status_code >= 400:
                raise errors.from_response(
                    resp.status_code, resp.headers, resp.content, secrets, url=url
                ) from exc
            raise errors.redirected(resp.status_code, resp.headers.get("location"), secrets) from exc
        except httpx.TransportError as exc:
            raise errors.unreachable(url, exc, secrets) from exc

    async def get_json(self, path: str, method: str = "GET", body: Any = None, timeout: float = 5.0) -> Any:
        """A small JSON request (model info); errors become :class:`BackendError`; an answer that
        is not JSON is None."""
        url = self.url(path)
        with self._mapped(url), contextlib.suppress(ValueError):
            return await request_json(
                self.client(), method, url, body, headers=self.request_headers(), timeout=timeout
            )
        return None

    async def get_object(self, path: str, method: str = "GET", body: Any = None) -> dict[str, Any]:
        """:meth:`get_json` of a route that answers a JSON object ({} for anything else)."""
        data = await self.get_json(path, method, body)
        return data if isinstance(data, dict) else {}

    async def list_models(self, path: str, timeout: float = 5.0) -> list[str]:
        """The model ids the server lists at ``path`` (:func:`fetch_models`); errors as :meth:`get_json`."""
        url = self.url(path)
        with self._mapped(url):
            try:
                return await fetch_models(self.client(), url, headers=self.request_headers(), timeout=timeout)
            except ValueError:
                return []

    async def events(self, call: Call) -> AsyncGenerator[list[Any], None]:
        """The decoded JSON events of one streamed answer, in the batches one read of the body
        brought (:meth:`_decode`); retried once without a rejected field."""
        server = self.base_url.rstrip("/")
        held = PRESSURE.held(server)
        if held is not None:
            raise errors.busy(held)  # the server asked for a pause: nothing is sent
        body = self.memory.apply(call.body)
        headers = self.request_headers(call.session)
        for attempt in range(2):
            try:
                url = self.url(call.path)
                async with self.client().stream("POST", url, json=body, headers=headers) as resp:
                    if resp.status_code >= 400:
                        msg = errors.body_message(await resp.aread(), resp.reason_phrase)
                        if resp.status_code in (400, 422) and attempt == 0:
                            dropped = self.memory.learn(body, msg)
                            if dropped is not None:
                                body = self.memory.apply(body)
                                continue
                        retry_after: float | str | None = resp.headers.get("retry-after")
                        if resp.status_code in BUSY_STATUSES:
                            # one pause for this server, for every socket and tab of the process
                            paused = PRESSURE.refused(server, resp.status_code, resp.headers)
                            retry_after = retry_after if paused is None else paused
                        raise errors.from_status(
                            resp.status_code,
                            msg,
                            retry_after,
                            self.all_secrets(),
                            url=self.url(call.path),
                        )
                    PRESSURE.answered(server, resp.headers)
                    if 300 <= resp.status_code < 400:
                        raise errors.redirected(
                            resp.status_code, resp.headers.get("location"), self.all_secrets()
                        )
                    async for batch in self._decode(resp, call.format):
                        for i, data in enumerate(batch):
                            reported = error_message(data)
                            if reported is not None:  # 200 with an error body, or one in the stream
                                if i:
                                    yield batch[:i]
                                raise errors.reported(reported, self.all_secrets())
                        yield batch
                    return
            except httpx.TimeoutException as exc:
                raise errors.timed_out(self.url(call.path), exc, self.all_secrets()) from exc
            except httpx.RemoteProtocolError as exc:
                raise self._error("backend_error", f"The model server closed the stream: {exc}") from exc
            except httpx.TransportError as exc:
                raise errors.unreachable(self.url(call.path), exc, self.all_secrets()) from exc

    async def _decode(self, resp: httpx.Response, fmt: Format) -> AsyncIterator[list[Any]]:
        """The answer's JSON events, in batches: the events whose last byte came in one read of
        the body (a model sends a token every few milliseconds, and the reads follow the pace of
        whoever consumes them: ``aio.READ_HOLD``)."""
        ctype = resp.headers.get("content-type", "")
        if fmt == "json" or (ctype.startswith("application/json") and fmt == "sse"):
            parts: list[bytes] = []
            size = 0
            async for part in resp.aiter_bytes():
                size += len(part)
                if size > MAX_EVENT_CHARS:
                    raise errors.bad_answer(f"an answer longer than {MAX_EVENT_CHARS >> 20} MiB")
                parts.append(part)
            raw = b"".join(parts)
            try:
                yield [json.loads(raw)]
            except ValueError as exc:
                raise errors.bad_answer("an answer that is not JSON") from exc
            return
        lines = Lines()
        texts = resp.aiter_text()
        ended = False
        while not ended:
            try:
                text = await texts.__anext__()
            except StopAsyncIteration:
                text, ended = None, True
            batch: list[Any] = []
            complete = lines.feed(text) if text is not None else lines.end()
            if lines.pending > MAX_EVENT_CHARS:  # a line that never ends: bounded
                raise errors.bad_answer(f"an event longer than {MAX_EVENT_CHARS >> 20} MiB")
            for line in complete:
                line = line.strip()
                if not line:
                    continue
                if fmt == "sse":
                    if line.startswith(":") or not line.startswith("data:"):
                        continue  # comments, event:/id: lines
                    line = line[5:].strip()
                    if line == "[DONE]":
                        if batch:
                            yield batch
                        # Read what follows (the stream's last bytes) so the connection is
                        # reused: a response closed before its end takes its connection with it,
                        # and the next request pays a new TCP connection (measured: most of the
                        # time before the model request, docs/performance.md). Briefly, and
                        # quietly: the answer is complete, so a server that closes without the
                        # body's last chunk (llama-cpp-python's server does) or keeps it open
                        # costs only the connection.
                        await _drain(texts, httpx.HTTPError)
                        return
                try:
                    batch.append(json.loads(line))
                except ValueError as exc:
                    if batch:
                        yield batch  # what came before the bad event stands
                    raise errors.bad_answer("an event that is not JSON") from exc
            if batch:
                yield batch

    def _event(self, data: Any) -> Event:
        """One decoded event read as the provider's :class:`Event`, or a ``bad_answer`` error."""
        if not isinstance(data, dict):  # every provider's events are JSON objects
            raise errors.bad_answer(f"an event of an unexpected shape ({type(data).__name__})")
        try:
            return self._read_event(data)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            raise errors.bad_answer("an event of an unexpected shape", exc) from exc

    # -- what both LangChain faces share
    def optional_sampling(self, stop: list[str], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The optional fields every provider names alike: ``top_p`` (bound, else configured,
        when set; popped from ``kwargs``) and ``stop`` (when there are any)."""
        out: dict[str, Any] = {}
        top_p = kwargs.pop("top_p", self.top_p)
        if top_p is not None:
            out["top_p"] = top_p
        if stop:
            out["stop"] = stop
        return out

    def _stops(self, stop: list[str] | None, kwargs: dict[str, Any]) -> list[str]:
        extra = kwargs.pop("stop", None) or []
        return list(dict.fromkeys(s for s in [*self.stop, *(stop or []), *extra] if s))

    async def texts(
        self, call: Call, prompt: str, repair: bool = True, joined: bool = False
    ) -> AsyncGenerator[str, None]:
        """The completion text of one call, repaired as the quirks declare; at least one piece
        (LangChain wants a chunk even for an empty completion).

        One piece per event of the model's (its tokens, as LangChain's chunks are), or with
        ``joined`` one :class:`~jupyter_codecomplete.pieces.Piece` per read of the answer: the
        text of the events it brought, with their number (the token limit is counted in them:
        ``Pipeline.budget_spent``, the edit reader's)."""
        fix = QuirkFilter(self.quirks, prompt=prompt, before_cursor=call.before_cursor) if repair else None
        sent = done = False
        stream = self.events(call)
        async with contextlib.aclosing(stream):
            async for batch in stream:
                parts: list[str] = []
                for data in batch:
                    event = self._event(data)
                    if event.model:
                        self._answered = event.model
                    text = (fix.feed(event.text) if fix is not None else event.text) if event.text else ""
                    if text:
                        parts.append(text)
                    if event.done:
                        done = True
                        break
                if parts:
                    sent = True
                    if joined:
                        yield Piece(parts[0] if len(parts) == 1 else "".join(parts), len(parts))
                    else:
                        for text in parts:
                            yield text
                if done:
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


def root_url(base_url: str | None, default: str) -> str:
    """The server root: a trailing ``/v1`` or ``/api`` (OpenAI-style habits) is dropped."""
    url = (base_url or default).rstrip("/")
    for tail in ("/v1", "/api"):
        if url.endswith(tail):
            url = url[: -len(tail)]
    return url


def make_client(
    timeout: float,
    *,
    connect: float | None = None,
    read: float | None = None,
    limits: httpx.Limits | None = None,
    trust_env: bool = True,
    follow_redirects: bool = False,
    lean: bool = False,
) -> httpx.AsyncClient:
    """The one way this package makes an httpx client: ``timeout`` seconds (``connect`` at most
    for the connection, ``read`` between two reads when given), no redirects followed (a model
    server that redirects is an error; a file download follows them), ``limits`` for a pooled
    client, ``trust_env`` off where only this machine is asked (discovery: no proxy between us and
    a loopback port). ``lean``: the model's own client, whose sockets are aiohttp's
    (:mod:`.aio`: a third of the CPU a streamed token), unless the environment names a proxy
    only httpx speaks."""
    transport = None
    if lean and not wants_httpx_transport(trust_env):
        transport = AiohttpTransport(limits=limits, trust_env=trust_env)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(
            timeout,
            connect=min(connect, timeout) if connect is not None else timeout,
            read=read if read is not None else timeout,
        ),
        limits=limits or httpx.Limits(),
        follow_redirects=follow_redirects,
        trust_env=trust_env,
        transport=transport,
    )


async def request_json(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    body: Any = None,
    *,
    headers: dict[str, str] | None = None,
    timeout: float | None = None,
) -> Any:
    """One small JSON request; a status of 300 or more raises :class:`httpx.HTTPStatusError`
    (transport errors as httpx raises them), an answer that is not JSON :class:`ValueError`."""
    extra: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    resp = await client.request(method, url, json=body, headers=headers, **extra)
    if resp.status_code >= 300:
        raise httpx.HTTPStatusError(f"HTTP {resp.status_code}", request=resp.request, response=resp)
    return resp.json()


async def fetch_models(
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: dict[str, str] | None = None,
    timeout: float | None = None,
) -> list[str]:
    """The one model-listing function: the model ids a server lists at ``url`` (``/v1/models``,
    Ollama's ``/api/tags``), read by :func:`model_ids`. Errors as :func:`request_json` raises them."""
    return model_ids(await request_json(client, "GET", url, headers=headers, timeout=timeout))


def model_ids(data: Any) -> list[str]:
    """The one reading of a server's list of models: OpenAI's ``{"data": [{"id"}]}`` (``/v1/models``)
    or Ollama's ``{"models": [{"name" | "model"}]}`` (``/api/tags``), in the server's order."""
    if not isinstance(data, dict):
        return []
    entries = data.get("data") or data.get("models") or []
    if not isinstance(entries, list):
        return []
    ids = (m.get("id") or m.get("name") or m.get("model") for m in entries if isinstance(m, dict))
    return [str(i) for i in ids if i]


@dataclass
class HttpBackend(Backend):
    """A backend whose model is one of our HTTP models (:class:`HttpTransport`): it lists the
    server's models at :attr:`models_path` and closes the model's pooled clients."""

    # where the server lists its models, relative to the model's base URL
    models_path: ClassVar[str] = "/models"

    @property
    def transport(self) -> HttpTransport:
        assert isinstance(self.llm, HttpTransport)
        return self.llm

    async def list_models(self) -> list[str]:
        return await self.transport.list_models(self.models_path)

    async def describe(self) -> Description:
        """The configured model when the server lists it, else the first it lists, else the one
        its last answer named."""
        want = self.config.api_model or self.config.model
        return Description(model=pick_model(want, await self.list_models()) or self.transport.answered_model)

    async def aclose(self) -> None:
        await self.transport.aclose()


# The connection pool of one backend. httpx's default (100 connections) queues requests beyond
# it inside the pool, whose bookkeeping scans every connection for every queued request on every
# request start and end: with 200 streams in flight that was a sixth of the server's CPU
# (docs/performance.md). The model server queues what it cannot serve at once; we do not. A
# superseded stream is closed (that stops the model), so only live requests hold connections.
POOL_LIMITS = httpx.Limits(max_connections=1024, max_keepalive_connections=32, keepalive_expiry=30.0)


class Lines:
    """A streamed body's lines, as server-sent events and newline-delimited JSON end them: at
    ``\\r\\n``, ``\\r`` or ``\\n`` only (not at the other line breaks of Unicode, which a JSON
    string may hold unescaped: ``str.splitlines`` would cut such an event in two)."""

    def __init__(self) -> None:
        self._rest = ""

    def feed(self, text: str) -> list[str]:
        """The lines that ``text`` completes (without their line ends)."""
        text = self._rest + text
        if text.endswith("\r"):  # perhaps the first half of a \r\n
            self._rest, text = "\r", text[:-1]
        else:
            self._rest = ""
        lines = _LINE_END.split(text)
        self._rest = lines.pop() + self._rest
        return lines

    @property
    def pending(self) -> int:
        """The characters of the line not ended yet."""
        return len(self._rest)

    def end(self) -> list[str]:
        """The last line, when the body did not end with a line end."""
        rest, self._rest = self._rest.rstrip("\r"), ""
        return [rest] if rest else []


_LINE_END = re.compile(r"\r\n|\r|\n")
# The longest event (or whole JSON answer) read: past it the answer is an error, not memory.
MAX_EVENT_CHARS = 16 * 1024 * 1024

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
        while (value := take(out.get())) is not END:
            yield value
    finally:
        stop_flag.set()


class HttpStreamingLLM(HttpTransport, StreamedLLM):
    """A completion model behind a native HTTP API, streamed with httpx.

    Subclasses say how to build the body (:meth:`_request`) and read one event (:meth:`_read_event`)."""

    def streams_directly(self) -> bool:
        """Always: the runnable around this model only streams (:class:`DirectStream`)."""
        return True

    def stream_text(
        self, prompt: str, stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncGenerator[str, None]:
        """The completion's text as it streams, with no LangChain run around it: the engine's path
        when nothing observes the run (``DefaultInlineCompletionHandler.direct``). One
        :class:`~jupyter_codecomplete.pieces.Piece` per read of the answer (:meth:`texts`);
        :meth:`_astream` reads the same text one token a chunk. Closing it closes the HTTP
        response at once."""
        return self._texts(prompt, stop, kwargs, joined=True)

    async def _texts(
        self, prompt: str, stop: list[str] | None, kwargs: dict[str, Any], joined: bool
    ) -> AsyncGenerator[str, None]:
        kwargs = dict(kwargs)
        session = kwargs.pop("session", None)
        call = self._request(prompt, self._stops(stop, kwargs), kwargs)
        call = self.with_session(call, {"session": session})
        async with contextlib.aclosing(self.texts(call, prompt, joined=joined)) as texts:
            async for text in texts:
                yield text

    def _astream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[GenerationChunk, None]:
        # one chunk per token for LangChain's callbacks and tracing
        return achunks(self._texts(prompt, stop, kwargs, joined=False), _text_chunk, run_manager)

    def _stream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[GenerationChunk]:
        return chunks(run_sync(self, lambda: self._astream(prompt, stop, None, **kwargs)), run_manager)


def _text_chunk(text: str) -> GenerationChunk:
    return GenerationChunk(text=text)


def _message_chunk(text: str) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=AIMessageChunk(content=text))


class HttpStreamingChat(HttpTransport, BaseChatModel):
    """A chat model behind an HTTP API, streamed with httpx (no quirk repairs: a chat answer is the
    model's own message). Subclasses build the body from OpenAI-style message dicts
    (:meth:`_chat_request`) and read one event (:meth:`_read_event`)."""

    def _chat_request(self, messages: list[dict[str, Any]], stop: list[str], kwargs: dict[str, Any]) -> Call:
        raise NotImplementedError

    def streams_directly(self) -> bool:
        """Unless LangChain's chat runnable would do more than stream: its rate limiter, or
        streaming switched off (:class:`DirectStream`)."""
        return self.rate_limiter is None and not self.disable_streaming

    def stream_text(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncGenerator[str, None]:
        """The answer's text as it streams, with no LangChain run around it, one piece per read
        (see :meth:`HttpStreamingLLM.stream_text`)."""
        return self._texts(messages, stop, kwargs, joined=True)

    async def _texts(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any], joined: bool
    ) -> AsyncGenerator[str, None]:
        dicts: Any = convert_to_openai_messages(messages)
        kwargs = dict(kwargs)
        session = kwargs.pop("session", None)
        call = self._chat_request(dicts, self._stops(stop, kwargs), kwargs)
        call = self.with_session(call, {"session": session})
        async with contextlib.aclosing(self.texts(call, "", repair=False, joined=joined)) as texts:
            async for text in texts:
                yield text

    def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[ChatGenerationChunk, None]:
        # one chunk per token for LangChain's callbacks and tracing
        return achunks(self._texts(messages, stop, kwargs, joined=False), _message_chunk, run_manager)

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
        return chunks(run_sync(self, lambda: self._astream(messages, stop, None, **kwargs)), run_manager)

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
    "HttpBackend",
    "HttpStreamingChat",
    "HttpStreamingLLM",
    "HttpTransport",
    "error_message",
    "fetch_models",
    "make_client",
    "model_ids",
    "parse_retry_after",
    "request_json",
    "root_url",
    "run_sync",
    "status_error",
]
