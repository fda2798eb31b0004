"""A notebook as one document, for edit predictions across cells (``scope="notebook"``) and for the
fix after an error.

:func:`notebook_document` writes the cursor's cell and the code cells around it, in notebook
order, each headed by the format's ``cell_separator`` (``# %% [3] In [2]``: jupytext's percent
form, with the cell's place and its execution: which cells ran in which order, which were edited
since), nearest cells first while they fit :data:`NOTEBOOK_CHARS`, so a notebook of 1,000 cells
costs what its shown cells cost. Its :class:`Segment` list says which spans of the document are a
cell's text (and which cell, at which offset of the source the request sent): the mapping back
(``postprocess/cells.py``) turns the model's edits into edits by cell id, and drops any that
touch the separators or a cell without an id.

``insert`` writes a text into the cursor's cell without making it the cell's (the error's comment
block above the line that raised): it is a span of its own, like a separator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..protocol import ContextCell
from .context import comment_marker
from .errors import PromptError

# Characters of cells a notebook document holds (the editable region is cut from it around the
# cursor, ``edits.MAX_REGION_CHARS``; the rest is the context the format shows around it).
NOTEBOOK_CHARS = 16_000


@dataclass(frozen=True)
class Segment:
    """``[start, end)`` of the document is the text of a cell from offset ``base`` of its source:
    ``own`` (the request's text) or the context cell ``cell_id``."""

    start: int
    end: int
    base: int
    cell_id: str | None
    own: bool


@dataclass
class NotebookDocument:
    text: str
    cursor: int
    # where the request's own text starts in the document (before any ``insert``)
    own_start: int
    segments: list[Segment] = field(default_factory=list)
    # the separator lines written, and what each starts with (``# %% [``: the mapping back
    # refuses edits that write one)
    separators: list[str] = field(default_factory=list)
    separator_mark: str = ""
    # cells left out (budget): above, below
    left_out: tuple[int, int] = (0, 0)
    notes: list[str] = field(default_factory=list)

    def to_document(self, own_offset: int, *, after_insert: bool = False) -> int:
        """A position of the request's own text as a position of the document (where the inserted
        text stands: before it, or with ``after_insert`` after it)."""
        for seg in reversed(self.segments) if after_insert else self.segments:
            if seg.own and seg.base <= own_offset <= seg.base + (seg.end - seg.start):
                return seg.start + own_offset - seg.base
        raise PromptError("bad_cursor", f"Offset {own_offset} is not in the cell's text.")


def run_label(execution_count: int | None, changed: bool) -> str:
    """The ``{run}`` of a cell's separator."""
    if execution_count is None:
        return ""
    return f" In [{execution_count}]" + (", edited since" if changed else "")


def _separator(template: str, marker: str, n: int, run: str) -> str:
    return template.format(comment=marker, n=n, run=run).replace("\n", " ")


def notebook_document(
    text: str,
    cursor: int,
    cells_above: Sequence[ContextCell],
    cells_below: Sequence[ContextCell],
    language: str | None,
    separator: str,
    *,
    own_run: tuple[int | None, bool] = (None, False),
    insert: tuple[int, str] | None = None,
    max_chars: int = NOTEBOOK_CHARS,
    headed: bool = True,
) -> NotebookDocument:
    """The document (see the module docstring). ``cursor`` and ``insert``'s offset are in ``text``.
    ``headed`` false: the cell alone, without a separator (an error fix in one cell)."""
    if not 0 <= cursor <= len(text):
        raise PromptError("bad_cursor", f"The cursor ({cursor}) lies outside the text (0..{len(text)}).")
    marker = comment_marker(language)
    budget = max(0, max_chars - len(text))
    # nearest first, alternating above and below, while they fit; only code cells are shown
    above: list[int] = []
    below: list[int] = []
    ia, ib = len(cells_above) - 1, 0
    skipped = [0, 0]
    turn = 0
    while (ia >= 0 or ib < len(cells_below)) and budget > 0:
        take_above = ia >= 0 and (turn % 2 == 0 or ib >= len(cells_below))
        if take_above:
            cell, side = cells_above[ia], 0
            ia -= 1
        else:
            cell, side = cells_below[ib], 1
            ib += 1
        turn += 1
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        cost = len(cell.source) + 40
        if cost > budget:
            skipped[side] += 1
            budget = 0
            break
        budget -= cost
        (above if side == 0 else below).append(ia + 1 if side == 0 else ib - 1)
    skipped[0] += sum(1 for i in range(ia + 1) if cells_above[i].cell_type == "code")
    skipped[1] += sum(1 for i in range(ib, len(cells_below)) if cells_below[i].cell_type == "code")
    above.sort()
    below.sort()

    parts: list[str] = []
    segments: list[Segment] = []
    separators: list[str] = []
    pos = 0

    def put(piece: str) -> int:
        nonlocal pos
        start = pos
        parts.append(piece)
        pos += len(piece)
        return start

    def head(n: int, run: str) -> None:
        line = _separator(separator, marker, n, run)
        separators.append(line)
        put(line + "\n")

    for i in above:
        cell = cells_above[i]
        head(i + 1, run_label(cell.execution_count, cell.changed))
        start = put(cell.source)
        segments.append(Segment(start, pos, 0, cell.cell_id, False))  # no id: context only
        put("\n" if not cell.source.endswith("\n") else "")
    own_n = len(cells_above) + 1
    if headed or above or below:
        head(own_n, run_label(*own_run))
    own_start = pos
    at, block = insert if insert is not None else (len(text), "")
    if not 0 <= at <= len(text):
        raise PromptError("bad_region", f"Offset {at} is not in the cell's text.")
    start = put(text[:at])
    segments.append(Segment(start, pos, 0, None, True))
    if block:
        put(block)
    start = put(text[at:])
    segments.append(Segment(start, pos, at, None, True))
    doc_cursor = (own_start + cursor) if cursor <= at else (start + cursor - at)
    if below:
        put("\n" if text and not text.endswith("\n") else "")
    for i in below:
        cell = cells_below[i]
        head(own_n + 1 + i, run_label(cell.execution_count, cell.changed))
        start = put(cell.source)
        segments.append(Segment(start, pos, 0, cell.cell_id, False))  # no id: context only
        put("\n" if not cell.source.endswith("\n") else "")
    notes: list[str] = []
    if skipped[0] or skipped[1]:
        notes.append(
            f"{skipped[0]} code cells above and {skipped[1]} below left out of the notebook document "
            "(prompt budget)."
        )
    mark = separator.split("{n}")[0].replace("{comment}", marker).strip() if "{n}" in separator else ""
    return NotebookDocument(
        "".join(parts), doc_cursor, own_start, segments, separators, mark, (skipped[0], skipped[1]), notes
    )


__all__ = ["NOTEBOOK_CHARS", "NotebookDocument", "Segment", "notebook_document", "run_label"]
