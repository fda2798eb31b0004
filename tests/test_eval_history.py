"""``jupyter codecomplete eval --fim-history``: inline completions of the next change's text with
and without the recent edit as a comment block, on a real git repository's history, answered by a
real scripted upstream (it completes the rename only when the prompt shows the edit)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitrepo import git

from jupyter_codecomplete.cli import main
from jupyter_codecomplete.evaluation.edits import edit_tasks_from_git
from jupyter_codecomplete.evaluation.history import history_block, history_task
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig

BEFORE = (
    "import math\n\n\n"
    "def total(items):\n"
    "    s = 0\n"
    "    for p in items:\n"
    "        s += p\n"
    "    return s / len(items)\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    (r / "shop.py").write_text(BEFORE)
    git(r, "add", "-A")
    git(r, "commit", "-qm", "first")
    (r / "shop.py").write_text(BEFORE.replace("items", "prices"))
    git(r, "commit", "-qam", "rename")
    return r


def test_the_task_is_the_next_change_and_the_block_its_lines(repo: Path) -> None:
    [edit_task] = edit_tasks_from_git(str(repo), samples=5)
    task = history_task(edit_task)
    assert task is not None
    assert (
        task.prefix.endswith("    for p in ") and task.suffix.startswith(":\n") and task.expected == "prices"
    )
    block = history_block(task.recent_diff, "#", "    ")
    assert block == "    # The last edit:\n    # -def total(items):\n    # +def total(prices):\n"


@pytest.fixture
def scripted() -> Iterator[OpenAIUpstream]:
    rules = [
        {"contains": "# +def total(prices):\n    for p in ", "completion": "prices"},
        {"contains": "    for p in ", "completion": "items"},
    ]
    with OpenAIUpstream(UpstreamConfig(rules=rules, default="")) as up:
        yield up


def test_eval_fim_history_compares_both(
    repo: Path, scripted: OpenAIUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "history.json"
    model = scripted.model_config(style="raw")
    rc = main(
        [
            "eval",
            str(repo),
            "--fim-history",
            "--model-json",
            "m=" + json.dumps(model),
            "--json",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    runs = {r["variant"]: r["summary"] for r in json.loads(out.read_text())["runs"]}
    assert runs["with the edit as a comment"]["right"] == 1.0
    assert runs["without the edit"]["right"] == 0.0
    assert "with the edit as a comment" in capsys.readouterr().out
