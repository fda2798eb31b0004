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

Then the edits are bounded per cell and in all (:data:`MAX_CELL_EDITS`, :data:`MAX_NOTEBOOK_EDITS`),
whole cells at a time, so a rename used in many places still gives the nearest cells' edits: the
cells are taken nearest the request's own first (its own, then one cell away below, one above, two
below...), a cell with more edits than the per-cell bound is left out whole (a half-renamed cell is
no fix), and from the first cell that would pass the total on, every farther cell is left out (the
kept cells are the nearest ones); a note says how many of each.

The edits come out as :class:`~jupyter_codecomplete.protocol.EditPredictionReply` says: the
request's own cell's first (``cell_id`` None), then the other cells' in notebook order (the
document's order), each cell's sorted.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .edits import MAX_EDITS, Edit

# one cell's edits: as many as a one-cell prediction may have
MAX_CELL_EDITS = MAX_EDITS
# all the cells' edits of one answer
MAX_NOTEBOOK_EDITS = 64


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


def map_to_cells(
    edits: Sequence[Edit],
    spans: Sequence[CellSpan],
    separator_mark: str = "",
    *,
    max_cell_edits: int = MAX_CELL_EDITS,
    max_edits: int = MAX_NOTEBOOK_EDITS,
) -> MappedEdits:
    """The document's ``edits`` as edits of cells (see the module docstring). ``spans`` are in
    document order and do not overlap; ``separator_mark`` is what a separator line starts with
    (``# %% [``); ``max_cell_edits`` / ``max_edits``: the bounds per cell and in all."""
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
    # the other cells in notebook order: their spans' order; a cell's spans are consecutive
    by_cell: dict[str, list[CellEdit]] = {}
    for i in sorted(others):
        for edit in others[i]:
            by_cell.setdefault(edit.cell_id or "", []).append(edit)
    kept = _bounded(own, by_cell, spans, max_cell_edits, max_edits, notes)
    out = sorted(own, key=lambda c: c.start) if None in kept else []
    for cell_id, cell_edits in by_cell.items():
        if cell_id in kept:
            out.extend(sorted(cell_edits, key=lambda c: c.start))
    return MappedEdits(out, notes)


def _bounded(
    own: list[CellEdit],
    by_cell: dict[str, list[CellEdit]],
    spans: Sequence[CellSpan],
    max_cell_edits: int,
    max_edits: int,
    notes: list[str],
) -> set[str | None]:
    """The cells (None: the request's own) whose edits are kept within the bounds, nearest the
    own cell first; a note for each kind of cell left out."""
    # the cells in document order (a cell sent without an id counts for the distance too)
    order: list[tuple[bool, str | None, int]] = []
    for n, span in enumerate(spans):
        no_id = not span.own and span.cell_id is None
        entry = (span.own, None if span.own else span.cell_id, n if no_id else -1)
        if not order or order[-1] != entry:
            order.append(entry)
    here = next((k for k, e in enumerate(order) if e[0]), 0)

    def nearness(k: int) -> tuple[int, int]:  # the cell below before the one above at one distance
        return abs(k - here), 0 if k >= here else 1

    kept: set[str | None] = set()
    total = 0
    too_many: list[int] = []
    past_total: list[int] = []
    for k in sorted(range(len(order)), key=nearness):
        is_own, key, _ = order[k]
        n = len(own) if is_own else len(by_cell.get(key, [])) if key is not None else 0
        if not n or (key in kept and not is_own):
            continue
        if n > max_cell_edits:
            too_many.append(n)
        elif past_total or total + n > max_edits:
            past_total.append(n)  # and every cell farther: the kept cells are the nearest ones
        else:
            kept.add(key)
            total += n
    if too_many:
        notes.append(
            f"{sum(too_many)} edits in {len(too_many)} cell{'s' if len(too_many) > 1 else ''} left out: "
            f"more than {max_cell_edits} in one cell."
        )
    if past_total:
        notes.append(
            f"{sum(past_total)} edits in {len(past_total)} cell{'s' if len(past_total) > 1 else ''} "
            f"farther from the cursor left out: {max_edits} edits in all at most; the nearest cells' "
            "edits came."
        )
    return kept


__all__ = ["MAX_CELL_EDITS", "MAX_NOTEBOOK_EDITS", "CellEdit", "CellSpan", "MappedEdits", "map_to_cells"]
