"""``eval`` with what only a notebook knows: saved outputs in the tasks, ``member`` tasks, a real
kernel's candidates (``--kernel``), and variants that switch each off, compared in one run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.cli import main
from jupyter_codecomplete.evaluation import Document, find_documents, sample_tasks, score
from jupyter_codecomplete.evaluation.kernel import candidates_from_reply
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig


def _cell(source: str, outputs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "metadata": {},
        "source": source,
        "outputs": outputs or [],
        "execution_count": None,
    }


NOTEBOOK = {
    "cells": [
        _cell('sales = {"price": 1.0, "qty": 2}\n'),
        _cell(
            "sales",
            [
                {
                    "output_type": "execute_result",
                    "data": {"text/plain": "{'price': 1.0, 'qty': 2}"},
                    "metadata": {},
                },
                {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo="}, "metadata": {}},
                {"output_type": "stream", "name": "stdout", "text": ["loaded\n"]},
                {"output_type": "error", "ename": "KeyError", "evalue": "'prize'", "traceback": ["..."]},
            ],
        ),
        _cell("total = sales['price'] * sales['qty']\nprint(total, sep=' ')\n"),
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    src = tmp_path / "nb"
    src.mkdir()
    (src / "sales.ipynb").write_text(json.dumps(NOTEBOOK))
    return src


def test_cells_above_carry_their_saved_text_outputs(folder: Path) -> None:
    last = find_documents(str(folder))[-1]
    outputs = last.cells_above[1].outputs
    assert [(o.output_type, o.text) for o in outputs] == [
        ("execute_result", "{'price': 1.0, 'qty': 2}"),
        ("stream", "loaded\n"),
        ("error", "KeyError: 'prize'"),
    ]
    first = find_documents(str(folder))[0]
    assert all(not c.outputs for c in first.cells_below)


def test_member_tasks_stop_after_name_dot_bracket_or_call(folder: Path) -> None:
    tasks = sample_tasks(find_documents(str(folder)), samples=10, kinds=["member"])
    assert sorted(t.target for t in tasks) == ["'price'", "'qty'"]
    assert all(t.prefix.endswith("sales[") for t in tasks)
    code = Document(
        path="a.py",
        text="df = pd.read_csv(sep=',')\nn = df.shape  # not df.in_comment\ns = 'x.y'\ndef f(a=1): pass\n",
    )
    assert sorted(t.target for t in sample_tasks([code], samples=10, kinds=["member"])) == [
        "read_csv",
        "sep=",
        "shape",
    ]
    # a member task is scored on the name or key the suggestion starts with
    assert score("member", "'price'] * 2", "'price'")["exact_match"]
    assert not score("member", "'qty']", "'price'")["exact_match"]


def test_switches_strip_outputs_and_candidates_from_the_request(folder: Path) -> None:
    [task] = [
        t
        for t in sample_tasks(find_documents(str(folder)), samples=10, kinds=["member"])
        if t.target == "'qty'"
    ]
    assert any(c.outputs for c in task.request().cells_above)
    assert not any(c.outputs for c in task.request(cell_outputs=False).cells_above)


def test_reading_a_complete_reply_like_the_editor() -> None:
    reply = {
        "status": "ok",
        "matches": ["abs", "_hidden", "price", "alpha="],
        "metadata": {"_jupyter_types_experimental": [{"text": "price", "type": "instance"}]},
    }
    assert [c.text for c in candidates_from_reply(reply, "df.")] == ["price", "abs", "alpha="]
    assert [c.text for c in candidates_from_reply(reply, "f(")] == ["alpha="]
    assert candidates_from_reply({"status": "error"}, "df.") == []


@pytest.fixture
def scripted() -> Iterator[OpenAIUpstream]:
    # the model "knows" the key only when the kernel's candidates are in the prompt
    rules = [
        {"contains": "# The kernel completes sales[ with:\n# 'price', 'qty'", "completion": "'price']\n"}
    ]
    up = OpenAIUpstream(UpstreamConfig(rules=rules, default="x\n"))
    up.start()
    yield up
    up.stop()


def test_eval_compares_with_and_without_kernel_candidates_and_outputs_in_one_run(
    folder: Path, tmp_path: Path, scripted: OpenAIUpstream
) -> None:
    out = tmp_path / "report.json"
    model = json.dumps({"backend": "openai", "base_url": scripted.base_url, "model": "m", "style": "raw"})
    rc = main(
        [
            "eval", str(folder), "--model-json", model, "--kinds", "member", "--samples", "10",
            "--kernel", "python3", "--kernel-timeout", "60",
            "--variant", "no-kernel=kernel_candidates:off", "--variant", "no-outputs=cell_outputs:off",
            "--json", str(out), "--quiet",
        ]
    )  # fmt: skip
    assert rc == 0
    report = json.loads(out.read_text())
    assert report["tasks_with_kernel_candidates"] == 2
    with_kernel, no_kernel, no_outputs = report["configurations"]
    assert (with_kernel["kernel_candidates"], no_kernel["kernel_candidates"]) == (True, False)
    assert no_outputs["cell_outputs"] is False
    assert with_kernel["summary"]["all"]["exact_match"] > no_kernel["summary"]["all"]["exact_match"]
    prompts = [r.body["prompt"] for r in scripted.records]
    per_config = len(prompts) // 3
    assert any("# Out:\n# {'price': 1.0, 'qty': 2}" in p for p in prompts[:per_config])
    assert not any("# Out:" in p for p in prompts[2 * per_config :])
