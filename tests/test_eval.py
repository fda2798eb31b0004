"""``jupyter codecomplete eval``: task sampling, scoring, configurations, and end-to-end runs.

The end-to-end runs go through the real engine: against a scripted OpenAI-format server (two config
files compared in one run) and against the embedded demo model (a configuration and its variant
without notebook context).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.cli import main
from jupyter_codecomplete.completion import BaseInlineCompletionHandler
from jupyter_codecomplete.evaluation import (
    EvalConfig,
    apply_variant,
    config_from_json,
    edit_similarity,
    find_documents,
    levenshtein,
    normalize,
    percentile,
    run_config,
    sample_tasks,
    score,
)
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig

CODE = '''"""A module."""

import math


def area(radius):
    """The area of a circle."""
    return math.pi * radius ** 2


class Shape:
    def __init__(self, name):
        self.name = name
        self.sides = 0

    def describe(self):
        if self.sides:
            return f"{self.name} with {self.sides} sides"
        return self.name
'''


def notebook(*cells: tuple[str, str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": t, "metadata": {}, "source": s, **({"outputs": []} if t == "code" else {})}
                for t, s in cells
            ],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "shapes.py").write_text(CODE)
    (src / "analysis.ipynb").write_text(
        notebook(
            ("markdown", "# Totals\nAdd the numbers up."),
            ("code", "import statistics\nnumbers = [3, 1, 4, 1, 5, 9, 2, 6]\n"),
            (
                "code",
                "def total(values):\n    result = 0\n    for v in values:\n"
                "        result += v\n    return result\n",
            ),
            ("code", "print(total(numbers), statistics.mean(numbers))\n"),
        )
    )
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "junk.py").write_text("ignored_line = 1\n")
    (src / "notes.txt").write_text("not code\n")
    return src


# -------------------------------------------------------------------------------------- sampling


def test_documents_are_files_and_notebook_code_cells(folder: Path) -> None:
    docs = find_documents(str(folder))
    assert [d.path for d in docs] == [
        "analysis.ipynb#cell1",
        "analysis.ipynb#cell2",
        "analysis.ipynb#cell3",
        "pkg/shapes.py",
    ]
    cell = docs[1]
    assert cell.text.startswith("def total(values):")
    assert [c.cell_type for c in cell.cells_above] == ["markdown", "code"]
    assert cell.cells_above[1].source.startswith("import statistics")
    assert [c.source for c in cell.cells_below] == ["print(total(numbers), statistics.mean(numbers))\n"]
    assert docs[3].cells_above == [] and docs[3].cells_below == []


def test_tasks_cut_the_real_text_at_the_cursor(folder: Path) -> None:
    docs = {d.path: d for d in find_documents(str(folder))}
    tasks = sample_tasks(list(docs.values()), samples=50, seed=3)
    assert {t.kind for t in tasks} == {"next_line", "span", "block"}
    for t in tasks:
        assert t.prefix + t.target + t.suffix == docs[t.path].text
        assert t.target.strip()
        if t.kind != "span":  # a span may start or end at a space
            assert t.target == t.target.strip()
        line_start = t.prefix.rfind("\n") + 1
        line = docs[t.path].text[line_start:].split("\n", 1)[0]
        assert t.column == len(t.prefix) - line_start
        assert t.line == t.prefix.count("\n") + 1
        if t.kind == "next_line":  # the rest of the line after its indentation
            assert t.prefix[line_start:] == line[: len(line) - len(line.lstrip())]
            assert t.suffix.startswith("\n") or t.suffix == ""
            assert "\n" not in t.target
        elif t.kind == "span":  # inside one line, never all of its content
            assert "\n" not in t.target and 3 <= len(t.target) < len(line.strip())
        else:  # a block body after a line ending with ':'
            header = t.prefix[:line_start].rstrip("\n").rsplit("\n", 1)[-1]
            assert header.rstrip().endswith(":")
            assert t.prefix[line_start:].strip() == "" and len(t.prefix[line_start:]) > 0
            body_lines = t.target.split("\n")[1:]
            indent = len(t.prefix) - line_start
            assert all(not ln.strip() or ln.startswith(" " * indent) for ln in body_lines)
            assert not t.suffix.split("\n", 2)[1:2] or not t.suffix.split("\n")[1].startswith(
                " " * (indent + 1)
            )


def test_block_task_is_the_whole_body(folder: Path) -> None:
    docs = find_documents(str(folder))
    blocks = sample_tasks(docs, samples=100, seed=0, kinds=["block"])
    total = next(t for t in blocks if t.prefix.endswith("def total(values):\n    "))
    assert total.target == "result = 0\n    for v in values:\n        result += v\n    return result"
    assert total.suffix == "\n"
    assert [c.cell_type for c in total.cells_above] == ["markdown", "code"]
    describe = next(t for t in blocks if t.prefix.endswith("def describe(self):\n        "))
    assert describe.target.endswith("return self.name")


def test_sampling_is_deterministic_by_seed(folder: Path) -> None:
    docs = find_documents(str(folder))

    def key(seed: int) -> list[tuple[str, str, int, int]]:
        return [(t.kind, t.path, t.line, t.column) for t in sample_tasks(docs, samples=4, seed=seed)]

    assert key(1) == key(1)
    assert key(1) != key(2)
    only = sample_tasks(docs, samples=2, seed=1, kinds=["span"])
    assert [t.kind for t in only] == ["span", "span"]
    with pytest.raises(ValueError, match="unknown task kind"):
        sample_tasks(docs, samples=2, kinds=["paragraph"])


def test_request_carries_the_notebook_context_unless_switched_off(folder: Path) -> None:
    docs = [d for d in find_documents(str(folder)) if d.path == "analysis.ipynb#cell2"]
    task = sample_tasks(docs, samples=1, seed=0, kinds=["next_line"])[0]
    on = task.request(5)
    assert on.number == 5 and on.path == "analysis.ipynb" and on.language == "python"
    assert len(on.cells_above) == 2 and len(on.cells_below) == 1
    off = task.request(5, notebook_context=False)
    assert off.cells_above == [] and off.cells_below == [] and off.prefix == on.prefix


# --------------------------------------------------------------------------------------- metrics


def test_metrics() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3 and levenshtein("abc", "abc") == 0
    assert edit_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)
    assert edit_similarity("", "") == 1.0 and edit_similarity("abc", "") == 0.0
    assert normalize("\n  x = 1   \n\n") == "  x = 1"
    # next_line and span tasks score the first line only; blocks the whole suggestion
    assert score("next_line", "x = 1\ny = 2", "x = 1") == {
        "exact_match": True,
        "edit_similarity": 1.0,
        "empty": False,
    }
    assert score("block", "x = 1\ny = 2", "x = 1")["exact_match"] is False
    assert score("span", "  \n", "abc") == {"exact_match": False, "edit_similarity": 0.0, "empty": True}
    assert percentile([], 50) is None
    assert percentile([10.0], 90) == 10.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([4.0, 1.0, 3.0, 2.0, 5.0], 90) == pytest.approx(4.6)


# --------------------------------------------------------------------------------- configurations


def test_variants_change_one_setting() -> None:
    base = config_from_json('{"backend": "embedded", "max_tokens": 64}')
    assert base.name == "embedded" and base.notebook_context
    named = config_from_json('mine={"backend": "openai", "base_url": "http://127.0.0.1:1/v1"}')
    assert named.name == "mine"
    v = apply_variant(base, "short=notebook_context:off, max_tokens:16, style:raw")
    assert v.name == "short" and v.notebook_context is False
    assert v.models["completion"].max_tokens == 16 and v.models["completion"].style == "raw"
    assert v.models["completion"].backend == "embedded"
    assert base.models["completion"].max_tokens == 64  # the base is untouched
    for bad in ("nameless", "x=colour:blue", "x=notebook_context:maybe", "x=max_tokens"):
        with pytest.raises(ValueError):
            apply_variant(base, bad)


class Oracle(BaseInlineCompletionHandler):
    """Answers each task with its real text (known by prefix), and records what it was sent."""

    def __init__(self, answers: dict[str, str]) -> None:
        super().__init__(settings={})
        self.answers = answers
        self.requests: list[InlineCompletionRequest] = []

    async def suggest(self, request: InlineCompletionRequest, notes: list[str]) -> AsyncIterator[str]:
        self.requests.append(request)
        answer = self.answers.get(request.prefix, "")
        for i in range(0, len(answer), 3):
            yield answer[i : i + 3]


async def test_run_config_scores_every_task_and_sends_context_as_configured(folder: Path) -> None:
    tasks = sample_tasks(find_documents(str(folder)), samples=3, seed=0)
    oracle = Oracle({t.prefix: t.target for t in tasks[:-1]})  # the last task gets nothing
    cfg = EvalConfig("oracle", {"completion": ModelConfig(backend="embedded")}, notebook_context=False)
    run = await run_config(cfg, tasks, handler=oracle)
    assert len(oracle.requests) == len(tasks) + 1  # a warm-up request, then each task
    assert all(not r.cells_above and not r.cells_below for r in oracle.requests)
    results = run["results"]
    assert [r["task"] for r in results] == [t.id for t in tasks]
    assert [r["exact_match"] for r in results] == [True] * (len(tasks) - 1) + [False]
    assert results[-1]["empty"] and results[-1]["error"] is None
    s = run["summary"]
    assert set(s) == {"next_line", "span", "block", "all"}
    assert s["all"]["tasks"] == len(tasks)
    assert s["all"]["exact_match"] == pytest.approx((len(tasks) - 1) / len(tasks))
    assert s["all"]["empty_rate"] == pytest.approx(1 / len(tasks))
    assert s["next_line"]["exact_match"] == 1.0
    assert s["all"]["latency_p50_ms"] >= 0 and s["all"]["latency_p90_ms"] >= s["all"]["latency_p50_ms"]
    assert run["notebook_context"] is False

    with_context = Oracle({})
    await run_config(EvalConfig("ctx", {}, notebook_context=True), tasks, handler=with_context)
    notebook_requests = [r for r in with_context.requests if r.path == "analysis.ipynb"]
    tasks_in_notebook = [t for t in tasks if t.path.startswith("analysis.ipynb")]
    assert len(notebook_requests) == len(tasks_in_notebook)
    assert all(r.cells_above or r.cells_below for r in notebook_requests)


# ------------------------------------------------------------------------------------- end to end

LINES = [f"value_{i} = compute({i})" for i in range(1, 9)]


@pytest.fixture
def scripted() -> Iterator[OpenAIUpstream]:
    # A completion-only prompt (style "raw") gets the real next line; a fill-in-the-middle prompt
    # gets a wrong answer: so the two configurations must score differently.
    rules: list[dict[str, Any]] = [{"contains": "<|fim_prefix|>", "completion": "nothing_here()\n"}]
    rules += [{"contains": LINES[k - 1], "completion": LINES[k] + "\n"} for k in range(len(LINES) - 1, 0, -1)]
    up = OpenAIUpstream(UpstreamConfig(rules=rules, default=LINES[0] + "\n"))
    up.start()
    yield up
    up.stop()


def test_eval_compares_two_config_files(
    tmp_path: Path, scripted: OpenAIUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "code"
    src.mkdir()
    (src / "values.py").write_text("\n".join(LINES) + "\n# end\n")
    for name, style in (("completion_only", "raw"), ("fim", "qwen2.5-coder")):
        (tmp_path / f"{name}.py").write_text(
            "c.CodeCompleteApp.completion_model = "
            + repr({"backend": "openai", "base_url": scripted.base_url, "model": "m", "style": style})
            + "\n"
        )
    out = tmp_path / "report.json"
    rc = main(
        [
            "eval", str(src), "--config", str(tmp_path / "completion_only.py"),
            "--config", str(tmp_path / "fim.py"), "--samples", "4", "--kinds", "next_line",
            "--seed", "7", "--json", str(out), "--quiet",
        ]
    )  # fmt: skip
    assert rc == 0
    report = json.loads(out.read_text())
    assert report["seed"] == 7 and report["kinds"] == ["next_line"]
    assert len(report["tasks"]) == 4
    raw, fim = report["configurations"]
    assert (raw["name"], fim["name"]) == ("completion_only", "fim")
    assert raw["models"]["completion"]["style"] == "raw"
    assert raw["summary"]["all"]["exact_match"] == 1.0
    assert [r["suggestion"] for r in fim["results"]] == ["nothing_here()"] * 4
    assert fim["summary"]["all"]["exact_match"] == 0.0
    targets = [t["target"] for t in report["tasks"]]
    assert fim["summary"]["all"]["edit_similarity"] == pytest.approx(
        sum(edit_similarity("nothing_here()", t) for t in targets) / 4
    )
    table = capsys.readouterr().out
    assert "| completion_only | next_line |" in table and "| fim " in table and "100.0%" in table


def test_eval_honours_the_configured_suggestion_bounds(tmp_path: Path, scripted: OpenAIUpstream) -> None:
    # the same model, once with the server's suggestion bound: eval cuts where the editor would
    src = tmp_path / "code"
    src.mkdir()
    (src / "values.py").write_text("\n".join(LINES) + "\n# end\n")
    model = {"backend": "openai", "base_url": scripted.base_url, "model": "m", "style": "raw"}
    (tmp_path / "free.py").write_text(f"c.CodeCompleteApp.completion_model = {model!r}\n")
    (tmp_path / "bounded.py").write_text(
        f"c.CodeCompleteApp.completion_model = {model!r}\nc.CodeCompleteApp.max_suggestion_chars = 8\n"
    )
    out = tmp_path / "report.json"
    rc = main(
        [
            "eval", str(src), "--config", str(tmp_path / "free.py"), "--config", str(tmp_path / "bounded.py"),
            "--samples", "3", "--kinds", "next_line", "--json", str(out), "--quiet",
        ]
    )  # fmt: skip
    assert rc == 0
    free, bounded = json.loads(out.read_text())["configurations"]
    full = [r["suggestion"] for r in free["results"]]
    assert all(len(text) > 8 for text in full), full
    assert [r["suggestion"] for r in bounded["results"]] == [text[:8] for text in full]


def test_eval_reports_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.py").write_text("x = compute(1)\n")
    assert main(["eval", str(tmp_path), "--model-json", '{"backend": "embedded"}', "--kinds", "lines"]) == 2
    assert main(["eval", str(tmp_path), "--model-json", '{"backend": "embedded"}', "--variant", "x"]) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["eval", str(empty), "--model-json", '{"backend": "embedded"}']) == 2
    assert "no tasks" in capsys.readouterr().err


def test_eval_end_to_end_with_the_embedded_model(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval.json"
    rc = main(
        [
            "eval", str(folder), "--model-json", '{"backend": "embedded", "max_tokens": 32}',
            "--variant", "no-notebook=notebook_context:off", "--samples", "2", "--json", str(out), "--quiet",
        ]
    )  # fmt: skip
    assert rc == 0
    report = json.loads(out.read_text())
    assert [t["kind"] for t in report["tasks"]] == ["next_line"] * 2 + ["span"] * 2 + ["block"] * 2
    names = [c["name"] for c in report["configurations"]]
    assert names == ["embedded", "no-notebook"]
    for run in report["configurations"]:
        assert len(run["results"]) == 6
        assert set(run["summary"]) == {"next_line", "span", "block", "all"}
        s = run["summary"]["all"]
        assert s["tasks"] == 6 and s["errors"] == 0, run["results"]
        assert 0.0 <= s["edit_similarity"] <= 1.0 and 0.0 <= s["empty_rate"] <= 1.0
        assert s["latency_p90_ms"] >= s["latency_p50_ms"] > 0
    assert report["configurations"][1]["notebook_context"] is False
    table = capsys.readouterr().out
    assert table.count("| embedded ") == 4 and table.count("| no-notebook ") == 4
