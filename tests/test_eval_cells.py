"""``jupyter codecomplete eval --cells``: edits across cells and fixes after an error, on a real
notebook, the error fixes run in a real ipykernel, answered by a real scripted upstream in the
generic chat format (it renames where the history shows the rename, fixes the typo where the
prompt shows the NameError and the kernel's candidates)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_codecomplete.cli import main
from jupyter_codecomplete.evaluation.cells import (
    cross_cell_tasks,
    find_notebooks,
    rename_tokens,
    signature_tasks,
)
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig, edit_chat_rewrite

CELLS = [
    "import json\n",
    'prices = {"apple": 1.5, "pear": 2.0}\n',
    "total = sum(prices.values())\n",
    'print(total, len(prices), "prices")\n',
]


def _notebook(cells: list[str]) -> dict[str, object]:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"language_info": {"name": "python"}},
        "cells": [
            {
                "cell_type": "code",
                "id": f"c{i}",
                "source": s,
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            }
            for i, s in enumerate(cells)
        ]
        + [{"cell_type": "markdown", "id": "m", "source": "# notes", "metadata": {}}],
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "shop.ipynb").write_text(json.dumps(_notebook(CELLS)))
    return tmp_path / "nb"


def test_rename_tasks_rename_names_not_strings(folder: Path) -> None:
    assert (
        rename_tokens('x = prices\ny = "prices"\nz = a.prices\n', "prices", "p2")
        == 'x = p2\ny = "prices"\nz = a.prices\n'
    )
    tasks = {t.name: t for t in cross_cell_tasks(find_notebooks(str(folder)), 10)}
    assert set(tasks) == {"prices", "total"}
    t = tasks["prices"]
    assert t.text == 'prices_v2 = {"apple": 1.5, "pear": 2.0}\n' and t.cell_id == "c1"
    assert t.expected == {
        "c2": "total = sum(prices_v2.values())\n",
        "c3": 'print(total, len(prices_v2), "prices")\n',
    }
    assert "-prices = " in t.recent_diff and "+prices_v2 = " in t.recent_diff


@pytest.fixture
def scripted() -> Iterator[OpenAIUpstream]:
    rules = [
        edit_chat_rewrite(["+prices_v2 = "], [[r"\bprices\b(?!\")", "prices_v2"]]),
        edit_chat_rewrite(["+total_v2 = "], [[r"\btotal\b", "total_v2"]]),
        edit_chat_rewrite(["NameError", "The kernel completes pr with:"], [["prcies", "prices"]]),
    ]
    with OpenAIUpstream(UpstreamConfig(rules=rules, default="<REWRITE>\n</REWRITE>")) as up:
        yield up


def test_eval_cells_prints_both_tables(
    folder: Path, scripted: OpenAIUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = {"backend": "openai-chat", "base_url": scripted.base_url, "model": "m", "style": "edit-chat"}
    out = tmp_path / "cells.json"
    rc = main(
        [
            "eval", str(folder), "--cells", "--kernel", "python3", "--model-json", "chat=" + json.dumps(chat),
            "--json", str(out), "--quiet",
        ]
    )  # fmt: skip
    assert rc == 0
    report = json.loads(out.read_text())
    runs = {(r["kind"], r["variant"]): r["summary"] for r in report["runs"]}
    assert report["tasks"] == {"cross_cell": 2, "signature": 0, "error_fix": 2}
    # the rename follows only when the history shows it
    assert runs[("cross_cell", "with history")]["right"] == 1.0
    assert runs[("cross_cell", "with history")]["cells_right"] == 1.0
    assert runs[("cross_cell", "without history")]["right"] == 0.0
    # the typo is fixed, on its line, only with the kernel's candidates
    assert runs[("error_fix", "with kernel candidates")]["right"] == 1.0
    assert runs[("error_fix", "with kernel candidates")]["on_the_line"] == 1.0
    assert runs[("error_fix", "without kernel candidates")]["right"] == 0.0
    assert all(s["wrong_place"] == 0 and s["errors"] == 0 for s in runs.values())
    # what reached the model for an error fix: the real kernel's traceback
    prompts = ["\n".join(m["content"] for m in r.body["messages"]) for r in scripted.records]
    assert any("NameError: name 'prcies' is not defined" in p and "Cell In[" in p for p in prompts)
    table = capsys.readouterr().out
    assert "Cross-cell edits" in table and "Fixes after an error" in table and "100.0%" in table


def test_eval_cells_without_notebooks_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path), "--cells", "--model-json", '{"backend": "embedded"}']) == 2
    assert "--cells" in capsys.readouterr().err


SIGNATURE_CELLS = [
    "threshold = 10\n",
    "def keep(rows, limit):\n    return [r for r in rows if r > threshold][:limit]\n",
    "big = keep([1, 20, 30], 5)\n",
    "top = keep(\n    [40],\n    limit=1\n)\n",
    "print(big, top)\n",
]


@pytest.fixture
def signature_folder(tmp_path: Path) -> Path:
    (tmp_path / "sig").mkdir()
    (tmp_path / "sig" / "keep.ipynb").write_text(json.dumps(_notebook(SIGNATURE_CELLS)))
    return tmp_path / "sig"


def test_signature_tasks_follow_a_parameter_to_its_calls(signature_folder: Path) -> None:
    tasks = {t.name: t for t in signature_tasks(find_notebooks(str(signature_folder)), 10)}
    # rows is never passed by keyword: no task renames it; limit is, in c3
    assert set(tasks) == {"keep(limit -> limit_v2)", "keep(+threshold)"}
    renamed = tasks["keep(limit -> limit_v2)"]
    assert renamed.kind == "signature" and renamed.cell_id == "c1"
    assert renamed.text == (
        "def keep(rows, limit_v2):\n    return [r for r in rows if r > threshold][:limit_v2]\n"
    )
    assert renamed.expected == {"c3": "top = keep(\n    [40],\n    limit_v2=1\n)\n"}
    assert renamed.text[: renamed.cursor].endswith("limit_v2")
    added = tasks["keep(+threshold)"]
    assert added.text.startswith("def keep(rows, limit, threshold):\n")
    assert added.text[: added.cursor].endswith(", threshold")
    # every call gets the new argument, a call over several lines included (after its last one)
    assert added.expected == {
        "c2": "big = keep([1, 20, 30], 5, threshold=threshold)\n",
        "c3": "top = keep(\n    [40],\n    limit=1, threshold=threshold\n)\n",
    }
    assert "+def keep(rows, limit, threshold):" in added.recent_diff


def test_no_signature_task_for_a_call_it_cannot_follow(tmp_path: Path) -> None:
    # a call with *args (the parameters cannot be told apart)
    cells = ["def scale(x, k):\n    return x * k\n", "a = scale(1, k=2)\n", "b = scale(*args)\n"]
    (tmp_path / "s.ipynb").write_text(json.dumps(_notebook(cells)))
    assert signature_tasks(find_notebooks(str(tmp_path)), 10) == []
    # a call ending in a comma: where the new argument goes is a matter of layout, no task adds one
    cells = ["k = 2\n", "def scale(x):\n    return x * k\n", "a = scale(\n    1,\n)\n"]
    (tmp_path / "s.ipynb").write_text(json.dumps(_notebook(cells)))
    assert signature_tasks(find_notebooks(str(tmp_path)), 10) == []


def test_eval_cells_scores_signature_changes(
    signature_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = [
        edit_chat_rewrite(["+def keep(rows, limit_v2):"], [[r"\blimit=", "limit_v2="]]),
        edit_chat_rewrite(
            ["+def keep(rows, limit, threshold):"],
            [[r"(?<!def )\bkeep\(([^()]*?)(\s*)\)", r"keep(\1, threshold=threshold\2)"]],
        ),
    ]
    with OpenAIUpstream(UpstreamConfig(rules=rules, default="<REWRITE>\n</REWRITE>")) as up:
        chat = {"backend": "openai-chat", "base_url": up.base_url, "model": "m", "style": "edit-chat"}
        out = tmp_path / "cells.json"
        argv = ["eval", str(signature_folder), "--cells", "--model-json", "chat=" + json.dumps(chat)]
        assert main([*argv, "--json", str(out), "--quiet"]) == 0
    report = json.loads(out.read_text())
    assert report["tasks"]["signature"] == 2
    runs = {(r["kind"], r["variant"]): r["summary"] for r in report["runs"]}
    # the calls follow the new signature only when the history shows the change
    assert runs[("signature", "with history")]["right"] == 1.0
    assert runs[("signature", "with history")]["cells_right"] == 1.0
    assert runs[("signature", "without history")]["right"] == 0.0
    assert all(s["wrong_place"] == 0 and s["errors"] == 0 for s in runs.values())
    assert "Signature changes" in capsys.readouterr().out
