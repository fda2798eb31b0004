"""Golden prompts: every built-in style in every mode it supports renders exactly the stored prompt.

Each case is one JSON file in ``tests/golden/prompts/``: the style, the request, and the expected
prompt, suffix, stop sequences, healed whitespace, mode, notes and (chat) messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.prompting import BUILTIN_STYLES, PromptRequest, build_prompt

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "prompts"
CASES = sorted(GOLDEN.glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden_prompt(path: Path) -> None:
    case = _load(path)
    built = build_prompt(PromptRequest.model_validate(case["request"]), BUILTIN_STYLES[case["style"]])
    exp = case["expected"]
    assert built.prompt == exp["prompt"]
    assert built.suffix == exp["suffix"]
    assert built.stop == exp["stop"]
    assert built.heal == exp["heal"]
    assert built.mode == exp["mode"]
    assert built.notes == exp["notes"]
    assert built.messages == exp["messages"]


def _modes_covered() -> dict[str, set[str]]:
    covered: dict[str, set[str]] = {}
    for path in CASES:
        case = _load(path)
        covered.setdefault(case["style"], set()).add(case["expected"]["mode"])
    return covered


@pytest.mark.parametrize("name", sorted(BUILTIN_STYLES))
def test_every_style_has_golden_cases_for_each_mode_it_supports(name: str) -> None:
    style = BUILTIN_STYLES[name]
    if style.edit_only:
        wanted = set()  # a next-edit format only: its cases are in test_golden_edits.py
    elif style.chat:
        wanted = {"chat"}
    else:
        wanted = {"completion"}
        if style.fim is not None:
            wanted.add("infill")
        if style.repo is not None:
            wanted.add("repository")
            if style.fim is not None:
                wanted.add("repository_infill")
    assert wanted <= _modes_covered().get(name, set())


def test_healing_cases_exist_for_fim_styles() -> None:
    healed = {_load(p)["style"] for p in CASES if _load(p)["expected"]["heal"]}
    fim_styles = {n for n, s in BUILTIN_STYLES.items() if s.fim is not None}
    assert fim_styles <= healed
