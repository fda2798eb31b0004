"""Edit predictions across cells (``scope="notebook"``) and the fix after an error (``trigger="error"``).

Both ask the model about a document that is not the request's text alone, then map its edits
back to the cells (never by position alone):

* ``scope="notebook"``: the notebook as one document (``prompting/notebook_document.py``: the
  cursor's cell and the code cells around it in order, each under the format's separator with its
  execution, within a budget); the editable region is the document around the cursor (cut to the
  format's bounds), so a rename in one cell reaches the cells that use the name.
* ``trigger="error"``: the line the traceback names (``prompting/tracebacks.py``); no line, no
  model call and no edit. The error, the traceback's end and the kernel's candidates are a comment
  block written above that line, and the editable region is that line: a next-edit or chat model
  rewrites it with the error in view; a fill-in-the-middle model (the completion model when no
  edit or chat model is configured and its format has FIM) re-fills the line after the comment,
  and its line replaces the old one.

The model's edits (in the document's offsets) go through the same cleaning as a one-cell
prediction (``completion/edits.py``), within a document's bound (:data:`DOCUMENT_LIMITS`: a rename
may touch many cells), then ``postprocess/cells.py`` gives each its cell id, drops those that touch
a separator, the comment block, two cells or a cell without an id, bounds them per cell and in all
(the cells nearest the cursor kept first, a note for the rest), and sorts them.

The editor's "Edit predictions" setting lives in the client: the server sees an ``edit_prediction``
request only when the user turned them on (it cannot tell otherwise). For an error fix it refuses,
with an error naming the settings to change, when no model can serve it (no edit or chat model,
and a completion model with neither a next-edit nor a fill-in-the-middle format).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from ..errors import CompletionError
from ..postprocess import Edit, EditLimits, diff_edits, implausible_fix, map_to_cells
from ..prompting import (
    GENERIC_EDIT_STYLE,
    EditPromptRequest,
    ErrorLine,
    NotebookDocument,
    PromptStyle,
    RecentEditText,
    comment_marker,
    cursor_indent,
    error_comment,
    error_line,
    notebook_document,
)
from ..protocol import (
    EditPredictionReply,
    EditPredictionRequest,
    EditRegion,
    InlineCompletionRequest,
    ServingModel,
    TextEdit,
)
from .edits import (
    EditEngine,
    EditFacts,
    _model_info,
    _prompt_request,
    edit_facts,
    model_edits,
    prepare_edits,
)

# the whole document's edits before they are mapped to cells and bounded there
# (``postprocess/cells.py``); past this the answer is no edit (a model rewriting everything)
DOCUMENT_LIMITS = EditLimits(max_edits=512)


def _fim_fills(handler: EditEngine, request: EditPredictionRequest, facts: EditFacts) -> bool:
    """Whether the error fix goes to a fill-in-the-middle model (see the module docstring), or
    raise when no model can serve it."""
    key, backend, style = facts.key, facts.backend, facts.style
    if key in ("edit", "chat") or style.name != GENERIC_EDIT_STYLE or backend.chat:
        return False
    fim_style = handler.style_for(backend)
    inline = InlineCompletionRequest(number=request.number, prefix="", language=request.language)
    if fim_style.fim is not None and handler.route(inline) == key:
        return True
    raise CompletionError(
        "no_edit_model",
        "A fix after an error needs a model for edits: set c.CodeCompleteApp.edit_model (or "
        "chat_model), or use a completion model with a next-edit or fill-in-the-middle format "
        f"(the completion model {backend.name!r} is asked in {fim_style.name!r}, which has neither).",
        title="No model for error fixes",
    )


def _document(
    request: EditPredictionRequest, style: PromptStyle, line: ErrorLine | None, secrets: list[str]
) -> NotebookDocument:
    spec = style.edit
    assert spec is not None
    insert: tuple[int, str] | None = None
    if line is not None and request.error is not None:
        marker = comment_marker(request.language)
        indent = cursor_indent(request.text[: line.end])
        block = error_comment(
            request.error,
            line,
            marker,
            candidates=request.kernel_candidates if style.notebook.candidates else None,
            candidates_label=style.notebook.candidates_label,
            secrets=secrets,
            indent=indent,
        )
        insert = (line.start, block)
    notebook = request.scope == "notebook"
    run = (request.error.execution_count, False) if request.error is not None else (None, False)
    return notebook_document(
        request.text,
        request.cursor,
        request.cells_above if notebook else [],
        request.cells_below if notebook else [],
        request.language,
        spec.cell_separator,
        own_run=run,
        insert=insert,
        headed=notebook,
    )


def _prompt(
    request: EditPredictionRequest, doc: NotebookDocument, region: tuple[int, int], cursor: int
) -> EditPromptRequest:
    files = (
        _prompt_request(request).files
        if request.scope == "cell"
        else {f.path: f.content for f in request.files}
    )
    return EditPromptRequest(
        text=doc.text,
        cursor=cursor,
        region=region,
        path=request.path,
        language=request.language,
        recent_edits=[RecentEditText(path=e.path, diff=e.diff) for e in request.recent_edits],
        files=files,
    )


def notebook_prompt_request(
    request: EditPredictionRequest, style: PromptStyle, line: ErrorLine | None, secrets: list[str]
) -> tuple[NotebookDocument, EditPromptRequest]:
    """The document and the prompt's request of a notebook-scope prediction or an error fix
    (``line``: the line the error names); pure, so the golden prompts are made here too."""
    doc = _document(request, style, line, secrets)
    if line is not None:
        s, e = doc.to_document(line.start, after_insert=True), doc.to_document(line.end, after_insert=True)
        end = e + 1 if doc.text[e : e + 1] == "\n" else e
        assert style.edit is not None
        block = s - doc.to_document(line.start)
        if style.edit.context_lines_before == 0:
            # a format that shows nothing outside its region (Sweep's window): the error's comment
            # block is the region's start (edits in it are dropped when mapped back)
            return doc, _prompt(request, doc, (s - block, end), e)
        # the others show the whole block above the region, whatever their lines of context
        shown = doc.text.count("\n", s - block, s) + 1
        return doc, _prompt(request, doc, (s, end), e).model_copy(update={"min_lines_before": shown})
    return doc, _prompt(request, doc, (0, len(doc.text)), doc.cursor)


def _reply(request: EditPredictionRequest, edits: list[TextEdit], **fields: object) -> EditPredictionReply:
    return EditPredictionReply(reply_to=request.number, version=request.version, edits=edits, **fields)  # type: ignore[arg-type]  # the reply's own fields


async def handle_notebook_edit_request(
    handler: EditEngine, request: EditPredictionRequest
) -> EditPredictionReply:
    """Serve a notebook-scope prediction or an error fix (see the module docstring)."""
    notes: list[str] = []
    start = time.perf_counter()
    model: ServingModel | None = None
    try:
        line: ErrorLine | None = None
        fim = False
        facts = edit_facts(handler)
        if request.error is not None:
            fim = _fim_fills(handler, request, facts)
            line = error_line(request.error, request.text)
            if line is None:
                notes.append(
                    "The traceback names no line of this cell (another language, another cell, or "
                    "the cell changed since it ran): no fix."
                )
                return _reply(request, [], notes=notes)
        await handler.learn_reported(facts.key)
        style = facts.style
        doc, prompt_request = await asyncio.to_thread(
            notebook_prompt_request, request, style, line, handler.secrets()
        )
        notes.extend(doc.notes)
        region = prompt_request.region
        assert region is not None
        if fim and line is not None:
            found = await _fim_line(handler, request, doc, region, notes)
            model = handler.model_info(None)
        else:
            ep = prepare_edits(handler, request, prompt_request, facts)
            model = _model_info(handler, ep)
            notes.extend(ep.built.notes)
            got = await model_edits(handler, ep, doc.text, request.language, notes, DOCUMENT_LIMITS)
            if got is None:
                return _reply(request, [], model=model, notes=notes)
            found = got
        if line is not None:
            rejected = implausible_fix(doc.text, region, found, request.language)
            if rejected is not None:
                notes.append(rejected)
                found = []
        mapped = map_to_cells(found, doc.segments, doc.separator_mark)
        notes.extend(mapped.notes)
        edits = [TextEdit(start=c.start, end=c.end, text=c.text, cell_id=c.cell_id) for c in mapped.edits]
        own = [ed for ed in edits if ed.cell_id is None]
        if line is not None:
            shown: EditRegion | None = EditRegion(start=line.start, end=line.end)
        else:
            shown = (
                EditRegion(start=min(ed.start for ed in own), end=max(ed.end for ed in own)) if own else None
            )
        handler.log.debug(
            "codecomplete edit #%s %s (%s): %d edits in %.1f ms",
            request.number,
            request.path or "",
            "error fix" if line is not None else "notebook",
            len(edits),
            (time.perf_counter() - start) * 1000,
        )
        return _reply(request, edits, region=shown, model=model, notes=notes)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        error = handler.error_info(exc)
        handler.log.warning("codecomplete edit #%s failed: %s", request.number, error.message)
        return _reply(request, [], model=model, notes=notes, error=error)


def fim_fill_request(
    request: EditPredictionRequest, doc: NotebookDocument, region: tuple[int, int]
) -> tuple[InlineCompletionRequest, tuple[int, int, str]]:
    """The completion request that re-fills the line ``region`` of the document (after its
    indentation), and the line's span and text it replaces."""
    s, e = region
    line = doc.text[s:e].rstrip("\n")
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    body_start = s + len(indent)
    line_end = s + len(line)
    inline = InlineCompletionRequest(
        number=request.number,
        path=request.path,
        language=request.language,
        prefix=doc.text[:body_start],
        suffix=doc.text[line_end:],
        trigger="manual",
    )
    return inline, (body_start, line_end, line[len(indent) :])


async def _fim_line(
    handler: EditEngine,
    request: EditPredictionRequest,
    doc: NotebookDocument,
    region: tuple[int, int],
    notes: list[str],
) -> list[Edit]:
    """The line that raised, re-filled by a fill-in-the-middle model after the error's comment."""
    inline, (body_start, _, old) = fim_fill_request(request, doc, region)
    # the engine's own bounded suggestion (prepare, the same deadlines, cleaning, secrets
    # scrubbed), not a completion reply: its failure is this request's, with its own type
    async with contextlib.aclosing(handler.bounded(inline, notes)) as deltas:
        filled = "".join([delta async for delta in deltas])
    text = filled.split("\n", 1)[0].rstrip()
    if not text.strip() or text == old:
        notes.append("The model re-filled the line as it was; no edit.")
        return []
    return diff_edits(old, text, body_start)


__all__ = ["fim_fill_request", "handle_notebook_edit_request", "notebook_prompt_request"]
