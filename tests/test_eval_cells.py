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
from jupyter_codecomplete.evaluation.cells import cross_cell_tasks, find_notebooks, rename_tokens
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig
from jupyter_codecomplete.testing.edit_rules import edit_chat_rewrite

CELLS = [
    "import json\n",
    'prices = {"apple": 1.5, "pear": 2.0}\n',
    "total = sum(prices.values())\n",
    'print(total, len(prices), "prices")\n',
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    nb = {
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
            for i, s in enumerate(CELLS)
        ]
        + [{"cell_type": "markdown", "id": "m", "source": "# notes", "metadata": {}}],
    }
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "shop.ipynb").write_text(json.dumps(nb))
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
    assert report["tasks"] == {"cross_cell": 2, "error_fix": 2}
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
