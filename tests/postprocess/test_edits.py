"""Cleaning for edit predictions (postprocess/edits.py): one row per case of the table below."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from jupyter_codecomplete.postprocess import Edit, apply_edits, clean_edits, diff_edits, implausible_fix

DOC = (
    "import math\n"
    "\n"
    "def area(radius):\n"
    "    r2 = r * r\n"
    "    full = math.pi * r2\n"
    "    print(r, full)\n"
    "    return full\n"
    "\n"
    "area(2)\n"
)
REGION = (DOC.index("def area"), DOC.index("\narea(2)") + 1)  # the function and the blank line
CURRENT = DOC[REGION[0] : REGION[1]]
RENAMED = CURRENT.replace("r * r", "radius * radius").replace("print(r,", "print(radius,")


@dataclass
class Case:
    name: str
    rewrite: str
    # the document after the edits, or None: no edit; and a word the note must hold
    result: str | None
    note: str = ""
    language: str | None = "python"


CASES = [
    Case("rename follows on the lines below", RENAMED, DOC.replace(CURRENT, RENAMED)),
    Case("the same text is no edit", CURRENT, None),
    Case("the final line break is kept", RENAMED[:-2], DOC.replace(CURRENT, RENAMED[:-1])),
    Case(
        "lines copied from above and below are taken off",
        "import math\n\n" + RENAMED + "area(2)\n",
        DOC.replace(CURRENT, RENAMED),
    ),
    Case(
        "the whole cell rewritten: only the region changes",
        DOC.replace(CURRENT, RENAMED),
        DOC.replace(CURRENT, RENAMED),
    ),
    Case("far longer than the region: none", RENAMED + "x = 1\n" * 6000, None, "far more"),
    Case(
        "the whole cell rewritten with changes outside the region: none",
        "import math\nimport os\n\n" + RENAMED + "area(3)\n",
        None,
        "outside",
    ),
    Case("emptying the region: none", "\n\n", None, "empty"),
    Case(
        "an edit that breaks the syntax is left out, the good one kept",
        RENAMED.replace("def area(radius):", "def area(radius:"),
        DOC.replace(CURRENT, RENAMED),
        "break the syntax",
    ),
    Case(
        "a document that does not parse yet is not held to the guard",
        RENAMED.replace("def area(radius):", "def area(radius:"),
        DOC.replace(CURRENT, RENAMED.replace("def area(radius):", "def area(radius:")),
        language=None,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_clean_edits(case: Case) -> None:
    cleaned = clean_edits(DOC, *REGION, case.rewrite, language=case.language)
    for e in cleaned.edits:
        assert REGION[0] <= e.start <= e.end <= REGION[1], "an edit outside the region"
    if case.result is None:
        assert cleaned.edits == []
    else:
        assert apply_edits(DOC, cleaned.edits) == case.result
    if case.note:
        assert any(case.note in n for n in cleaned.notes), cleaned.notes


def test_a_rename_is_small_edits_not_a_rewrite() -> None:
    edits = clean_edits(DOC, *REGION, RENAMED, language="python").edits
    assert [(e.end - e.start, e.text) for e in edits] == [(5, "radius * radius"), (1, "radius")]


def test_ten_thousand_edits_are_no_edit() -> None:
    doc = "".join(f"v{i} = 0\n" for i in range(10_000))
    rewrite = doc.replace(" = 0", " = 1")
    cleaned = clean_edits(doc, 0, len(doc), rewrite, language="python")
    assert cleaned.edits == []
    assert any("limit" in n for n in cleaned.notes)


def test_a_pure_insertion_at_the_cursor_is_one_empty_span_edit() -> None:
    cursor = DOC.index("return full") + len("return full")
    rewrite = CURRENT.replace("return full", "return full / 2")
    (edit,) = clean_edits(DOC, *REGION, rewrite, language="python").edits
    assert edit == Edit(cursor, cursor, " / 2")


def test_a_broken_document_stays_broken_only_by_its_own_doing() -> None:
    broken = DOC.replace("area(2)\n", "area(2\n")
    region = (broken.index("def area"), broken.index("\narea(2") + 1)
    rewrite = broken[region[0] : region[1]].replace("r * r", "radius * radius")
    edits = clean_edits(broken, *region, rewrite, language="python").edits
    assert len(edits) == 1


def test_diff_edits_of_inserted_and_deleted_lines() -> None:
    cur = "a\nb\nc\n"
    assert apply_edits(cur, diff_edits(cur, "a\nx\nb\nc\n")) == "a\nx\nb\nc\n"
    assert apply_edits(cur, diff_edits(cur, "a\nc\n")) == "a\nc\n"


def test_cleaning_a_big_region_is_quick() -> None:
    region = "".join(f"value_{i} = compute({i})\n" for i in range(300))
    rewrite = region.replace("compute(7)", "compute_fast(7)")
    t0 = time.perf_counter()
    cleaned = clean_edits(region, 0, len(region), rewrite, language="python")
    assert len(cleaned.edits) == 1
    assert time.perf_counter() - t0 < 2.0  # a bound against a quadratic blow-up, not a benchmark


# A fix after an error: (name, the region's text, its fixed text, the note's start or None: a fix).
FIXES = [
    ("key-typo", 'df["prcie"].sum()', 'df["price"].sum()', None),
    ("missing-colon", "for x in xs", "for x in xs:", None),
    ("name-typo", "prnt(total)", "print(total)", None),
    ("comment-block-kept", '# KeyError\ndf["prcie"].sum()', '# KeyError\ndf["price"].sum()', None),
    ("went-on-with-the-comment", 'df["prcie"].sum()', "# -12000120000000", "The model's fix leaves no code"),
    ("emptied", 'df["prcie"].sum()', "", "The model's fix leaves no code"),
    ("another-line", 'df["prcie"].sum()', "import os", "The model's fix rewrites the line"),
]


@pytest.mark.parametrize(("name", "old", "new", "note"), FIXES, ids=[f[0] for f in FIXES])
def test_a_fix_changes_the_line_it_does_not_replace_it(
    name: str, old: str, new: str, note: str | None
) -> None:
    doc = "import pandas as pd\n" + old + "\nprint(1)\n"
    start = doc.index(old) if old else len("import pandas as pd\n")
    edits = diff_edits(old, new, start)
    got = implausible_fix(doc, (start, start + len(old)), edits, "python")
    assert (got is None) if note is None else (got is not None and got.startswith(note)), got


def test_a_fix_past_the_line_is_refused() -> None:
    doc = 'df["prcie"].sum()\nprint(1)\n'
    got = implausible_fix(doc, (0, 17), [Edit(18, 26, "print(2)")], "python")
    assert got is not None and "past the line" in got
