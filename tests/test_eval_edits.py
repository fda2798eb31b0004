"""``jupyter codecomplete eval --edits``: edit predictions scored on a real git repository's history,
answered by a real scripted upstream in the generic chat format."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitrepo import git

from jupyter_codecomplete.cli import main
from jupyter_codecomplete.evaluation.edits import edit_tasks_from_git, task_from_change
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig

BEFORE = (
    "import math\n\n\n"
    "def total(items):\n"
    "    s = 0\n"
    "    for p in items:\n"
    "        s += p\n"
    "    print(len(items))\n"
    "    return s / len(items)\n"
)
AFTER = BEFORE.replace("items", "prices")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    (r / "shop.py").write_text(BEFORE)
    (r / "notes.txt").write_text("not python\n")
    git(r, "add", "-A")
    git(r, "commit", "-qm", "first")
    (r / "shop.py").write_text(AFTER)
    (r / "notes.txt").write_text("changed\n")
    git(r, "commit", "-qam", "rename")
    return r


def test_a_task_is_the_first_change_as_history_and_the_rest_to_predict(repo: Path) -> None:
    [task] = edit_tasks_from_git(str(repo), samples=10)
    assert task.path == "shop.py"
    assert task.text == BEFORE.replace("def total(items)", "def total(prices)")
    assert "-def total(items):" in task.recent_diff and "+def total(prices):" in task.recent_diff
    assert task.expected == AFTER
    assert task.text[task.cursor - len("prices):") : task.cursor] == "prices):"
    start, end = task.region
    assert task.text[start:end].count("items") == 3  # the rest of the rename lies in the region


def test_a_change_in_one_place_is_no_task() -> None:
    assert task_from_change("c", "a.py", "x = 1\ny = 2\n", "x = 3\ny = 2\n") is None


@pytest.fixture
def scripted(repo: Path) -> Iterator[OpenAIUpstream]:
    [task] = edit_tasks_from_git(str(repo), samples=10)
    start, end = task.region
    region_after = task.expected[start : end + len(task.expected) - len(task.text)]
    rules = [
        {
            "contains": "<|editable_region_start|>",
            "completion": "<REWRITE>\n" + region_after + "</REWRITE>",
        }
    ]
    with OpenAIUpstream(UpstreamConfig(rules=rules, default="no")) as up:
        yield up


def test_eval_edits_compares_models_in_one_run(
    repo: Path, scripted: OpenAIUpstream, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {"backend": "openai-chat", "base_url": scripted.base_url, "model": "m", "style": "edit-chat"}
    # the same server, but a prompt format its answers do not fit: no edit
    wrong = {**good, "style": "zeta1", "backend": "openai"}
    out = tmp_path / "edits.json"
    rc = main(
        [
            "eval", str(repo), "--edits", "--model-json", "chat=" + json.dumps(good),
            "--model-json", "zeta=" + json.dumps(wrong), "--json", str(out), "--quiet",
        ]
    )  # fmt: skip
    assert rc == 0
    report = json.loads(out.read_text())
    chat, zeta = report["configurations"]
    assert chat["summary"]["exact_match"] == 1.0
    assert chat["summary"]["chars_saved"] == chat["results"][0]["chars_wanted"] > 0
    assert zeta["summary"]["exact_match"] == 0.0 and zeta["summary"]["chars_saved"] == 0
    assert chat["summary"]["errors"] == 0
    # one row per format: each configuration's row names the format its model was asked in
    assert (chat["summary"]["format"], zeta["summary"]["format"]) == ("edit-chat", "zeta1")
    table = capsys.readouterr().out
    assert "| chat " in table and "| zeta " in table and "100.0%" in table
    assert "| edit-chat " in table and "| zeta1 " in table


def test_eval_edits_without_history_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path), "--edits", "--model-json", '{"backend": "embedded"}']) == 2
    assert "--edits" in capsys.readouterr().err
