"""Edits of a notebook document mapped back to cells (``postprocess/cells.py``) and the document
itself (``prompting/notebook_document.py``): by cell id, never a wrong place."""

from __future__ import annotations

from jupyter_codecomplete.postprocess.cells import map_to_cells
from jupyter_codecomplete.postprocess.edits import Edit
from jupyter_codecomplete.prompting.notebook_document import (
    NOTEBOOK_CHARS,
    NotebookDocument,
    notebook_document,
)
from jupyter_codecomplete.protocol import ContextCell


def _doc() -> tuple[str, NotebookDocument]:
    doc = notebook_document(
        "b = a + 1\n",
        0,
        [ContextCell(cell_type="code", source="a = 1", cell_id="x", execution_count=1)],
        [
            ContextCell(cell_type="markdown", source="# notes", cell_id="m"),
            ContextCell(cell_type="code", source="print(b)\n", cell_id="y", changed=True, execution_count=2),
            ContextCell(cell_type="code", source="c = b\n"),
        ],
        "python",
        "{comment} %% [{n}]{run}",
    )
    return doc.text, doc


def test_the_document_in_order_with_separators() -> None:
    text, doc = _doc()
    assert text == (
        "# %% [1] In [1]\na = 1\n# %% [2]\nb = a + 1\n"
        "# %% [4] In [2], edited since\nprint(b)\n# %% [5]\nc = b\n"
    )
    assert doc.separator_mark == "# %% ["


def test_edits_by_cell_the_wrong_ones_dropped() -> None:
    text, doc = _doc()
    x = text.index("a = 1")
    y = text.index("print(b)")
    own = text.index("b = a")
    no_id = text.index("c = b")
    sep = text.index("# %% [4]")
    edits = [
        Edit(y + 6, y + 7, "bb"),  # in y
        Edit(x, x + 1, "aa"),  # in x
        Edit(own, own + 1, "bb"),  # the request's own text
        Edit(own + 2, own + 3, "?"),  # overlaps nothing: kept
        Edit(sep + 6, sep + 7, "9"),  # a separator renumbered
        Edit(no_id, no_id + 1, "d"),  # a cell without an id
        Edit(x + 2, y, "merged"),  # spans cells
        Edit(y, y, "# %% [7]\n"),  # writes a separator
    ]
    mapped = map_to_cells(edits, doc.segments, doc.separator_mark)
    assert [(e.cell_id, e.start, e.end, e.text) for e in mapped.edits] == [
        (None, 0, 1, "bb"),
        (None, 2, 3, "?"),
        ("x", 0, 1, "aa"),
        ("y", 6, 7, "bb"),
    ]
    assert len(mapped.notes) == 3 and "2 edits dropped: touched a cell separator" in mapped.notes[0]


def test_overlapping_edits_keep_the_first() -> None:
    text, doc = _doc()
    x = text.index("a = 1")
    mapped = map_to_cells([Edit(x, x + 3, "z"), Edit(x + 1, x + 4, "w")], doc.segments, doc.separator_mark)
    assert [(e.cell_id, e.text) for e in mapped.edits] == [("x", "z")]
    assert "overlapped" in mapped.notes[0]


def test_a_zero_width_edit_between_cells_goes_to_the_next_cells_start() -> None:
    text, doc = _doc()
    y = text.index("print(b)")
    [edit] = map_to_cells([Edit(y, y, "x = 0\n")], doc.segments, doc.separator_mark).edits
    assert (edit.cell_id, edit.start) == ("y", 0)


def test_a_thousand_cells_within_the_budget() -> None:
    above = [ContextCell(cell_type="code", source=f"v{i} = {i}\n" * 3, cell_id=f"a{i}") for i in range(500)]
    below = [ContextCell(cell_type="code", source=f"w{i} = {i}\n" * 3, cell_id=f"b{i}") for i in range(500)]
    doc = notebook_document("own = 1\n", 0, above, below, "python", "{comment} %% [{n}]{run}")
    assert len(doc.text) <= NOTEBOOK_CHARS
    # nearest first on both sides, in notebook order
    assert "v499 = 499" in doc.text and "w0 = 0" in doc.text and "v0 = 0" not in doc.text
    assert doc.text.index("v499") < doc.text.index("own = 1") < doc.text.index("w0 =")
    above_n, below_n = doc.left_out
    assert above_n + below_n > 700 and abs(above_n - below_n) <= 1
    assert "left out of the notebook document" in doc.notes[0]
