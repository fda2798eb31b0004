"""The inline completion websocket, ``api/codecomplete/inline``: parse, authorize, dispatch, write.

One socket per browser tab. Requests are numbered; each runs as a tracked task. A newer
completion request supersedes (cancels) the older ones on the same socket, an explicit
``cancel`` stops one, and closing the socket stops all: cancelling the task closes the upstream
HTTP stream. Every failure becomes a reply carrying the request number; the socket stays open.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from jupyter_server.extension.handler import ExtensionHandlerMixin
from pydantic import BaseModel, ValidationError
from tornado import web
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from ..completion import BaseInlineCompletionHandler
from ..protocol import (
    CancelRequest,
    ErrorInfo,
    ErrorReply,
    HelloMessage,
    InlineCompletionItem,
    InlineCompletionList,
    InlineCompletionReply,
    InlineCompletionRequest,
    client_message_adapter,
)

AUTH_RESOURCE = "codecomplete"


def validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "message"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def request_number(data: Any) -> int:
    """The request number of a message that failed validation, or -1."""
    if isinstance(data, dict):
        n = data.get("number")
        if isinstance(n, int) and not isinstance(n, bool) and n >= 0:
            return n
    return -1


class InlineCompletionWebSocket(WebSocketMixin, WebSocketHandler, ExtensionHandlerMixin, JupyterHandler):  # type: ignore[misc]
    auth_resource = AUTH_RESOURCE

    @property
    def completion_handler(self) -> BaseInlineCompletionHandler:
        return self.extensionapp.completion_handler  # type: ignore[attr-defined,no-any-return]

    @property
    def max_message_bytes(self) -> int:
        return int(self.extensionapp.max_message_bytes)  # type: ignore[attr-defined]

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

    def open(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().open(*args, **kwargs)
        # Stream chunks are small and latency-bound: without TCP_NODELAY, Nagle's algorithm holds
        # each one until the previous is acknowledged (+20 ms to the first chunk, measured).
        self.set_nodelay(True)
        self._tasks: dict[int, asyncio.Task[None]] = {}
        hello = HelloMessage(
            model=self.completion_handler.model_info(None), max_message_bytes=self.max_message_bytes
        )
        self.send(hello)

    def send(self, message: BaseModel) -> None:
        try:
            self.write_message(message.model_dump_json(exclude_none=False))
        except WebSocketClosedError:
            pass

    def reply_error(self, number: int, type: str, title: str, message: str) -> None:
        self.send(ErrorReply(reply_to=number, error=ErrorInfo(type=type, title=title, message=message)))

    async def on_message(self, message: str | bytes) -> None:
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
        try:
            msg = client_message_adapter.validate_python(data, strict=True)
        except ValidationError as exc:
            self.reply_error(request_number(data), "bad_request", "Invalid request", validation_message(exc))
            return
        if isinstance(msg, CancelRequest):
            self.cancel(msg.number, "cancelled")
            return
        for number in [n for n in self._tasks if n < msg.number]:
            self.cancel(number, "superseded")
        if msg.number in self._tasks:
            self.reply_error(
                msg.number, "duplicate_number", "Duplicate request number", "Number already in use."
            )
            return
        task = asyncio.get_running_loop().create_task(self.serve(msg), name=f"codecomplete:{msg.number}")
        self._tasks[msg.number] = task
        task.add_done_callback(lambda t, n=msg.number: self._forget(n, t))

    def _forget(self, number: int, task: asyncio.Task[None]) -> None:
        if self._tasks.get(number) is task:
            del self._tasks[number]
        if not task.cancelled() and task.exception() is not None:
            self.log.error("codecomplete task #%s crashed", number, exc_info=task.exception())

    def cancel(self, number: int, why: str) -> None:
        task = self._tasks.pop(number, None)
        if task is None or task.done():
            return
        task.cancel()
        title = "Request superseded" if why == "superseded" else "Request cancelled"
        self.reply_error(number, why, title, f"Request {number} was {why}.")

    async def serve(self, request: InlineCompletionRequest) -> None:
        handler = self.completion_handler
        try:
            if request.stream:
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
                async for chunk in handler.handle_stream_request(request):
                    self.send(chunk)
            else:
                self.send(await handler.handle_request(request))
        except asyncio.CancelledError:
            return  # the canceller has already answered
        except Exception as exc:  # a handler that broke its contract: still answer
            self.log.exception("codecomplete #%s: completion handler failed", request.number)
            self.send(ErrorReply(reply_to=request.number, error=handler.error_info(exc)))

    def on_close(self) -> None:
        super().on_close()
        for task in list(getattr(self, "_tasks", {}).values()):
            task.cancel()
        self._tasks = {}
