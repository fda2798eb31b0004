"""The line a traceback names (``prompting/tracebacks.py``), one golden file per traceback
(tests/golden/tracebacks/: real ipykernel output with its colour codes, IPython 7's form, R and
Julia, another run's traceback, a cell changed since it ran, a traceback cut before its frames),
and how a traceback is cleaned before a model sees it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.prompting.tracebacks import (
    MAX_TRACEBACK_LINES,
    clean_traceback,
    error_comment,
    error_line,
)
from jupyter_codecomplete.protocol import CellError, KernelCandidate, KernelCandidates

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "tracebacks"
CASES = sorted(GOLDEN.glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_the_line_a_traceback_names(path: Path) -> None:
    case = _load(path)
    found = error_line(CellError(**case["error"]), case["cell"])
    if case["line"] is None:
        assert found is None
    else:
        assert found is not None and found.index == case["line"]
        assert case["cell"][found.start : found.end] == case["cell"].split("\n")[case["line"]]


def test_the_golden_set_has_both_kinds() -> None:
    lines = [_load(p)["line"] for p in CASES]
    assert None in lines and any(n is not None for n in lines) and len(CASES) >= 10


def test_without_an_execution_count_a_single_cell_is_enough() -> None:
    case = _load(GOLDEN / "ipython8-keyerror.json")
    error = CellError(**{**case["error"], "execution_count": None})
    assert error_line(error, case["cell"]) is not None
    two = error.model_copy(update={"traceback": error.traceback + "\nCell In[9], line 1\n----> 1 x = 1\n"})
    assert error_line(two, case["cell"]) is None  # two cells named: which is this one?


def test_cleaned_for_the_model_colours_secrets_and_size() -> None:
    case = _load(GOLDEN / "ipython8-keyerror.json")
    tb = case["error"]["traceback"]
    assert "\x1b[" in tb  # the real output is coloured
    secret = "sk-test-SECRET-123"
    error = CellError(
        ename="KeyError",
        evalue="'prcie'",
        traceback=tb + "\n".join(f"frame {i} token={secret}" for i in range(50)),
        execution_count=2,
    )
    lines = clean_traceback(error, [secret])
    text = "\n".join(lines)
    assert "\x1b" not in text and secret not in text and "***" in text
    assert len(lines) <= MAX_TRACEBACK_LINES + 1 and all(len(line) <= 160 for line in lines)
    found = error_line(CellError(**case["error"]), case["cell"])
    assert found is not None
    block = error_comment(
        error,
        found,
        "#",
        candidates=KernelCandidates(expression="d[", items=[KernelCandidate(text='"price"')]),
        candidates_label="{comment} The kernel completes {expression} with:",
        secrets=[secret],
    )
    assert all(line.startswith("#") for line in block.splitlines())
    assert "line 2 raised KeyError: 'prcie'" in block and '# "price"' in block
    assert secret not in block


def test_the_longest_traceback_of_headers_names_no_wrong_line() -> None:
    # the longest the protocol lets through, every frame naming a line that reads otherwise
    junk = ("Cell In[1], line 1\n----> 1 x\n" * 2000)[-20_000:]  # the end, as the client keeps it
    assert error_line(CellError(ename="E", traceback=junk, execution_count=1), "y = 1\n") is None
    assert error_line(CellError(ename="E", traceback=junk, execution_count=1), "x\n") is not None
