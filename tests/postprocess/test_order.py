"""The order of the filters is one list (``order.ORDER``): the pipeline builds from it, the docs table
(docs/postprocessing.md) names the same filters and modules in the same order, and every filter's
module has its test beside the others (``tests/postprocess/test_<module>.py``); the golden cases
run every filter."""

from __future__ import annotations

import re
from pathlib import Path

from jupyter_codecomplete.postprocess import ORDER, PostprocessContext, build_filters
from jupyter_codecomplete.postprocess.order import STAGES

from .golden import load_cases

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "postprocessing.md"
GUARD = "syntax guard"


def table_rows() -> list[tuple[str, str, str]]:
    """(number, filter, module) of each row of the table under "The filters, in order"."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## The filters, in order", 1)[1]
    rows: list[tuple[str, str, str]] = []
    for line in section.split("\n\n", 2)[1].splitlines()[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:4]]
        rows.append((cells[0], cells[1].strip("`"), cells[2].strip("`")))
    return rows


def test_docs_table_is_the_order() -> None:
    rows = table_rows()
    filters = [(name, module) for number, name, module in rows if name != GUARD]
    assert filters == [(step.name, f"{step.module}.py") for step in ORDER]
    numbers = [number for number, name, _ in rows if name != GUARD]
    assert numbers == [str(i) for i in range(1, len(ORDER) + 1)]
    # the syntax guard works between the "shape" filters and the "post" ones
    guard = [name for _, name, _ in rows].index(GUARD)
    first_post = next(i for i, step in enumerate(ORDER) if step.filter.stage == "post")
    assert guard == first_post


def test_stages_follow_each_other_in_the_list() -> None:
    stages = [STAGES.index(step.filter.stage) for step in ORDER]
    assert stages == sorted(stages)


def test_one_module_per_filter_each_with_its_test() -> None:
    modules = [step.module for step in ORDER]
    assert len(set(modules)) == len(modules)
    here = Path(__file__).resolve().parent
    for module in modules:
        assert (here / f"test_{module}.py").is_file(), module
        assert (ROOT / "jupyter_codecomplete" / "postprocess" / f"{module}.py").is_file(), module


def test_the_pipeline_builds_in_the_listed_order() -> None:
    listed = [step.filter for step in ORDER]
    ctx = PostprocessContext(
        language="python",
        prefix="def f():\r\n    x = ",
        suffix="\r\n",
        stop=["<EOT>"],
        leftovers=["<|fim_pad|>", "<a>...</a>"],
        heal=" ",
        multiline=True,
        max_lines=5,
        reject_degenerate=True,
    )
    built = [type(f) for f in build_filters(ctx)]
    assert len(built) >= 15
    positions = [listed.index(cls) for cls in built]
    assert positions == sorted(positions)


def test_the_golden_cases_run_every_filter() -> None:
    """Every filter of the order is built for some golden case (``Degenerate`` only for the demo
    model, which no golden case is: its own test has its table of cases)."""
    built = {type(f) for _, case in load_cases() for f in build_filters(case.context())}
    missing = [step.name for step in ORDER if step.filter not in built]
    assert missing == ["Degenerate"]
