"""Edit predictions through the engine: an :class:`EditPredictionRequest` becomes a list of edits.

The same path as a completion (:class:`~.default.DefaultInlineCompletionHandler`): the request's
model and prompt style are decided once, the prompt is built from the style's ``edit`` record
(``prompting/edits.py``), and the model streams through the completions' one driver
(:meth:`~.default.DefaultInlineCompletionHandler.drive`: the model's first-token and total
deadlines, the bound on what is read, the socket's cancellation closing the upstream stream at
once) into this kind's reader (:class:`AnswerReader`): the answer is read up to the format's end
marker (the model stream is closed there) and at most a bounded number of characters; then it is
parsed and cleaned (``postprocess/edits.py``) off the event loop.

Model: ``edit`` (``c.CodeCompleteApp.edit_model``) when configured, else ``chat``, else the
completion model of the request's language. Style: the model's configured ``style`` when it has a
next-edit format, else the one its name matches (:meth:`StyleRegistry.for_edits`), else the
generic format for instruction models.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Protocol

from langchain_core.runnables import RunnableConfig

from ..backends import Affinity, Backend, ModelConfig
from ..errors import StreamScrubber
from ..pieces import tokens_in
from ..postprocess import MAX_CHANGED_CHARS, MAX_GROWTH, Edit, EditLimits, PostprocessContext, clean_edits
from ..prompting import (
    CELL_SEPARATOR,
    GENERIC_EDIT_STYLE,
    BuiltEditPrompt,
    BuiltPrompt,
    EditPromptRequest,
    PromptStyle,
    RecentEditText,
    StyleRegistry,
    build_edit_prompt,
    completion_prompt,
    display_path,
    parse_edit_answer,
)
from ..protocol import (
    EditPredictionReply,
    EditPredictionRequest,
    EditRegion,
    ErrorInfo,
    InlineCompletionRequest,
    ServingModel,
    TextEdit,
)
from .base import StreamReader
from .prepared import Prepared, deadlines

# Output budget of one prediction: the rewrite of the region, in tokens (about 3 characters each).
MIN_EDIT_TOKENS = 256
MAX_EDIT_TOKENS = 4096
# The model's text read at most: the longest rewrite cleaning accepts, and some slack.
READ_SLACK_CHARS = 4096
# Requests with more text than this are prepared off the event loop.
OFF_LOOP_CHARS = 200_000


class EditEngine(Protocol):
    """What edit predictions use of the engine (:class:`~.default.DefaultInlineCompletionHandler`,
    which imports this module: the engine is named by what it offers, not by its class)."""

    models: dict[str, ModelConfig]
    styles: StyleRegistry
    log: logging.Logger
    affinity: Affinity

    def is_warm(self, key: str) -> bool: ...

    def mark_warm(self, key: str) -> None: ...

    def reported(self, key: str) -> str | None: ...

    def route(self, request: InlineCompletionRequest | None) -> str: ...

    def backend(self, key: str) -> Backend: ...

    def drive(
        self,
        prepared: Prepared,
        pipeline: StreamReader,
        notes: list[str],
        config: RunnableConfig | None = None,
        max_chars: int | None = None,
    ) -> AsyncGenerator[str, None]: ...

    async def learn_reported(self, key: str, wait: float = ...) -> None: ...

    def secrets(self) -> list[str]: ...

    def failed(self, number: int, exc: BaseException, what: str = "") -> ErrorInfo: ...

    def error_info(self, exc: BaseException) -> ErrorInfo: ...

    def style_for(self, backend: Backend) -> PromptStyle: ...

    def model_info(self, request: InlineCompletionRequest | None = None) -> ServingModel | None: ...

    def bounded(self, request: InlineCompletionRequest, notes: list[str]) -> AsyncGenerator[str, None]: ...


def edit_model_key(handler: EditEngine) -> str:
    for key in ("edit", "chat"):
        if key in handler.models:
            return key
    return handler.route(None)


def edit_style(handler: EditEngine, key: str) -> PromptStyle:
    backend = handler.backend(key)
    return edit_style_for(handler.styles, backend.config.style, backend.config.model or backend.name)


def edit_style_for(styles: StyleRegistry, style: str | None, model_name: str) -> PromptStyle:
    """The format edit predictions ask a model in: its configured ``style`` when that has a
    next-edit format, else the next-edit style its name matches, else the generic format for
    instruction models. The engine and the model list (which format a model would be asked in)
    both decide here."""
    if style:
        found = styles.get(style)  # an unknown name is an error naming the known ones
        if found.edit is not None:
            return found
    return styles.for_edits(model_name)


@dataclass(frozen=True)
class EditFacts:
    """The facts of one edit prediction, decided once (:func:`edit_facts`) and read by every stage
    (the reported-model lookup, the error fix's choice of path, the prompt, the model call, the
    reply's model): ``key`` the configured model serving it, ``backend`` that model, ``style`` the
    next-edit format it is asked in."""

    key: str
    backend: Backend
    style: PromptStyle


def edit_facts(handler: EditEngine) -> EditFacts:
    """Decide the model and the format of one edit prediction (once per request)."""
    key = edit_model_key(handler)
    backend = handler.backend(key)
    style = edit_style_for(handler.styles, backend.config.style, backend.config.model or backend.name)
    return EditFacts(key, backend, style)


def _prompt_request(request: EditPredictionRequest) -> EditPromptRequest:
    files = {f.path: f.content for f in request.files}
    path = display_path(request.path, request.language)
    for label, cells in (("cells above", request.cells_above), ("cells below", request.cells_below)):
        code = [c.source for c in cells if c.cell_type == "code" and c.source.strip()]
        if code:
            files[f"{path} ({label})"] = CELL_SEPARATOR.join(code)
    region = (request.region.start, request.region.end) if request.region is not None else None
    return EditPromptRequest(
        text=request.text,
        cursor=request.cursor,
        region=region,
        path=request.path,
        language=request.language,
        recent_edits=[RecentEditText(path=e.path, diff=e.diff) for e in request.recent_edits],
        files=files,
        cell=request.cell_id is not None,
    )


@dataclass
class EditPrepared:
    facts: EditFacts
    built: BuiltEditPrompt
    prepared: Prepared
    read_chars: int

    @property
    def key(self) -> str:
        return self.facts.key

    @property
    def style(self) -> PromptStyle:
        return self.facts.style


def prepare_edits(
    handler: EditEngine,
    request: EditPredictionRequest,
    prompt_request: EditPromptRequest | None = None,
    facts: EditFacts | None = None,
) -> EditPrepared:
    """Everything decided about an edit prediction before the model is called. ``prompt_request``:
    the prompt's document when it is not the request's own text (``notebook_edits.py``);
    ``facts``: the request's record, when its caller has made it (else made here)."""
    facts = facts or edit_facts(handler)
    key, backend, style = facts.key, facts.backend, facts.style
    cfg = backend.config
    built = build_edit_prompt(prompt_request or _prompt_request(request), style)
    region_chars = built.region_end - built.region_start
    max_tokens = max(MIN_EDIT_TOKENS, min(MAX_EDIT_TOKENS, region_chars // 2 + MIN_EDIT_TOKENS))
    messages = built.messages
    prompt = built.prompt
    stop = list(built.stop)
    if messages and not backend.chat:
        # a chat format on a plain completion endpoint: the messages in the model's chat template
        assert style.edit is not None
        prompt = completion_prompt(built, style.edit)
        stop += [s for s in style.edit.completion_stop if s not in stop]
        messages = None
    first, total = deadlines(cfg, handler.is_warm(key))
    model_call = Prepared(
        key,
        backend,
        style,
        BuiltPrompt(
            prompt=prompt,
            messages=messages,
            stop=stop,
            style=style.name,
            mode="chat" if messages else "completion",
        ),
        PostprocessContext(language=request.language, prefix="", suffix=""),
        max_tokens,
        stop,
        first,
        total,
        # the same key as the document's completions: one router session per user and document
        session=handler.affinity.session(request.path),
    )
    read = MAX_GROWTH * region_chars + MAX_CHANGED_CHARS + READ_SLACK_CHARS
    return EditPrepared(facts, built, model_call, read)


class AnswerReader:
    """The edit prediction's reader for the one driver (:meth:`EditEngine.drive`): it keeps the
    model's answer and is done at the format's end marker (also one split across pieces) or past
    ``read_chars`` (``stopped``: the model did not stop). It passes nothing on: the answer is
    parsed whole."""

    def __init__(self, ends: Sequence[str], read_chars: int, max_tokens: int) -> None:
        self.ends = tuple(ends)
        self.read_chars = read_chars
        self.max_tokens = max_tokens
        self.parts: list[str] = []
        self.pieces = 0
        self.stopped = False
        self.done = False
        self._seen = 0
        self._tail = ""
        self._longest = max((len(m) for m in self.ends), default=0)

    @property
    def budget_spent(self) -> bool:
        return self.pieces >= self.max_tokens

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def feed(self, chunk: str) -> str:
        if self.done:
            return ""
        self.parts.append(chunk)
        self.pieces += tokens_in(chunk)
        self._seen += len(chunk)
        if self._seen > self.read_chars:
            self.stopped = self.done = True
        elif self.ends:
            # the piece and the text before it that a marker split across pieces may start in
            window = self._tail + chunk
            if any(m in window for m in self.ends):
                self.done = True  # the rewrite is complete: the model's stream is closed here
            self._tail = window[-(self._longest - 1) :] if self._longest > 1 else ""
        return ""

    def finish(self, truncated: bool = False) -> str:
        return ""


async def read_answer(handler: EditEngine, ep: EditPrepared, notes: list[str]) -> tuple[str, bool]:
    """The model's answer, read by the one driver up to the format's end marker or
    :attr:`EditPrepared.read_chars`; and whether the reading stopped at that bound (the model did
    not stop)."""
    spec = ep.style.edit
    assert spec is not None
    ends = spec.answer.end
    reader = AnswerReader(ends, ep.read_chars, ep.prepared.max_tokens)
    async with contextlib.aclosing(handler.drive(ep.prepared, reader, [], max_chars=ep.read_chars)) as out:
        async for _ in out:
            pass
    text = reader.text
    stopped = reader.stopped
    if len(text) >= ep.read_chars and not any(m in text for m in ends):
        stopped = True
    if stopped:
        notes.append(f"The model did not stop within {ep.read_chars} characters; no edit.")
    elif reader.budget_spent and not any(m in text for m in ends):
        # as many pieces as its token limit allows and no end marker: cut off there, the rewrite
        # is not whole (a format whose end marker is a stop sequence never shows it)
        stopped = True
        notes.append("The model's answer was cut off at its token limit; no edit.")
    return text, stopped


async def model_edits(
    handler: EditEngine,
    ep: EditPrepared,
    text: str,
    language: str | None,
    notes: list[str],
    limits: EditLimits | None = None,
) -> list[Edit] | None:
    """Ask the model, read its answer in the format and clean it into edits of ``text`` (the
    prompt's document, within ``limits``: a one-cell prediction's by default); None when the model
    did not stop (nothing to say but the note)."""
    raw, stopped = await read_answer(handler, ep, notes)
    if stopped:
        return None
    scrubber = StreamScrubber(handler.secrets())
    raw = scrubber.feed(raw) + scrubber.finish()
    spec = ep.style.edit
    assert spec is not None
    parsed = parse_edit_answer(raw, spec, ep.built.answer_tail, ep.built.answer_base)
    if parsed.kind != "rewrite":
        if parsed.note:
            notes.append(parsed.note)
        return []
    cleaned = await asyncio.to_thread(
        clean_edits,
        text,
        ep.built.region_start,
        ep.built.region_end,
        parsed.text,
        language=language,
        before=ep.built.before,
        after=ep.built.after,
        limits=limits,
    )
    notes.extend(cleaned.notes)
    return list(cleaned.edits)


async def handle_edit_request(handler: EditEngine, request: EditPredictionRequest) -> EditPredictionReply:
    """Serve one edit prediction (see the module docstring)."""
    notes: list[str] = []
    start = time.perf_counter()
    model: ServingModel | None = None
    try:
        facts = edit_facts(handler)
        await handler.learn_reported(facts.key)
        if len(request.text) > OFF_LOOP_CHARS:
            ep = await asyncio.to_thread(prepare_edits, handler, request, None, facts)
        else:
            ep = prepare_edits(handler, request, facts=facts)
        model = _model_info(handler, ep)
        notes.extend(ep.built.notes)
        region = EditRegion(start=ep.built.region_start, end=ep.built.region_end)
        found = await model_edits(handler, ep, request.text, request.language, notes)
        if found is None:
            return EditPredictionReply(
                reply_to=request.number, version=request.version, region=region, model=model, notes=notes
            )
        edits = [TextEdit(start=e.start, end=e.end, text=e.text) for e in found]
        handler.log.debug(
            "codecomplete edit #%s %s: %d edits in %.1f ms",
            request.number,
            request.path or "",
            len(edits),
            (time.perf_counter() - start) * 1000,
        )
        return EditPredictionReply(
            reply_to=request.number,
            version=request.version,
            edits=edits,
            region=region,
            model=model,
            notes=notes,
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        error = handler.failed(request.number, exc, "edit ")
        return EditPredictionReply(
            reply_to=request.number, version=request.version, model=model, notes=notes, error=error
        )


def _model_info(handler: EditEngine, ep: EditPrepared) -> ServingModel:
    backend = ep.prepared.backend
    return ServingModel(
        name=backend.name,
        backend=backend.kind,
        reported=handler.reported(ep.key),
        style=ep.style.name,
        demo=backend.demo,
        key=ep.key,
        native=ep.style.name != GENERIC_EDIT_STYLE,
    )
