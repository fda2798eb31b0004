"""The one base of every REST route under ``api/codecomplete/``: authorize, read the body, answer errors.

A route is parse, authorize, call, write. :class:`CodeCompleteHandler` authorizes every request
before the route runs (resource ``codecomplete``, the action of the HTTP method, as jupyter_server's
``@authorized``), reads a body in one way (:meth:`~CodeCompleteHandler.json_object`,
:meth:`~CodeCompleteHandler.read`), and answers a :class:`Refusal` or a
:class:`~jupyter_codecomplete.errors.ModelServiceError` raised anywhere in the route with the
websocket's error envelope ``{"error": {"type", "title", "message", "retry_after"}}``.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from jupyter_core.utils import ensure_async
from jupyter_server.auth.utils import HTTP_METHOD_TO_AUTH_ACTION
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.extension.handler import ExtensionHandlerMixin
from pydantic import BaseModel, ValidationError
from tornado import web

from ..errors import (
    ModelServiceError,
    not_json_message,
    too_deep_message,
    too_large_message,
    validation_message,
)
from ..protocol import MAX_DEPTH, ErrorInfo, nesting_depth

if TYPE_CHECKING:
    from ..collector import FullCollections
    from ..completion import BaseInlineCompletionHandler
    from ..usage import UsageStore

AUTH_RESOURCE = "codecomplete"

Body = TypeVar("Body", bound=BaseModel)


class ExtensionSettings(Protocol):
    """What the handlers read of the server extension (its settings and what it built at start)."""

    completion_handler: BaseInlineCompletionHandler | None
    max_message_bytes: int
    max_queued_bytes: int
    usage_store: UsageStore | None  # None while c.CodeCompleteApp.record_usage is off
    lag_monitor: Any  # a stats.LoopLagMonitor while c.CodeCompleteApp.monitor_event_loop is on
    full_collections: FullCollections | None


def settings_of(handler: ExtensionHandlerMixin) -> ExtensionSettings:
    return cast(ExtensionSettings, handler.extensionapp)


async def is_authorized(handler: JupyterHandler, action: str) -> bool:
    """Whether the request's user may ``action`` on :data:`AUTH_RESOURCE` (False: no user)."""
    user = handler.current_user
    if not user:
        return False
    return bool(await ensure_async(handler.authorizer.is_authorized(handler, user, action, AUTH_RESOURCE)))


class Refusal(Exception):
    """An error reply: raised anywhere in a route, written by :class:`CodeCompleteHandler`."""

    def __init__(self, status: int, info: ErrorInfo) -> None:
        super().__init__(info.message)
        self.status = status
        self.info = info


def refusal(status: int, type: str, message: str, title: str | None = None) -> Refusal:
    """A :class:`Refusal`; the title is the status's phrase when none is given."""
    return Refusal(status, ErrorInfo(type=type, title=title or HTTPStatus(status).phrase, message=message))


def _as_refusal(exc: BaseException | None) -> Refusal | None:
    if isinstance(exc, Refusal):
        return exc
    if isinstance(exc, ModelServiceError):
        return refusal(exc.status, exc.type, exc.message)
    return None


class CodeCompleteHandler(ExtensionHandlerMixin, APIHandler):
    """The base of every REST route of the extension."""

    auth_resource = AUTH_RESOURCE

    @property
    def app(self) -> ExtensionSettings:
        return settings_of(self)

    @property
    def completion_handler(self) -> BaseInlineCompletionHandler:
        handler = self.app.completion_handler
        assert handler is not None  # made when the extension loads, before any request
        return handler

    async def prepare(self) -> None:  # type: ignore[override]  # jupyter_server's is async too
        await super().prepare()  # authentication (403 without a user), XSRF, CORS
        method = self.request.method or ""
        if method == "OPTIONS":  # a CORS preflight: jupyter_server answers it without a user
            return
        action = HTTP_METHOD_TO_AUTH_ACTION.get(method, "write")
        if not self.current_user:
            raise web.HTTPError(403)
        if not await is_authorized(self, action):
            message = f"User is not authorized to {action} on resource: {AUTH_RESOURCE}."
            raise web.HTTPError(403, log_message=message)

    # -- errors ---------------------------------------------------------------------------------

    def send_error_info(self, status: int, info: ErrorInfo) -> None:
        """An error reply with the websocket's error envelope (and ``Retry-After`` when known)."""
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        if info.retry_after is not None:
            self.set_header("Retry-After", f"{info.retry_after:g}")
        self.finish(json.dumps({"error": info.model_dump()}))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        refused = _as_refusal(kwargs.get("exc_info", (None, None, None))[1])
        if refused is None:
            super().write_error(status_code, **kwargs)
            return
        self.set_cors_headers()  # tornado cleared the headers before the error reply
        self.send_error_info(refused.status, refused.info)

    def log_exception(
        self,
        typ: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if _as_refusal(value) is None:  # a refusal is an answer, not a failure to log
            super().log_exception(typ, value, tb)

    # -- the body -------------------------------------------------------------------------------

    def json_object(self) -> dict[str, Any]:
        """The one JSON body reader of every REST route: at most ``max_message_bytes`` (the
        websocket's limit, 413 above), UTF-8, JSON, at most :data:`MAX_DEPTH` levels deep, an
        object (400 otherwise, the websocket's messages). Raises :class:`Refusal`."""
        limit = int(self.app.max_message_bytes)
        raw = self.request.body or b""
        if len(raw) > limit:
            message = too_large_message("body", len(raw), limit)
            raise refusal(413, "body_too_large", message, title="Request too large")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"The body is not valid UTF-8: {exc}"
            raise refusal(400, "bad_encoding", message, title="Malformed JSON") from None
        try:
            data = json.loads(text or "{}")
        except json.JSONDecodeError as exc:
            raise refusal(400, "bad_json", not_json_message("body", exc), title="Malformed JSON") from None
        except RecursionError:
            raise refusal(400, "bad_json", too_deep_message(MAX_DEPTH), title="Malformed JSON") from None
        if nesting_depth(data) > MAX_DEPTH:
            raise refusal(400, "bad_request", too_deep_message(MAX_DEPTH), title="Invalid request")
        if not isinstance(data, dict):
            raise refusal(400, "bad_request", "The body must be a JSON object.", title="Invalid request")
        return data

    def read(self, model: type[Body]) -> Body:
        """The body as ``model`` (:meth:`json_object`, then :meth:`validate`)."""
        return self.validate(model, self.json_object())

    def validate(self, model: type[Body], data: Any) -> Body:
        """``data`` (the body or a part of it) as ``model``; 400 naming the problem otherwise."""
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise refusal(400, "bad_request", validation_message(exc), title="Invalid request") from None
