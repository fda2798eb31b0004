"""The completion handler interface: what every pluggable completion handler provides.

A completion handler turns one :class:`InlineCompletionRequest` into a suggestion. Subclasses
implement :meth:`BaseInlineCompletionHandler.suggest` (an async iterator of *deltas* of the
cleaned suggestion) and may override :meth:`model_info`. The base class gives them the rest:
non-streamed and streamed replies, the error envelope (every failure becomes an
:class:`ErrorInfo`, with secrets scrubbed), deadlines, timing, and the bounds every answer keeps
whatever the model sends: a maximum suggestion size (:class:`SuggestionLimit`), secrets scrubbed
from the suggestion itself (:class:`StreamScrubber`), and model text handed on in bounded pieces
with the event loop yielded between them (:func:`with_deadlines`). Cancellation is the caller's
``Task.cancel()``: it propagates into ``suggest`` and must close whatever upstream stream is open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any, Protocol

from ..errors import CompletionError as CompletionError  # re-exported: handlers raise it
from ..errors import StreamScrubber, as_error, clip, scrub
from ..pieces import Piece, tokens_in
from ..protocol import (
    EditPredictionReply,
    EditPredictionRequest,
    ErrorInfo,
    InlineCompletionItem,
    InlineCompletionList,
    InlineCompletionReply,
    InlineCompletionRequest,
    InlineCompletionStreamChunk,
    ServingModel,
)

# Defaults of c.CodeCompleteApp.max_suggestion_chars / max_suggestion_lines.
DEFAULT_MAX_SUGGESTION_CHARS = 16_000
DEFAULT_MAX_SUGGESTION_LINES = 400
# The model's raw text is read up to this many times the suggestion limit (cleaning may drop text).
RAW_TEXT_FACTOR = 4
# Model text is cleaned in pieces of at most this many characters, the event loop yielded between.
PIECE_CHARS = 4096


class SuggestionLimit:
    """Caps a suggestion at ``max_chars`` characters and ``max_lines`` lines.

    :meth:`take` returns what of a delta fits; once the limit is reached, ``reached`` is True and
    the caller ends the suggestion (closing the model stream) and adds :meth:`note` to the notes."""

    def __init__(self, max_chars: int, max_lines: int) -> None:
        self.max_chars = max(1, max_chars)
        self.max_lines = max(1, max_lines)
        self.chars = 0
        self.lines = 1
        self.reached = False

    def take(self, delta: str) -> str:
        if self.reached:
            return ""
        cut: int | None = None
        if self.chars + len(delta) > self.max_chars:
            cut = self.max_chars - self.chars
        newlines = delta.count("\n", 0, cut)
        if self.lines + newlines > self.max_lines:
            pos = -1
            for _ in range(self.max_lines - self.lines + 1):
                pos = delta.find("\n", pos + 1)
            cut = pos if cut is None else min(cut, pos)
        if cut is not None:
            delta = delta[:cut]
            self.reached = True
        self.chars += len(delta)
        self.lines += delta.count("\n")
        return delta

    def note(self) -> str:
        return (
            f"The suggestion was cut at its maximum size ({self.max_chars} characters or "
            f"{self.max_lines} lines: c.CodeCompleteApp.max_suggestion_chars / max_suggestion_lines)."
        )


def error_info_from(exc: BaseException, secrets: Sequence[str] = ()) -> ErrorInfo:
    """Map any exception to the error envelope sent to the client (:func:`errors.as_error`)."""
    err = as_error(exc, secrets)
    return ErrorInfo(
        type=err.type,
        title=scrub(err.title, secrets),
        message=clip(scrub(err.message, secrets)),
        retry_after=err.retry_after,
    )


if sys.version_info >= (3, 11):

    async def _next_within(source: AsyncIterator[str], wait: float | None) -> str:
        # A timeout scope on the current task: unlike wait_for (3.11), no new task per item.
        async with asyncio.timeout(wait):
            return await source.__anext__()

else:  # pragma: no cover - Python 3.10

    async def _next_within(source: AsyncIterator[str], wait: float | None) -> str:
        return await asyncio.wait_for(source.__anext__(), wait)


async def with_deadlines(
    source: AsyncIterator[str],
    first: float | None,
    total: float | None,
    *,
    max_chars: int | None = None,
    notes: list[str] | None = None,
    piece: int = PIECE_CHARS,
) -> AsyncIterator[str]:
    """Re-yield ``source``, raising TimeoutError if the first item or the whole stream is late.

    Bounds for what the model sends: an item longer than ``piece`` characters is re-yielded in
    pieces, with the event loop yielded between them (cleaning a 10 MB answer never holds the
    loop); after ``max_chars`` characters in all the stream ends (``source`` is closed) and a
    note says so."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    got_first = False
    seen = 0
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
            if max_chars is not None and seen + len(item) > max_chars:
                item = Piece(item[: max(0, max_chars - seen)], tokens_in(item))
                seen = max_chars + 1
            else:
                seen += len(item)
            if len(item) <= piece:
                yield item
            else:
                # the item's tokens counted once, with its last slice
                tokens, last = tokens_in(item), len(item) - piece
                for i in range(0, len(item), piece):
                    if i:
                        await asyncio.sleep(0)
                    yield Piece(item[i : i + piece], tokens if i >= last else 0)
            if max_chars is not None and seen > max_chars:
                if notes is not None:
                    notes.append(
                        f"The model's answer was cut after {max_chars} characters (it sent more "
                        "than the suggestion may hold)."
                    )
                return
    finally:
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            await aclose()


class StreamReader(Protocol):
    """What the one driver (:meth:`DefaultInlineCompletionHandler.drive`) feeds the model's text
    to: a completion's cleaning pipeline (``postprocess.Pipeline``), or an edit prediction's answer
    reader (``edits.AnswerReader``). ``feed`` returns what to pass on now; ``done``: stop reading
    (the model's stream is closed); ``finish``: the rest at the end (``truncated``: the model used
    its whole token limit, ``budget_spent``)."""

    @property
    def done(self) -> bool: ...

    @property
    def budget_spent(self) -> bool: ...

    def feed(self, chunk: str) -> str: ...

    def finish(self, truncated: bool = False) -> str: ...


# Refusals that follow the user's or the administrator's own settings: no warning in the log.
SETTING_REFUSALS = frozenset({"excluded"})
# Requests not sent because the model server asked for a pause (backends/pressure.py): the pause
# itself was logged once, as the server's answer; one line per keystroke would flood the log.
QUIET_REFUSALS = SETTING_REFUSALS | {"model_busy"}


class BaseInlineCompletionHandler:
    """Interface, error envelope, cancellation and timing for inline completion handlers.

    Subclass and implement :meth:`suggest`. Register a subclass with
    ``c.CodeCompleteApp.completion_handler_class`` or the ``jupyter_codecomplete.completion_handlers``
    entry point group.
    """

    def __init__(self, *, log: logging.Logger | None = None, settings: dict[str, Any] | None = None) -> None:
        self.log = log or logging.getLogger("jupyter_codecomplete")
        self.settings = settings or {}
        self.max_suggestion_chars = int(
            self.settings.get("max_suggestion_chars") or DEFAULT_MAX_SUGGESTION_CHARS
        )
        self.max_suggestion_lines = int(
            self.settings.get("max_suggestion_lines") or DEFAULT_MAX_SUGGESTION_LINES
        )

    @property
    def max_raw_chars(self) -> int:
        """How much of the model's own text is read at most (before cleaning)."""
        return RAW_TEXT_FACTOR * self.max_suggestion_chars + PIECE_CHARS

    def bounds(self) -> tuple[StreamScrubber, SuggestionLimit]:
        """A fresh scrubber and size limit for one suggestion."""
        return StreamScrubber(self.secrets()), SuggestionLimit(
            self.max_suggestion_chars, self.max_suggestion_lines
        )

    def bounded(self, request: InlineCompletionRequest, notes: list[str]) -> AsyncGenerator[str, None]:
        """:meth:`suggest` with secrets scrubbed and the size limit applied.

        Reaching the limit ends the suggestion and closes :meth:`suggest` (and so the model
        stream) at once."""
        return self.bound(self.suggest(request, notes), notes)

    async def bound(
        self, source: AsyncIterator[str], notes: list[str], limit: SuggestionLimit | None = None
    ) -> AsyncGenerator[str, None]:
        """Deltas of ``source`` with secrets scrubbed and the size limit applied (``limit``: the
        caller's own, to read ``limit.reached`` afterwards). Reaching the limit closes ``source``."""
        scrubber, own = self.bounds()
        limit = limit or own
        try:
            async for delta in source:
                out = limit.take(scrubber.feed(delta))
                if out:
                    yield out
                if limit.reached:
                    notes.append(limit.note())
                    return
        finally:
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                await aclose()
        out = limit.take(scrubber.finish())
        if out:
            yield out
        if limit.reached:
            notes.append(limit.note())

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

    def warms(self, request: InlineCompletionRequest | None = None) -> bool:
        """Whether :meth:`warm` reaches the model for ``request`` (None: the default model)."""
        return False

    def warm_routes(self) -> dict[str, bool]:
        """For each configured route, whether its model may be warmed (the hello's ``warm_routes``)."""
        return {}

    def spend_ahead(self, request: InlineCompletionRequest | None = None) -> bool:
        """Count one request made ahead of the user (a warm-up, a prefetch) for ``request``'s
        model; False: its cap is spent, send nothing (the default: no cap)."""
        return True

    async def warm(self, request: InlineCompletionRequest) -> None:
        """Have the model evaluate ``request``'s prompt ahead, for its prompt cache (only called
        when :meth:`warms` says so; cancelled when a completion request comes)."""

    async def close(self) -> None:
        """Release resources (HTTP clients, models) when the server stops."""

    # Edit predictions (optional): a handler that serves them says so and overrides the method.
    supports_edits = False
    # what it serves besides inline completions, as hello ``features`` name it
    features: tuple[str, ...] = ()

    async def handle_edit_request(self, request: EditPredictionRequest) -> EditPredictionReply:
        """Answer an edit prediction: a reply with the edits, or one with an error."""
        return EditPredictionReply(
            reply_to=request.number,
            version=request.version,
            error=ErrorInfo(
                type="not_supported",
                title="No edit predictions",
                message=f"The completion handler {type(self).__name__} does not serve edit predictions.",
            ),
        )

    # -- provided -------------------------------------------------------------------------------
    def error_info(self, exc: BaseException) -> ErrorInfo:
        return error_info_from(exc, self.secrets())

    def failed(self, number: int, exc: BaseException, what: str = "") -> ErrorInfo:
        """The error envelope of a failed request ``number``, logged (scrubbed) as a warning; a
        refusal that is the user's own setting (an excluded document) only at debug level."""
        error = self.error_info(exc)
        level = logging.DEBUG if error.type in QUIET_REFUSALS else logging.WARNING
        self.log.log(level, "codecomplete %s#%s failed: %s", what, number, error.message)
        return error

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
            async for delta in self.bounded(request, notes):
                if first is None:
                    first = time.perf_counter()
                parts.append(delta)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return InlineCompletionReply(
                reply_to=request.number,
                list=InlineCompletionList(items=[]),
                model=self.model_info(request),
                notes=notes,
                error=self.failed(request.number, exc),
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
        self, request: InlineCompletionRequest, *, delta: bool = False
    ) -> AsyncGenerator[InlineCompletionStreamChunk, None]:
        """Stream chunks: the whole suggestion so far in each, or only what is new (``delta``)."""
        notes: list[str] = []
        start = time.perf_counter()
        first: float | None = None
        text = ""
        n = 0
        model = self.model_info(request)
        error: ErrorInfo | None = None
        try:
            async with contextlib.aclosing(self.bounded(request, notes)) as deltas:
                async for piece in deltas:
                    if not piece:
                        continue
                    if first is None:
                        first = time.perf_counter()
                    n += len(piece)
                    if not delta:
                        text += piece
                    yield InlineCompletionStreamChunk(
                        reply_to=request.number,
                        response=InlineCompletionItem(insertText=piece if delta else text, isIncomplete=True),
                        done=False,
                        delta=delta,
                    )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            error = self.failed(request.number, exc)
        if error is None:
            self._log_done(request, start, first, n)
        yield InlineCompletionStreamChunk(
            reply_to=request.number,
            response=InlineCompletionItem(insertText="" if delta else text, isIncomplete=False),
            done=True,
            delta=delta,
            model=self.model_info(request) or model,  # the model that wrote it, when known now
            notes=notes,
            error=error,
        )
