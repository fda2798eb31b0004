"""The inline completion websocket, ``api/codecomplete/inline``: parse, authorize, dispatch, write.

One socket per browser tab. Requests are numbered; each runs as a tracked task. A newer
request supersedes (cancels) the older ones *of its own kind* on the same socket (a completion the
older completions, an edit prediction the older edit predictions: an automatic edit prediction and
the inline completion typed at the same time are both answered), an explicit ``cancel`` stops
one, and closing the socket stops all: cancelling the task closes the upstream HTTP stream.
Every failure becomes a reply carrying the request number; the socket stays open.

A client that speaks protocol 2 (it answers ``hello``) gets stream deltas. What leaves when, and
how much may wait for a slow client (``max_queued_bytes``: past it the request is ended, past twice
that the socket is closed), is the socket's :class:`~.outbox.Outbox`; when requests and warm-ups
start, :mod:`.scheduling`; the frames themselves (one write per flush, 1007 for a text frame that
is not UTF-8, 1009 for one over the limit), :mod:`.frames`. Writes to a closed socket are quiet.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from typing import Any

from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from jupyter_server.extension.handler import ExtensionHandlerMixin
from pydantic import BaseModel, ValidationError
from tornado import web
from tornado.websocket import WebSocketHandler

from ..backends import read_hold
from ..completion import BaseInlineCompletionHandler
from ..errors import not_json_message, too_deep_message, too_large_message, validation_message
from ..protocol import (
    MAX_DEPTH,
    PROTOCOL_VERSIONS,
    CancelRequest,
    ClientHello,
    ClientMessage,
    EditPredictionRequest,
    ErrorInfo,
    ErrorReply,
    HelloMessage,
    InlineCompletionItem,
    InlineCompletionList,
    InlineCompletionReply,
    InlineCompletionRequest,
    UsageMessage,
    WarmReply,
    WarmRequest,
    client_message_adapter,
    nesting_depth,
    number_hint,
)
from ..usage import UsageStore
from . import frames
from .base import AUTH_RESOURCE, is_authorized, settings_of
from .outbox import Outbox, payload, stopped_reply
from .scheduling import MESSAGE_GATE, START_GATE, WARM_SLOT

# How long a warm-up waits before it asks the model (see InlineCompletionWebSocket.warm).
WARM_DELAY_S = 0.005


class BadMessage(Exception):
    """A message refused before it is dispatched: the error reply's fields."""

    def __init__(self, number: int, type: str, title: str, message: str) -> None:
        super().__init__(message)
        self.number, self.type, self.title, self.message = number, type, title, message


def request_number(data: Any) -> int:
    """The request number of a message that failed validation, or -1."""
    if isinstance(data, dict):
        n = data.get("number")
        if isinstance(n, int) and not isinstance(n, bool) and n >= 0:
            return n
    return -1


def read_message(message: str | bytes, limit: int) -> ClientMessage:
    """A client's frame as its message: a text frame of at most ``limit`` bytes, JSON, at most
    :data:`MAX_DEPTH` levels deep, one of the protocol's messages. Raises :class:`BadMessage`."""
    if isinstance(message, bytes):
        raise BadMessage(-1, "bad_message", "Binary frames are not supported", "Send JSON text frames.")
    size = len(message.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise BadMessage(
            -1, "message_too_large", "Request too large", too_large_message("message", size, limit)
        )
    try:
        data = json.loads(message)
    except json.JSONDecodeError as exc:
        raise BadMessage(-1, "bad_json", "Malformed JSON", not_json_message("message", exc)) from None
    except RecursionError:
        raise BadMessage(
            number_hint(message), "bad_json", "Malformed JSON", too_deep_message(MAX_DEPTH)
        ) from None
    if nesting_depth(data) > MAX_DEPTH:
        raise BadMessage(request_number(data), "bad_request", "Invalid request", too_deep_message(MAX_DEPTH))
    try:
        return client_message_adapter.validate_python(data, strict=True)
    except ValidationError as exc:
        raise BadMessage(
            request_number(data), "bad_request", "Invalid request", validation_message(exc)
        ) from None


class InlineCompletionWebSocket(WebSocketMixin, WebSocketHandler, ExtensionHandlerMixin, JupyterHandler):
    route = "inline"

    auth_resource = AUTH_RESOURCE

    @property
    def completion_handler(self) -> BaseInlineCompletionHandler:
        handler = settings_of(self).completion_handler
        assert handler is not None  # made when the extension loads, before any request
        return handler

    @property
    def usage_store(self) -> UsageStore | None:
        """The usage store, or None while c.CodeCompleteApp.record_usage is off."""
        return settings_of(self).usage_store

    @property
    def max_message_bytes(self) -> int:
        return int(settings_of(self).max_message_bytes)

    @property
    def max_queued_bytes(self) -> int:
        return int(settings_of(self).max_queued_bytes)

    def get_websocket_protocol(self) -> Any:
        return frames.adopt(super().get_websocket_protocol())

    @property
    def max_message_size(self) -> int:  # tornado's hard limit: above ours, so we can answer with an error
        return max(4 * self.max_message_bytes, 64 * 1024 * 1024)

    async def pre_get(self) -> None:
        if not await is_authorized(self, "execute"):
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
        # each running request's kind (its message type): a newer one supersedes only its own kind
        self._kinds: dict[int, str] = {}
        self.protocol_version = 1
        self._outbox = Outbox(functools.partial(frames.write_texts, self))
        self._usage_writes: set[asyncio.Task[int]] = set()
        self._warm_task: asyncio.Task[None] | None = None
        handler = self.completion_handler
        hello = HelloMessage(
            model=handler.model_info(None),
            max_message_bytes=self.max_message_bytes,
            features=(list(handler.features) or ["edit_prediction"]) if handler.supports_edits else [],
            warm=handler.warms(None),
            warm_routes=handler.warm_routes(),
            usage=self.usage_store is not None,
        )
        self.send(hello)

    # -- writing ----------------------------------------------------------------------------------

    def send(self, message: BaseModel, *, defer: bool = False) -> bool:
        """Queue one message; False when the socket is closed (quietly: nothing is raised or logged).

        ``defer``: no one waits for it; it may wait for the socket's next message (the outbox's)."""
        return self.send_payload(payload(message), defer=defer)

    def send_payload(self, data: bytes, *, defer: bool = False) -> bool:
        """:meth:`send` for a message already serialised (UTF-8 JSON)."""
        connection = self.ws_connection
        if connection is None or connection.is_closing():
            return False
        return self._outbox.put(data, defer=defer)

    def reply_error(self, number: int, type: str, title: str, message: str) -> None:
        self.send(ErrorReply(reply_to=number, error=ErrorInfo(type=type, title=title, message=message)))

    def too_slow(self, number: int) -> None:
        self._outbox.forget(number)
        if self._outbox.queued > 2 * self.max_queued_bytes:
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

    # -- reading and dispatching ------------------------------------------------------------------

    async def on_message(self, message: str | bytes) -> None:
        await MESSAGE_GATE.enter()
        if self.ws_connection is None or self.ws_connection.is_closing():
            return  # closed while the message waited
        try:
            msg = read_message(message, self.max_message_bytes)
        except BadMessage as bad:
            self.reply_error(bad.number, bad.type, bad.title, bad.message)
            return
        if isinstance(msg, ClientHello):
            self.negotiate(msg.protocol)
        elif isinstance(msg, WarmRequest):
            self.start_warm(msg)
        elif isinstance(msg, UsageMessage):
            self.record_usage(msg)
        elif isinstance(msg, CancelRequest):
            if not self.cancel(msg.number, "cancelled"):
                self.reply_error(
                    msg.number,
                    "not_running",
                    "Nothing to cancel",
                    f"Request {msg.number} is not running (finished, cancelled, or never sent).",
                )
        else:
            self.start(msg)

    def start(self, msg: InlineCompletionRequest | EditPredictionRequest) -> None:
        """A suggestion is asked for: it supersedes the older requests of its kind and any warm-up."""
        WARM_SLOT.cancel()
        older = [n for n in self._tasks if n < msg.number and self._kinds.get(n) == msg.type]
        for number in older:
            self.cancel(number, "superseded")
        if msg.number in self._tasks:
            self.reply_error(
                msg.number, "duplicate_number", "Duplicate request number", "Number already in use."
            )
            return
        task = asyncio.get_running_loop().create_task(self.serve(msg), name=f"codecomplete:{msg.number}")
        self._tasks[msg.number] = task
        self._kinds[msg.number] = msg.type
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
            self._kinds.pop(number, None)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("codecomplete task #%s crashed", number, exc_info=task.exception())

    def negotiate(self, wanted: int) -> None:
        """The client's hello: use the newest version both sides speak (at most ``wanted``)."""
        usable = [v for v in PROTOCOL_VERSIONS if v <= wanted]
        self.protocol_version = max(usable) if usable else 1

    def cancel(self, number: int, why: str) -> bool:
        """Stop request ``number`` and answer it; False when it was not running."""
        task = self._tasks.pop(number, None)
        self._kinds.pop(number, None)
        self._outbox.forget(number)
        if task is None or task.done():
            return False
        task.cancel()
        # no one waits for this answer: it leaves with the socket's next message
        self.send_payload(stopped_reply(number, why), defer=True)
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
        if not self.completion_handler.spend_ahead(request):
            return refuse("capped")  # a shared model: this minute's warm-ups are spent
        task = asyncio.get_running_loop().create_task(self.warm(request), name=f"codecomplete:warm:{number}")
        superseded = WarmReply(reply_to=number, warmed=False, reason="superseded")
        WARM_SLOT.hold(task, functools.partial(self.send, superseded, defer=True))
        self._warm_task = task

    async def warm(self, request: WarmRequest) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            # A warm-up is speculative: a message already on its way (the rest of a burst, read in
            # the next loop turns) may supersede it, and then it must cost the model nothing. The
            # model's client writes its request in its first step when a pooled connection is free.
            await asyncio.sleep(WARM_DELAY_S)
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
                limit = self.max_queued_bytes  # once a request, not once a piece
                # the model's stream read at the pace its pieces leave; its socket not read
                # between (the end of the answer is seen when the next frame may leave)
                hold = functools.partial(self._outbox.read_hold, request.number)
                with read_hold(hold, pause=True):
                    async with contextlib.aclosing(stream) as chunks:
                        async for chunk in chunks:
                            if not self._outbox.offer(chunk, limit):
                                self.too_slow(request.number)
                                return  # closing the stream closes the model's
            else:
                self.send(await handler.handle_request(request))
        except asyncio.CancelledError:
            return  # the canceller has already answered
        except Exception as exc:  # a handler that broke its contract: still answer
            self.log.exception("codecomplete #%s: completion handler failed", request.number)
            self._outbox.forget(request.number)  # no paced piece after the error
            self.send(ErrorReply(reply_to=request.number, error=handler.error_info(exc)))

    def on_close(self) -> None:
        super().on_close()
        # jupyter_server's keep-alive ping stops itself only at its next tick (30 s by default):
        # until then the loop's timer keeps this closed handler and all it holds alive (measured:
        # 200 closed sockets, ~12,000 objects, which every full garbage collection walks).
        if self.ping_callback is not None:
            self.ping_callback.stop()
            self.ping_callback = None
        outbox: Outbox | None = getattr(self, "_outbox", None)
        if outbox is not None:
            outbox.close()
        warm = getattr(self, "_warm_task", None)
        if warm is not None and WARM_SLOT.task is warm:
            WARM_SLOT.cancel()  # no one waits for this socket's warm-up (the answer is dropped)
        for task in list(getattr(self, "_tasks", {}).values()):
            task.cancel()
        self._tasks = {}
        self._kinds = {}
