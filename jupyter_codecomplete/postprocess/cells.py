"""The edits of a notebook document mapped back to the cells they land in (by cell id).

A notebook-scope edit prediction (and an error fix) asks the model to rewrite a region of a
document made of cells and separators (``prompting/notebook_document.py``); cleaning
(``edits.py``) turns the rewrite into edits in the document's offsets. :func:`map_to_cells` gives
each edit its cell and the offsets in that cell's source as the request sent it, and drops, with a
note, every edit that would land in the wrong place:

* one that touches a separator, the text written between cells or into a cell (the error's
  comment block), or that spans two cells (a cell merged, split, removed or renumbered);
* one in a cell the request sent without an id (context only);
* one whose text writes a separator line (a new cell inside another);
* one that overlaps an edit kept before it.

The edits come out as :class:`~jupyter_codecomplete.protocol.EditPredictionReply` says: the
request's own cell's first (``cell_id`` None), then the other cells' in notebook order (the
document's order), each cell's sorted.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .edits import Edit


class CellSpan(Protocol):
    """A span ``[start, end)`` of the document that is a cell's text from offset ``base`` of its
    source: the request's own (``own``) or the context cell ``cell_id``."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def base(self) -> int: ...
    @property
    def cell_id(self) -> str | None: ...
    @property
    def own(self) -> bool: ...


@dataclass(frozen=True)
class CellEdit:
    """Replace ``[start, end)`` of a cell's source with ``text``; ``cell_id`` None: the request's text."""

    start: int
    end: int
    text: str
    cell_id: str | None


@dataclass
class MappedEdits:
    edits: list[CellEdit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def map_to_cells(edits: Sequence[Edit], spans: Sequence[CellSpan], separator_mark: str = "") -> MappedEdits:
    """The document's ``edits`` as edits of cells (see the module docstring). ``spans`` are in
    document order and do not overlap; ``separator_mark`` is what a separator line starts with
    (``# %% [``)."""
    starts = [s.start for s in spans]
    prefix = separator_mark.strip()
    own: list[CellEdit] = []
    others: dict[int, list[CellEdit]] = {}
    counts = {"outside": 0, "no_id": 0, "separator": 0, "overlap": 0}
    last_end = -1
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start < last_end:
            counts["overlap"] += 1
            continue
        i = bisect.bisect_right(starts, e.start) - 1
        # a zero-width edit at a cell's end may equally be the next cell's start: the cell it is in
        span = spans[i] if i >= 0 and spans[i].start <= e.start and e.end <= spans[i].end else None
        if span is None and i + 1 < len(spans) and spans[i + 1].start == e.start == e.end:
            span, i = spans[i + 1], i + 1
        if span is None:
            counts["outside"] += 1
            continue
        if not span.own and span.cell_id is None:
            counts["no_id"] += 1
            continue
        if prefix and any(line.strip().startswith(prefix) for line in e.text.split("\n")):
            counts["separator"] += 1
            continue
        last_end = e.end
        edit = CellEdit(
            span.base + e.start - span.start,
            span.base + e.end - span.start,
            e.text,
            None if span.own else span.cell_id,
        )
        if span.own:
            own.append(edit)
        else:
            others.setdefault(i, []).append(edit)
    notes: list[str] = []
    said = {
        "outside": "touched a cell separator or spanned cells",
        "no_id": "landed in a cell sent without an id",
        "separator": "wrote a cell separator",
        "overlap": "overlapped another edit",
    }
    for key, n in counts.items():
        if n:
            notes.append(f"{n} edit{'s' if n > 1 else ''} dropped: {said[key]} (never a wrong-place edit).")
    out = sorted(own, key=lambda c: c.start)
    # the other cells in notebook order: their spans' order; a cell's spans are consecutive
    by_cell: dict[str, list[CellEdit]] = {}
    for i in sorted(others):
        for edit in others[i]:
            by_cell.setdefault(edit.cell_id or "", []).append(edit)
    for cell_edits in by_cell.values():
        out.extend(sorted(cell_edits, key=lambda c: c.start))
    return MappedEdits(out, notes)


__all__ = ["CellEdit", "CellSpan", "MappedEdits", "map_to_cells"]
