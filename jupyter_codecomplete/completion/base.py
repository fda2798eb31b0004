"""The completion handler interface: what every pluggable completion handler provides.

A completion handler turns one :class:`InlineCompletionRequest` into a suggestion. Subclasses
implement :meth:`BaseInlineCompletionHandler.suggest` (an async iterator of *deltas* of the
cleaned suggestion) and may override :meth:`model_info`. The base class gives them the rest:
non-streamed and streamed replies, the error envelope (every failure becomes an
:class:`ErrorInfo`, with secrets scrubbed), deadlines, and timing. Cancellation is the caller's
``Task.cancel()``: it propagates into ``suggest`` and must close whatever upstream stream is open.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from ..protocol import (
    ErrorInfo,
    InlineCompletionItem,
    InlineCompletionList,
    InlineCompletionReply,
    InlineCompletionRequest,
    InlineCompletionStreamChunk,
    ServingModel,
)


class CompletionError(Exception):
    """A failure with a stable ``type`` and a message for people."""

    def __init__(self, type: str, title: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.type = type
        self.title = title
        self.message = message
        self.retry_after = retry_after


def scrub(text: str, secrets: Sequence[str]) -> str:
    """Replace every secret in ``text`` with ``***``."""
    for s in secrets:
        if s:
            text = text.replace(s, "***")
    return text


def _retry_after(headers: Any) -> float | None:
    try:
        value = headers.get("retry-after") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def error_info_from(exc: BaseException, secrets: Sequence[str] = ()) -> ErrorInfo:
    """Map any exception to the error envelope sent to the client."""
    # Imported here: optional at import time for handlers that don't use them.
    import httpx
    import openai

    from ..backends.base import BackendError
    from ..prompting import PromptError

    if isinstance(exc, CompletionError):
        info = ErrorInfo(type=exc.type, title=exc.title, message=exc.message, retry_after=exc.retry_after)
    elif isinstance(exc, PromptError):
        info = ErrorInfo(type=exc.type, title="Cannot build the prompt", message=str(exc))
    elif isinstance(exc, BackendError):
        info = ErrorInfo(
            type=exc.type, title="Model backend error", message=str(exc), retry_after=exc.retry_after
        )
    elif isinstance(exc, TimeoutError | openai.APITimeoutError | httpx.TimeoutException):
        info = ErrorInfo(type="timeout", title="The model took too long", message=str(exc) or "Timed out.")
    elif isinstance(
        exc, openai.APIConnectionError | httpx.ConnectError | httpx.RemoteProtocolError | OSError
    ):
        cause = exc.__cause__ or exc
        info = ErrorInfo(
            type="backend_unreachable",
            title="The model server cannot be reached",
            message=f"{exc} ({type(cause).__name__}: {cause})" if cause is not exc else str(exc),
        )
    elif isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        kind = (
            "rate_limited" if status == 429 else "backend_unavailable" if status == 503 else "backend_error"
        )
        info = ErrorInfo(
            type=kind,
            title=f"The model server answered HTTP {status}",
            message=str(exc.message),
            retry_after=_retry_after(exc.response.headers),
        )
    elif isinstance(exc, ValueError) and "No generation chunks" in str(exc):
        info = ErrorInfo(
            type="backend_error",
            title="The model server returned no completion",
            message="The response had no completion text (an empty stream, or an error body with HTTP 200).",
        )
    elif isinstance(exc, openai.APIError):
        info = ErrorInfo(type="backend_error", title="The model server reported an error", message=str(exc))
    elif isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
        info = ErrorInfo(
            type="rate_limited" if status == 429 else "backend_error",
            title=f"The model server answered HTTP {status}",
            message=str(exc),
            retry_after=_retry_after(exc.response.headers),
        )
    else:
        info = ErrorInfo(
            type="internal_error", title="Completion failed", message=f"{type(exc).__name__}: {exc}"
        )
    info.message = scrub(info.message, secrets)[:2000]
    info.title = scrub(info.title, secrets)
    return info


if sys.version_info >= (3, 11):

    async def _next_within(source: AsyncIterator[str], wait: float | None) -> str:
        # A timeout scope on the current task: unlike wait_for (3.11), no new task per item.
        async with asyncio.timeout(wait):
            return await source.__anext__()

else:  # pragma: no cover - Python 3.10

    async def _next_within(source: AsyncIterator[str], wait: float | None) -> str:
        return await asyncio.wait_for(source.__anext__(), wait)


async def with_deadlines(
    source: AsyncIterator[str], first: float | None, total: float | None
) -> AsyncIterator[str]:
    """Re-yield ``source``, raising TimeoutError if the first item or the whole stream is late."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    got_first = False
    try:
        while True:
            limits = []
            limit = total if got_first or first is None else first
            if total is not None:
                limits.append(total - (loop.time() - start))
            if first is not None and not got_first:
                limits.append(first - (loop.time() - start))
            wait = min(limits) if limits else None
            if wait is not None and wait <= 0:
                raise TimeoutError("The model did not answer within the configured timeout.")
            try:
                item = await _next_within(source, wait)
            except StopAsyncIteration:
                return
            except asyncio.TimeoutError:
                what = "first token" if not got_first else "completion"
                raise TimeoutError(f"No {what} within the configured timeout of {limit:g} s.") from None
            got_first = True
            yield item
    finally:
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            await aclose()


class BaseInlineCompletionHandler:
    """Interface, error envelope, cancellation and timing for inline completion handlers.

    Subclass and implement :meth:`suggest`. Register a subclass with
    ``c.CodeCompleteApp.completion_handler_class`` or the ``jupyter_codecomplete.completion_handlers``
    entry point group.
    """

    def __init__(self, *, log: logging.Logger | None = None, settings: dict[str, Any] | None = None) -> None:
        self.log = log or logging.getLogger("jupyter_codecomplete")
        self.settings = settings or {}

    # -- to implement ---------------------------------------------------------------------------
    def suggest(self, request: InlineCompletionRequest, notes: list[str]) -> AsyncIterator[str]:
        """Yield deltas of the cleaned suggestion. Append human notes to ``notes``."""
        raise NotImplementedError

    def model_info(self, request: InlineCompletionRequest | None = None) -> ServingModel | None:
        """The model that serves ``request`` (or serves by default when None)."""
        return None

    def secrets(self) -> list[str]:
        """Secret strings to scrub from every error message (API keys, auth headers)."""
        return []

    async def close(self) -> None:
        """Release resources (HTTP clients, models) when the server stops."""

    # -- provided -------------------------------------------------------------------------------
    def error_info(self, exc: BaseException) -> ErrorInfo:
        return error_info_from(exc, self.secrets())

    def _log_done(self, request: InlineCompletionRequest, start: float, first: float | None, n: int) -> None:
        total = (time.perf_counter() - start) * 1000
        ttfc = f"{(first - start) * 1000:.1f} ms" if first is not None else "-"
        self.log.debug(
            "codecomplete #%s %s: first chunk %s, total %.1f ms, %d chars",
            request.number,
            request.path or "",
            ttfc,
            total,
            n,
        )

    async def handle_request(self, request: InlineCompletionRequest) -> InlineCompletionReply:
        notes: list[str] = []
        start = time.perf_counter()
        first: float | None = None
        parts: list[str] = []
        try:
            async for delta in self.suggest(request, notes):
                if first is None:
                    first = time.perf_counter()
                parts.append(delta)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.log.warning("codecomplete #%s failed: %s", request.number, self.error_info(exc).message)
            return InlineCompletionReply(
                reply_to=request.number,
                list=InlineCompletionList(items=[]),
                model=self.model_info(request),
                notes=notes,
                error=self.error_info(exc),
            )
        text = "".join(parts)
        self._log_done(request, start, first, len(text))
        items = [InlineCompletionItem(insertText=text)] if text else []
        return InlineCompletionReply(
            reply_to=request.number,
            list=InlineCompletionList(items=items),
            model=self.model_info(request),
            notes=notes,
        )

    async def handle_stream_request(
        self, request: InlineCompletionRequest
    ) -> AsyncIterator[InlineCompletionStreamChunk]:
        notes: list[str] = []
        start = time.perf_counter()
        first: float | None = None
        text = ""
        model = self.model_info(request)
        try:
            async for delta in self.suggest(request, notes):
                if not delta:
                    continue
                if first is None:
                    first = time.perf_counter()
                text += delta
                yield InlineCompletionStreamChunk(
                    reply_to=request.number,
                    response=InlineCompletionItem(insertText=text, isIncomplete=True),
                    done=False,
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            info = self.error_info(exc)
            self.log.warning("codecomplete #%s failed: %s", request.number, info.message)
            yield InlineCompletionStreamChunk(
                reply_to=request.number,
                response=InlineCompletionItem(insertText=text, isIncomplete=False),
                done=True,
                model=model,
                notes=notes,
                error=info,
            )
            return
        self._log_done(request, start, first, len(text))
        yield InlineCompletionStreamChunk(
            reply_to=request.number,
            response=InlineCompletionItem(insertText=text, isIncomplete=False),
            done=True,
            model=model,
            notes=notes,
        )
