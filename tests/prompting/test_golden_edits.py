"""Golden next-edit cases: every next-edit format renders the stored prompt, and its answer parser
reads the stored answers (well-formed and malformed) as written by hand.

Prompts: ``tests/golden/edit_prompts/*.json``; answers: ``tests/golden/edit_answers/*.json``, one
case per file (``tests/prompting/make_edit_golden.py`` writes both).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.postprocess.edits import apply_edits, clean_edits
from jupyter_codecomplete.prompting import (
    BUILTIN_STYLES,
    EditPromptRequest,
    PromptError,
    StyleRegistry,
    build_edit_prompt,
    parse_edit_answer,
)
from jupyter_codecomplete.prompting.edits import block_offsets
from jupyter_codecomplete.prompting.styles import BlockSpec

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PROMPTS = sorted((GOLDEN / "edit_prompts").glob("*.json"))
ANSWERS = sorted((GOLDEN / "edit_answers").glob("*.json"))
EDIT_STYLES = sorted(n for n, s in BUILTIN_STYLES.items() if s.edit is not None)


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", PROMPTS, ids=[p.stem for p in PROMPTS])
def test_golden_edit_prompt(path: Path) -> None:
    case = _load(path)
    request = EditPromptRequest.model_validate(case["request"])
    built = build_edit_prompt(request, BUILTIN_STYLES[case["style"]])
    exp = case["expected"]
    assert built.prompt == exp["prompt"]
    assert built.messages == exp["messages"]
    assert built.stop == exp["stop"]
    assert (built.region_start, built.region_end) == (exp["region_start"], exp["region_end"])
    assert built.notes == exp["notes"]


@pytest.mark.parametrize("path", ANSWERS, ids=[p.stem for p in ANSWERS])
def test_golden_edit_answer(path: Path) -> None:
    case = _load(path)
    edit = BUILTIN_STYLES[case["style"]].edit
    assert edit is not None
    parsed = parse_edit_answer(case["answer"], edit, case.get("tail", ""), case.get("base", ""))
    assert (parsed.kind, parsed.text) == (case["kind"], case["text"])
    if "applied" in case:  # the document once the answer's edits are applied
        start, end = case["region"]
        cleaned = clean_edits(case["document"], start, end, parsed.text)
        assert apply_edits(case["document"], cleaned.edits) == case["applied"]


@pytest.mark.parametrize("name", EDIT_STYLES)
def test_every_next_edit_format_has_prompt_and_answer_cases(name: str) -> None:
    prompt_styles = {_load(p)["style"] for p in PROMPTS}
    answers = [_load(p) for p in ANSWERS if _load(p)["style"] == name]
    assert name in prompt_styles
    assert any(a["kind"] == "rewrite" for a in answers)
    assert any(a["kind"] != "rewrite" or a["answer"] != a["text"] for a in answers)  # a malformed one


@pytest.mark.parametrize("name", EDIT_STYLES)
def test_every_next_edit_record_cites_its_source(name: str) -> None:
    assert BUILTIN_STYLES[name].source


def test_the_four_open_families_and_the_generic_format_exist() -> None:
    assert {"zeta1", "zeta2", "zeta2.1", "instinct", "sweep-next-edit", "edit-chat"} <= set(EDIT_STYLES)


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("zed-industries/zeta", "zeta1"),
        ("zeta-2-seed-coder-8b.Q8_0.gguf", "zeta2"),
        ("zed-industries/zeta-2.1", "zeta2.1"),
        ("zeta-2.1-Q8_0.gguf", "zeta2.1"),
        ("Zeta 2.1", "zeta2.1"),  # a GGUF's general.name
        ("Zeta 2", "zeta2"),
        ("Sweep Next Edit 1.5B", "sweep-next-edit"),
        ("continuedev/instinct", "instinct"),
        ("sweep-next-edit-1.5B.q8_0.gguf", "sweep-next-edit"),
        ("gpt-4o-mini", "edit-chat"),
        ("qwen2.5-coder:7b", "edit-chat"),
    ],
)
def test_the_next_edit_style_follows_the_model_name(model: str, style: str) -> None:
    assert StyleRegistry().for_edits(model).name == style


def test_blocks_are_cut_after_blank_lines_and_larger_blocks_cut_less() -> None:
    # zed's multi_region test_compute_marker_offsets_v0318_uses_larger_block_sizes: the same text
    # in 3-to-8-line blocks (V0316) and 6-to-16-line blocks (V0318)
    text = "l1\nl2\nl3\n\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\n"
    small = block_offsets(text, BlockSpec(min_lines=3, max_lines=8))
    large = block_offsets(text, BlockSpec(min_lines=6, max_lines=16))
    assert len(large) < len(small)
    assert small[0] == large[0] == 0 and small[-1] == large[-1] == len(text)
    assert text.index("l5") in small  # after the blank line
    assert all(text[i - 1] == "\n" for i in small[1:-1])
    assert block_offsets("", BlockSpec()) == [0, 0]


def test_a_user_record_adds_a_next_edit_format() -> None:
    registry = StyleRegistry(
        {
            "my-nes": {
                "patterns": ["my-nes*"],
                "edit": {"template": "{excerpt}", "excerpt": "[{region}]", "cursor": "|"},
            }
        }
    )
    built = build_edit_prompt(EditPromptRequest(text="a = 1\n", cursor=1), registry.for_edits("my-nes-1b"))
    assert built.prompt == "[a| = 1\n]"


def test_an_unknown_template_field_is_refused_when_the_record_loads() -> None:
    with pytest.raises(PromptError, match="unknown fields"):
        StyleRegistry({"bad": {"edit": {"template": "{suffix}", "excerpt": "{region}"}}})


@pytest.mark.parametrize(("region", "cursor"), [((5, 2), 3), ((0, 99), 1), ((2, 4), 0)])
def test_a_region_outside_the_document_or_without_the_cursor_is_refused(
    region: tuple[int, int], cursor: int
) -> None:
    with pytest.raises(PromptError, match="editable region"):
        build_edit_prompt(
            EditPromptRequest(text="abcdef\n", cursor=cursor, region=region), BUILTIN_STYLES["zeta1"]
        )


def test_a_huge_region_is_cut_around_the_cursor() -> None:
    text = "".join(f"x{i} = {i}\n" for i in range(5000))
    cursor = text.index("x2500 =")
    built = build_edit_prompt(
        EditPromptRequest(text=text, cursor=cursor, region=(0, len(text))), BUILTIN_STYLES["zeta2"]
    )
    assert built.region_start <= cursor <= built.region_end
    assert built.region_end - built.region_start <= 8000
    assert any("cut" in n for n in built.notes)


def test_recent_edits_past_the_budget_are_left_out_newest_kept() -> None:
    diffs = [{"path": "a.py", "diff": f"@@ -1 +1 @@\n-v{i} = 0\n+v{i} = {'9' * 500}\n"} for i in range(40)]
    built = build_edit_prompt(
        EditPromptRequest.model_validate(
            {"text": "a = 1\n", "cursor": 0, "recent_edits": diffs, "context_chars": 3000}
        ),
        BUILTIN_STYLES["zeta1"],
    )
    assert "v39 = " in built.prompt and "v0 = " not in built.prompt
    assert len(built.prompt) < 5000
    assert any("older recent edits left out" in n for n in built.notes)
