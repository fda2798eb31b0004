"""Next-edit formats against their primary sources, byte for byte.

Each ``tests/golden/edit_sources/*.json`` case is one test of the code that serves the model
(zed's ``crates/zeta_prompt`` tests, Continue's ``instinct.vitest.ts``, sweepai's cursortab tests)
or a request its training client logged: the source's own inputs as our request, and the source's
own expected text, copied as it stands there (``source``: repository, commit or stored version,
path, test). ``spec`` sets only our sizing knobs (lines of context, which the sources size in
tokens or window bounds) to the source's ranges; nothing of the format itself. ``section`` is the
part compared: the whole ``prompt``, or the ``excerpt`` / ``history`` / ``files`` block where the
source tests one block alone. ``contains``: substrings the source's test asserts (where it asserts
only those, the expected text is what the source's code writes for its inputs, and ``note`` says so).

Formats without such a fixture say so in their record's ``source``; every record either has cases
here or says it has none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.prompting import BUILTIN_STYLES, EditPromptRequest, build_edit_prompt

SOURCES = sorted((Path(__file__).resolve().parent.parent / "golden" / "edit_sources").glob("*.json"))
EDIT_STYLES = sorted(n for n, s in BUILTIN_STYLES.items() if s.edit is not None)


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


CASES = [_load(p) for p in SOURCES]


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_our_render_is_the_source_s_expected_text(case: dict[str, Any]) -> None:
    style = BUILTIN_STYLES[case["style"]]
    assert style.edit is not None
    if case.get("spec"):
        style = style.model_copy(update={"edit": style.edit.model_copy(update=case["spec"])})
    built = build_edit_prompt(EditPromptRequest.model_validate(case["request"]), style)
    got = built.prompt if case["section"] == "prompt" else built.sections[case["section"]]
    assert got == case["expected"]
    for piece in case.get("contains", []):
        assert piece in got


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_each_case_pins_its_source_and_the_record_names_it(case: dict[str, Any]) -> None:
    src = case["source"]
    assert src["repo"] and src["path"] and src["test"]
    pin = src.get("commit") or src.get("stored_id")
    assert pin
    record = BUILTIN_STYLES[case["style"]].source
    assert src["repo"] in record and pin in record
    assert set(case.get("spec", {})) <= {"context_lines_before", "context_lines_after"}


@pytest.mark.parametrize("name", EDIT_STYLES)
def test_every_format_has_source_cases_or_says_it_has_none(name: str) -> None:
    has_cases = any(c["style"] == name for c in CASES)
    assert has_cases or "no source fixture" in BUILTIN_STYLES[name].source
