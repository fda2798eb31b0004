"""The inline completion websocket, ``api/codecomplete/inline``: parse, authorize, dispatch, write.

One socket per browser tab. Requests are numbered; each runs as a tracked task. A newer
completion request supersedes (cancels) the older ones on the same socket, an explicit
``cancel`` stops one, and closing the socket stops all: cancelling the task closes the upstream
HTTP stream. Every failure becomes a reply carrying the request number; the socket stays open.

Bounded output: a client that speaks protocol 2 (it answers ``hello``) gets stream deltas; while
the client is behind (more than :data:`COALESCE_BYTES` queued), stream chunks of a request are
merged into one; past ``max_queued_bytes`` the request is ended, past twice that the socket is
closed. Writes to a closed socket are quiet; a text frame that is not UTF-8 closes with 1007.

Cheap writes: the answer to a superseded or cancelled request waits (at most
:data:`DEFER_S`) for the socket's next message and leaves with it, all frames of a flush in one
system call; a message someone waits for (a reply, a stream chunk) is never held back.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import struct
from typing import TYPE_CHECKING, Any, cast

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from jupyter_server.extension.handler import ExtensionHandlerMixin
from pydantic import BaseModel, ValidationError
from tornado import web
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError, WebSocketHandler, WebSocketProtocol13

from ..completion import BaseInlineCompletionHandler
from ..errors import validation_message
from ..protocol import (
    MAX_DEPTH,
    PROTOCOL_VERSIONS,
    CancelRequest,
    ClientHello,
    EditPredictionRequest,
    ErrorInfo,
    ErrorReply,
    HelloMessage,
    InlineCompletionItem,
    InlineCompletionList,
    InlineCompletionReply,
    InlineCompletionRequest,
    InlineCompletionStreamChunk,
    UsageMessage,
    WarmReply,
    WarmRequest,
    client_message_adapter,
    nesting_depth,
    number_hint,
)

if TYPE_CHECKING:  # the app imports the handlers
    from ..extension import CodeCompleteApp

AUTH_RESOURCE = "codecomplete"
# Past this many bytes queued for the client, stream chunks of a request are merged, not queued.
COALESCE_BYTES = 64 * 1024
# How long the answer to a superseded or cancelled request may wait for the socket's next message
# (no one waits for it; under a typing burst it leaves with the next request's reply). Writing
# every such answer at once was a fifth of the server's CPU under 200 sockets x 20 requests.
DEFER_S = 0.05


def too_deep_message() -> str:
    return f"The message is nested too deeply (the limit is {MAX_DEPTH} levels of lists and objects)."


def request_number(data: Any) -> int:
    """The request number of a message that failed validation, or -1."""
    if isinstance(data, dict):
        n = data.get("number")
        if isinstance(n, int) and not isinstance(n, bool) and n >= 0:
            return n
    return -1


# How long a connection closed for a too-big frame waits for its close frame to reach the client.
LINGER_S = 2.0
_LINGERING: set[asyncio.Future[None]] = set()


class _Protocol(WebSocketProtocol13):
    """Tornado's protocol, but a text frame that is not UTF-8 gets the 1007 close frame (RFC 6455
    §7.4.1) instead of a dropped TCP connection, and a frame over tornado's hard limit
    (``max_message_size``) gets the 1009 close frame with a reason that names the limit: tornado
    writes the frame and then tears the connection down at once, so the client saw a reset. Here the
    connection lingers until the close frame is out (what the client still sends is read and
    dropped, for at most :data:`LINGER_S`), then closes."""

    _too_big = False
    _lingering = False

    def close(self, code: int | None = None, reason: str | None = None) -> None:
        if code == 1009 and not self.server_terminated:
            self._too_big = True
            limit = getattr(self.handler, "max_message_size", None)
            reason = (
                f"Message too big: over {limit} bytes (see c.CodeCompleteApp.max_message_bytes)."
                if isinstance(limit, int)
                else "Message too big."
            )[:123]
        super().close(code, reason)

    def _abort(self) -> None:
        if not self._too_big or self._lingering or self.stream is None or self.stream.closed():
            super()._abort()
            return
        self._lingering = True
        self.client_terminated = True  # the frame loop stops reading frames
        task = asyncio.ensure_future(self._linger())
        _LINGERING.add(task)
        task.add_done_callback(_LINGERING.discard)

    async def _linger(self) -> None:
        stream = self.stream
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LINGER_S
        try:
            await asyncio.wait_for(stream.write(b""), LINGER_S)  # the close frame is written
            while (left := deadline - loop.time()) > 0:
                await asyncio.wait_for(stream.read_bytes(256 * 1024, partial=True), left)
        except (StreamClosedError, asyncio.TimeoutError, OSError):
            pass
        finally:
            super()._abort()

    def _handle_message(self, opcode: int, data: bytes) -> Any:
        if opcode == 0x1 and not self._frame_compressed and not self.client_terminated:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                self.close(1007, "A text frame that is not UTF-8.")
                return None
        return super()._handle_message(opcode, data)

    def write_texts(self, messages: list[bytes]) -> asyncio.Future[None]:
        """Text messages, one frame each, in one write to the stream (one system call, no task per
        message as :meth:`write_message` makes). Raises :class:`WebSocketClosedError`."""
        if self.mask_outgoing:  # a client's protocol: not ours to batch
            futures = [self.write_message(m) for m in messages]
            return futures[-1]
        parts: list[bytes] = []
        for data in messages:
            self._message_bytes_out += len(data)
            flags = 0
            if self._compressor:
                data = self._compressor.compress(data)
                flags |= self.RSV1
            first = self.FIN | 0x1 | flags
            n = len(data)
            if n < 126:
                parts.append(struct.pack("BB", first, n))
            elif n <= 0xFFFF:
                parts.append(struct.pack("!BBH", first, 126, n))
            else:
                parts.append(struct.pack("!BBQ", first, 127, n))
            parts.append(data)
        frames = b"".join(parts)
        self._wire_bytes_out += len(frames)
        try:
            return self.stream.write(frames)
        except StreamClosedError:
            raise WebSocketClosedError() from None


class StartGate:
    """Admits at most ``per_iteration`` request starts per event-loop iteration, in order.

    Starting a request (prompt, cleaning pipeline, model call) is the costly synchronous part of
    serving it. Under a burst (200 sockets typing at once) every socket's newest request would
    start in the same iteration and hold the loop for hundreds of milliseconds; through the gate
    they start a few per iteration, and a request superseded while it waits costs nothing.
    With no queue (the normal case) a request starts at once."""

    def __init__(self, per_iteration: int = 4) -> None:
        self.per_iteration = per_iteration
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._admitted = 0
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None

    async def enter(self) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new event loop (tests): nothing of the old one carries over
            self._loop, self._waiters, self._admitted, self._scheduled = loop, collections.deque(), 0, False
        if not self._waiters and self._admitted < self.per_iteration:
            self._admit(loop)
            return
        fut: asyncio.Future[None] = loop.create_future()
        self._waiters.append(fut)
        self._schedule(loop)
        await fut

    def _admit(self, loop: asyncio.AbstractEventLoop) -> None:
        self._admitted += 1
        self._schedule(loop)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._next_iteration, loop)

    def _next_iteration(self, loop: asyncio.AbstractEventLoop) -> None:
        self._scheduled = False
        self._admitted = 0
        while self._waiters and self._admitted < self.per_iteration:
            fut = self._waiters.popleft()
            if not fut.done():  # a waiter cancelled meanwhile is skipped
                fut.set_result(None)
                self._admitted += 1
        if self._waiters or self._admitted:
            self._schedule(loop)


class WarmSlot:
    """At most one warm-up in flight in the server (the model server has one cache to warm), and
    none while a suggestion streams: a completion request cancels the warm-up in flight; a warm-up
    that comes while one streams is refused (``busy``); a newer warm-up supersedes the older. The
    canceller answers the cancelled warm-up (it may not have started)."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.owner: InlineCompletionWebSocket | None = None
        self.number = -1
        self._streaming = 0  # completion requests being served, on every socket
        self._loop: asyncio.AbstractEventLoop | None = None

    def _here(self) -> None:
        """A new event loop (tests): nothing of the old one carries over."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self.task, self.owner, self._streaming = loop, None, None, 0

    @property
    def streaming(self) -> int:
        self._here()
        return self._streaming

    def serving(self, delta: int) -> None:
        self._here()
        self._streaming = max(0, self._streaming + delta)

    def hold(self, task: asyncio.Task[None], owner: InlineCompletionWebSocket, number: int) -> None:
        self.cancel()
        self.task, self.owner, self.number = task, owner, number

    def release(self, task: asyncio.Task[None] | None) -> None:
        if task is not None and self.task is task:
            self.task, self.owner = None, None

    def cancel(self) -> None:
        self._here()
        task, owner = self.task, self.owner
        self.task, self.owner = None, None
        if task is not None and not task.done():
            task.cancel()
            if owner is not None:
                owner.send(WarmReply(reply_to=self.number, warmed=False, reason="superseded"), defer=True)


START_GATE = StartGate()
WARM_SLOT = WarmSlot()
# Incoming messages (parse, validate, supersede) go through a wider gate of their own: a burst
# from hundreds of sockets is handled over several loop iterations, each socket's in order
# (tornado reads a socket's next frame only when on_message is done with the previous one).
MESSAGE_GATE = StartGate(per_iteration=16)


def _retrieve(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled():
        fut.exception()  # a socket closed under a write is not an error to log


_SENTINEL = 987_654_321_987


@functools.lru_cache(maxsize=4)
def _stopped_template(why: str) -> bytes:
    title = "Request superseded" if why == "superseded" else "Request cancelled"
    info = ErrorInfo(type=why, title=title, message=f"Request {_SENTINEL} was {why}.")
    return ErrorReply(reply_to=_SENTINEL, error=info).model_dump_json(exclude_none=False).encode()


def _stopped_reply(number: int, why: str) -> bytes:
    """The answer to a superseded or cancelled request (the same bytes as the :class:`ErrorReply`,
    without building and serialising a model for each of the many a typing burst makes)."""
    return _stopped_template(why).replace(b"%d" % _SENTINEL, b"%d" % number)


class _Held:
    """Stream chunks of one request merged while the client is behind."""

    def __init__(self, chunk: InlineCompletionStreamChunk) -> None:
        self.chunk = chunk
        self.parts = [chunk.response.insertText]

    def merge(self, chunk: InlineCompletionStreamChunk) -> None:
        if chunk.delta:
            self.parts.append(chunk.response.insertText)
        else:
            self.parts = [chunk.response.insertText]
        self.chunk = chunk

    def message(self) -> InlineCompletionStreamChunk:
        self.chunk.response.insertText = "".join(self.parts)
        return self.chunk


class InlineCompletionWebSocket(WebSocketMixin, WebSocketHandler, ExtensionHandlerMixin, JupyterHandler):
    auth_resource = AUTH_RESOURCE

    @property
    def completion_handler(self) -> BaseInlineCompletionHandler:
        handler = cast("CodeCompleteApp", self.extensionapp).completion_handler
        assert handler is not None  # made when the extension loads, before any request
        return handler

    @property
    def usage_store(self) -> Any:
        """The usage store, or None while c.CodeCompleteApp.record_usage is off."""
        return getattr(self.extensionapp, "usage_store", None)

    @property
    def max_message_bytes(self) -> int:
        return int(cast("CodeCompleteApp", self.extensionapp).max_message_bytes)

    @property
    def max_queued_bytes(self) -> int:
        return int(getattr(self.extensionapp, "max_queued_bytes", 4 * 1024 * 1024))

    def get_websocket_protocol(self) -> Any:
        protocol = super().get_websocket_protocol()
        if type(protocol) is WebSocketProtocol13:
            protocol.__class__ = _Protocol
        return protocol

    @property
    def max_message_size(self) -> int:  # tornado's hard limit: above ours, so we can answer with an error
        return max(4 * self.max_message_bytes, 64 * 1024 * 1024)

    async def pre_get(self) -> None:
        user = self.current_user
        allowed = await ensure_async(self.authorizer.is_authorized(self, user, "execute", AUTH_RESOURCE))
        if not allowed:
            raise web.HTTPError(403)

    @ws_authenticated
    async def get(self, *args: Any, **kwargs: Any) -> None:
        await self.pre_get()
        res = super().get(*args, **kwargs)
        if res is not None:
            await res

    def open(self, *args: Any, **kwargs: Any) -> None:
        super().open(*args, **kwargs)
        # Stream chunks are small and latency-bound: without TCP_NODELAY, Nagle's algorithm holds
        # each one until the previous is acknowledged (+20 ms to the first chunk, measured).
        self.set_nodelay(True)
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.protocol_version = 1
        self._queued = 0  # bytes handed to tornado (or waiting in the outbox), not yet written
        self._held: dict[int, _Held] = {}
        self._outbox: list[bytes] = []  # deferred messages, written with the next one
        self._flush_timer: asyncio.TimerHandle | None = None
        self._usage_writes: set[asyncio.Task[int]] = set()
        self._warm_task: asyncio.Task[None] | None = None
        handler = self.completion_handler
        hello = HelloMessage(
            model=handler.model_info(None),
            max_message_bytes=self.max_message_bytes,
            features=(list(handler.features) or ["edit_prediction"]) if handler.supports_edits else [],
            warm=handler.warms(None),
            usage=self.usage_store is not None,
        )
        self.send(hello)

    def send(self, message: BaseModel, *, defer: bool = False) -> bool:
        """Queue one message; False when the socket is closed (quietly: nothing is raised or logged).

        ``defer``: no one waits for it; it may wait up to :data:`DEFER_S` for the next message."""
        return self.send_payload(message.model_dump_json(exclude_none=False).encode(), defer=defer)

    def send_payload(self, payload: bytes, *, defer: bool = False) -> bool:
        """:meth:`send` for a message already serialised (UTF-8 JSON)."""
        connection = self.ws_connection
        if connection is None or connection.is_closing():
            return False
        self._outbox.append(payload)
        self._queued += len(payload)
        if not defer:
            return self._flush()
        if self._flush_timer is None:
            self._flush_timer = asyncio.get_running_loop().call_later(DEFER_S, self._flush)
        return True

    def _flush(self) -> bool:
        """Write the outbox: every message in one write. False when the socket is closed."""
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        messages, self._outbox = self._outbox, []
        if not messages:
            return True
        size = sum(len(m) for m in messages)
        connection = self.ws_connection
        try:
            if connection is None:
                raise WebSocketClosedError()
            if isinstance(connection, _Protocol):
                fut: asyncio.Future[None] = connection.write_texts(messages)
            else:
                for message in messages[:-1]:
                    self.write_message(message).add_done_callback(_retrieve)
                fut = self.write_message(messages[-1])
        except WebSocketClosedError:
            self._queued -= size
            return False
        fut.add_done_callback(functools.partial(self._written, size=size))
        return True

    def _written(self, fut: asyncio.Future[None], size: int) -> None:
        self._queued -= size
        if not fut.cancelled():
            fut.exception()  # retrieved: a socket closed under a write is not an error to log
        if self._held and self._queued <= COALESCE_BYTES:
            held, self._held = self._held, {}
            for item in held.values():
                self.send(item.message())

    def offer(self, chunk: InlineCompletionStreamChunk) -> bool:
        """Send a stream chunk, or merge it with the unsent ones while the client is behind.

        False when the client is so far behind that the request must end."""
        number = chunk.reply_to
        held = self._held.pop(number, None)
        if held is not None:
            held.merge(chunk)
        else:
            held = _Held(chunk)
        if self._queued > self.max_queued_bytes:
            return False
        if not chunk.done and self._queued > COALESCE_BYTES:
            self._held[number] = held
            return True
        self.send(held.message())
        return True

    def too_slow(self, number: int) -> None:
        self._held.pop(number, None)
        if self._queued > 2 * self.max_queued_bytes:
            self.log.warning("codecomplete: closing a socket whose client does not read")
            self.close(1008, "The client does not read its messages.")
            return
        self.reply_error(
            number,
            "slow_client",
            "The client is not reading",
            f"Request {number} was ended: over {self.max_queued_bytes} bytes wait for the client "
            "(c.CodeCompleteApp.max_queued_bytes).",
        )

    def reply_error(self, number: int, type: str, title: str, message: str) -> None:
        self.send(ErrorReply(reply_to=number, error=ErrorInfo(type=type, title=title, message=message)))

    async def on_message(self, message: str | bytes) -> None:
        await MESSAGE_GATE.enter()
        if self.ws_connection is None or self.ws_connection.is_closing():
            return  # closed while the message waited
        if isinstance(message, bytes):
            self.reply_error(-1, "bad_message", "Binary frames are not supported", "Send JSON text frames.")
            return
        size = len(message.encode("utf-8", "surrogatepass"))
        if size > self.max_message_bytes:
            self.reply_error(
                -1,
                "message_too_large",
                "Request too large",
                f"The message has {size} bytes; the limit is {self.max_message_bytes} bytes "
                "(c.CodeCompleteApp.max_message_bytes).",
            )
            return
        try:
            data = json.loads(message)
        except json.JSONDecodeError as exc:
            self.reply_error(-1, "bad_json", "Malformed JSON", f"The message is not valid JSON: {exc}")
            return
        except RecursionError:
            self.reply_error(number_hint(message), "bad_json", "Malformed JSON", too_deep_message())
            return
        if nesting_depth(data) > MAX_DEPTH:
            self.reply_error(request_number(data), "bad_request", "Invalid request", too_deep_message())
            return
        try:
            msg = client_message_adapter.validate_python(data, strict=True)
        except ValidationError as exc:
            self.reply_error(request_number(data), "bad_request", "Invalid request", validation_message(exc))
            return
        if isinstance(msg, ClientHello):
            self.negotiate(msg.protocol)
            return
        if isinstance(msg, WarmRequest):
            self.start_warm(msg)
            return
        if isinstance(msg, UsageMessage):
            self.record_usage(msg)
            return
        if isinstance(msg, CancelRequest):
            if not self.cancel(msg.number, "cancelled"):
                self.reply_error(
                    msg.number,
                    "not_running",
                    "Nothing to cancel",
                    f"Request {msg.number} is not running (finished, cancelled, or never sent).",
                )
            return
        WARM_SLOT.cancel()  # a suggestion is asked for: no warm-up beside it
        for number in [n for n in self._tasks if n < msg.number]:
            self.cancel(number, "superseded")
        if msg.number in self._tasks:
            self.reply_error(
                msg.number, "duplicate_number", "Duplicate request number", "Number already in use."
            )
            return
        task = asyncio.get_running_loop().create_task(self.serve(msg), name=f"codecomplete:{msg.number}")
        self._tasks[msg.number] = task
        task.add_done_callback(functools.partial(self._forget, msg.number))

    def record_usage(self, msg: UsageMessage) -> None:
        """Hand usage events to the store (written on its own thread; no answer is sent)."""
        store = self.usage_store
        if store is None:
            self.reply_error(
                -1,
                "usage_off",
                "Usage is not recorded",
                "This server does not record usage events (c.CodeCompleteApp.record_usage is False).",
            )
            return
        task = asyncio.get_running_loop().create_task(store.record(msg.events), name="codecomplete:usage")
        self._usage_writes.add(task)
        task.add_done_callback(self._usage_written)

    def _usage_written(self, task: asyncio.Task[int]) -> None:
        self._usage_writes.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.warning("codecomplete: usage events not recorded", exc_info=task.exception())

    def _forget(self, number: int, task: asyncio.Task[None]) -> None:
        if self._tasks.get(number) is task:
            del self._tasks[number]
        if not task.cancelled() and task.exception() is not None:
            self.log.error("codecomplete task #%s crashed", number, exc_info=task.exception())

    def negotiate(self, wanted: int) -> None:
        """The client's hello: use the newest version both sides speak (at most ``wanted``)."""
        usable = [v for v in PROTOCOL_VERSIONS if v <= wanted]
        self.protocol_version = max(usable) if usable else 1

    def cancel(self, number: int, why: str) -> bool:
        """Stop request ``number`` and answer it; False when it was not running."""
        task = self._tasks.pop(number, None)
        self._held.pop(number, None)
        if task is None or task.done():
            return False
        task.cancel()
        # no one waits for this answer: it leaves with the socket's next message
        self.send_payload(_stopped_reply(number, why), defer=True)
        return True

    def start_warm(self, request: WarmRequest) -> None:
        """A warm-up (protocol 3): run it in the one warm slot, or say why not."""
        number = request.number

        def refuse(reason: str) -> None:
            self.send(WarmReply(reply_to=number, warmed=False, reason=reason))  # type: ignore[arg-type]

        if self.protocol_version < 3:
            return refuse("protocol")
        if not self.completion_handler.warms(request):
            return refuse("off")
        if WARM_SLOT.streaming:
            return refuse("busy")
        task = asyncio.get_running_loop().create_task(self.warm(request), name=f"codecomplete:warm:{number}")
        WARM_SLOT.hold(task, self, number)
        self._warm_task = task

    async def warm(self, request: WarmRequest) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            await self.completion_handler.warm(request)
        except asyncio.CancelledError:
            return  # the canceller has answered
        except Exception as exc:
            self.log.debug("codecomplete warm-up #%s failed: %s", request.number, exc)
            self.send(WarmReply(reply_to=request.number, warmed=False, reason="failed"), defer=True)
            return
        finally:
            WARM_SLOT.release(asyncio.current_task())
        ms = (loop.time() - started) * 1000
        self.send(WarmReply(reply_to=request.number, warmed=True, ms=round(ms, 1)), defer=True)

    async def serve(self, request: InlineCompletionRequest | EditPredictionRequest) -> None:
        WARM_SLOT.serving(+1)
        try:
            await self._serve(request)
        finally:
            WARM_SLOT.serving(-1)

    async def _serve(self, request: InlineCompletionRequest | EditPredictionRequest) -> None:
        handler = self.completion_handler
        try:
            await START_GATE.enter()
            if isinstance(request, EditPredictionRequest):
                self.send(await handler.handle_edit_request(request))
            elif request.stream:
                self.send(
                    InlineCompletionReply(
                        reply_to=request.number,
                        list=InlineCompletionList(
                            items=[
                                InlineCompletionItem(
                                    insertText="", isIncomplete=True, token=str(request.number)
                                )
                            ]
                        ),
                        model=handler.model_info(request),
                    )
                )
                stream = (
                    handler.handle_stream_request(request, delta=True)
                    if self.protocol_version >= 2
                    else handler.handle_stream_request(request)
                )
                async with contextlib.aclosing(stream) as chunks:
                    async for chunk in chunks:
                        if not self.offer(chunk):
                            self.too_slow(request.number)
                            return  # closing the stream closes the model's
            else:
                self.send(await handler.handle_request(request))
        except asyncio.CancelledError:
            return  # the canceller has already answered
        except Exception as exc:  # a handler that broke its contract: still answer
            self.log.exception("codecomplete #%s: completion handler failed", request.number)
            self.send(ErrorReply(reply_to=request.number, error=handler.error_info(exc)))

    def on_close(self) -> None:
        super().on_close()
        # jupyter_server's keep-alive ping stops itself only at its next tick (30 s by default):
        # until then the loop's timer keeps this closed handler and all it holds alive (measured:
        # 200 closed sockets, ~12,000 objects, which every full garbage collection walks).
        if self.ping_callback is not None:
            self.ping_callback.stop()
            self.ping_callback = None
        if getattr(self, "_flush_timer", None) is not None:
            self._flush_timer.cancel()  # type: ignore[union-attr]  # checked just above
            self._flush_timer = None
        self._outbox = []
        warm = getattr(self, "_warm_task", None)
        if warm is not None and WARM_SLOT.task is warm:
            WARM_SLOT.cancel()  # no one waits for this socket's warm-up (the answer is dropped)
        for task in list(getattr(self, "_tasks", {}).values()):
            task.cancel()
        self._tasks = {}
        self._held = {}
