"""Golden cases of edit predictions across cells: every next-edit format's prompt for a notebook
with history and execution order and for an error fix, the fill-in-the-middle request of an error
fix (``tests/golden/notebook_prompts/``), and answers mapped back to cells, the bad ones included
(``tests/golden/cell_answers/``, expected edits written by hand; a case's ``bounds`` are the
bounds per cell and in all it is mapped with). One case per file;
``tests/prompting/make_notebook_golden.py`` writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.completion.notebook_edits import fim_fill_request, notebook_prompt_request
from jupyter_codecomplete.postprocess import clean_edits
from jupyter_codecomplete.postprocess.cells import map_to_cells
from jupyter_codecomplete.prompting import BUILTIN_STYLES, build_edit_prompt, parse_edit_answer
from jupyter_codecomplete.prompting.tracebacks import error_line
from jupyter_codecomplete.protocol import EditPredictionRequest

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PROMPTS = sorted((GOLDEN / "notebook_prompts").glob("*--*.json"))
ANSWERS = sorted((GOLDEN / "cell_answers").glob("*.json"))
EDIT_STYLES = sorted(n for n, s in BUILTIN_STYLES.items() if s.edit is not None)


def _load(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _request(fields: dict[str, Any]) -> EditPredictionRequest:
    return EditPredictionRequest.model_validate({"type": "edit_prediction", **fields})


@pytest.mark.parametrize("path", [p for p in PROMPTS if not p.stem.startswith("fim")], ids=lambda p: p.stem)
def test_golden_notebook_prompt(path: Path) -> None:
    case = _load(path)
    request = _request(case["request"])
    style = BUILTIN_STYLES[case["style"]]
    line = error_line(request.error, request.text) if request.error is not None else None
    doc, prompt_request = notebook_prompt_request(request, style, line, [])
    built = build_edit_prompt(prompt_request, style)
    exp = case["expected"]
    assert built.prompt == exp["prompt"]
    assert built.messages == exp["messages"]
    assert (built.region_start, built.region_end) == (exp["region_start"], exp["region_end"])
    assert [*doc.notes, *built.notes] == exp["notes"]


def test_golden_fim_error_request() -> None:
    case = _load(GOLDEN / "notebook_prompts" / "fim--error.json")
    request = _request(case["request"])
    line = error_line(request.error, request.text) if request.error is not None else None
    doc, prompt_request = notebook_prompt_request(request, BUILTIN_STYLES["edit-chat"], line, [])
    assert prompt_request.region is not None
    inline, (start, end, old) = fim_fill_request(request, doc, prompt_request.region)
    exp = case["expected"]
    assert (inline.prefix, inline.suffix, [start, end], old) == (
        exp["prefix"],
        exp["suffix"],
        exp["line"],
        exp["old"],
    )


@pytest.mark.parametrize("name", EDIT_STYLES)
def test_every_next_edit_format_has_its_notebook_cases(name: str) -> None:
    cases = {_load(p)["case"] for p in PROMPTS}
    assert {f"{name}--notebook", f"{name}--error"} <= cases


def test_what_the_prompts_show() -> None:
    for path in PROMPTS:
        case = _load(path)
        text = case["expected"].get("prompt") or case["expected"]["prefix"]
        if "--notebook" in path.stem:
            # execution order and "edited since" in the separators, the history
            assert "# %% [6] In [2], edited since\ndf.head()" in text
            assert "sales = pd.DataFrame" in text and "import pandas as pd" in text
        else:
            assert "# Error: In [4], line 2 raised KeyError: 'prcie'" in text
            assert "\x1b" not in text and '"price", "qty"' in text


@pytest.mark.parametrize("path", ANSWERS, ids=lambda p: p.stem)
def test_golden_cell_answer(path: Path) -> None:
    case = _load(path)
    request = _request(case["request"])
    style = BUILTIN_STYLES["edit-chat"]
    assert style.edit is not None
    doc, prompt_request = notebook_prompt_request(request, style, None, [])
    built = build_edit_prompt(prompt_request, style)
    parsed = parse_edit_answer(case["answer"], style.edit)
    assert parsed.kind == "rewrite"
    cleaned = clean_edits(
        doc.text,
        built.region_start,
        built.region_end,
        parsed.text,
        language="python",
        before=built.before,
        after=built.after,
    )
    mapped = map_to_cells(cleaned.edits, doc.segments, doc.separator_mark, **case.get("bounds", {}))
    assert [[e.cell_id, e.start, e.end, e.text] for e in mapped.edits] == case["edits"]
    assert mapped.notes == case["notes"]
