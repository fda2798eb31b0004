"""The builder's modes, notebook context, healing and bad input (no budget here)."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_codecomplete.prompting import (
    BUILTIN_STYLES,
    PromptError,
    PromptRequest,
    StyleRegistry,
    build_prompt,
    parse_request,
)
from jupyter_codecomplete.protocol import ContextCell

QWEN = BUILTIN_STYLES["qwen2.5-coder"]
RAW = BUILTIN_STYLES["raw"]


def build(style: str = "qwen2.5-coder", **request: Any) -> Any:
    return build_prompt(PromptRequest(**request), BUILTIN_STYLES[style])


# --- modes -------------------------------------------------------------------------------------


def test_auto_is_infill_when_the_suffix_has_text_and_completion_otherwise() -> None:
    assert build(prefix="a = ", suffix="\nb = 2").mode == "infill"
    assert build(prefix="a = ", suffix="  \n\t").mode == "completion"


def test_explicit_infill_without_fim_names_the_style() -> None:
    with pytest.raises(PromptError) as e:
        build("raw", mode="infill", prefix="a", suffix="b")
    assert e.value.type == "no_infill"
    assert "'raw'" in str(e.value)


def test_auto_falls_back_to_completion_with_a_note() -> None:
    built = build("raw", prefix="a = ", suffix="\nb")
    assert built.mode == "completion"
    assert built.prompt == "a = "
    assert any("fell back to completion" in n for n in built.notes)


@pytest.mark.parametrize("mode", ["infill", "repository_infill"])
def test_infill_without_a_suffix_is_a_clear_error(mode: str) -> None:
    with pytest.raises(PromptError) as e:
        build(mode=mode, prefix="a = ", suffix="   ")
    assert e.value.type == "missing_suffix"


def test_completion_mode_ignores_the_suffix_and_says_so() -> None:
    built = build(mode="completion", prefix="a = ", suffix="\nb = 2")
    assert "b = 2" not in built.prompt
    assert built.notes == ["completion mode: the suffix is not used"]


def test_repository_with_infill_uses_repo_tokens_before_the_fim_prefix() -> None:
    built = build(
        mode="auto", prefix="x = ", suffix="\ny", files={"a.py": "A = 1"}, repo_name="r", file_path="b.py"
    )
    assert built.mode == "repository_infill"
    assert built.prompt == (
        "<|repo_name|>r\n<|file_sep|>a.py\nA = 1\n<|file_sep|>b.py\n"
        "<|fim_prefix|>x = <|fim_suffix|>\ny<|fim_middle|>"
    )


def test_files_ignored_with_a_note_by_a_style_without_repository_support() -> None:
    built = build("codellama", prefix="x = ", files={"a.py": "SECRET_MARKER = 1"})
    assert built.mode == "completion"
    assert "SECRET_MARKER" not in built.prompt
    assert built.notes == ["style 'codellama' has no repository support: files ignored"]


def test_file_named_by_name_when_the_record_says_so() -> None:
    style = StyleRegistry({"q": {"extends": "qwen2.5-coder", "repo": {"file_name": "name"}}}).get("q")
    built = build_prompt(PromptRequest(prefix="x", files={"pkg/a.py": "A"}, file_path="pkg/b.py"), style)
    assert "<|file_sep|>a.py\n" in built.prompt
    assert "<|file_sep|>b.py\n" in built.prompt
    assert "pkg/" not in built.prompt


def test_native_suffix_returns_prefix_and_suffix_separately() -> None:
    built = build("codestral", prefix="def f():\n    return ", suffix="\nprint(f())")
    assert built.prompt == "def f():\n    return "
    assert built.suffix == "\nprint(f())"
    assert "[SUFFIX]" not in built.prompt
    forced = build("codestral", prefix="a", suffix="b", native_suffix=False)
    assert forced.prompt == "[SUFFIX]b[PREFIX]a"
    assert forced.suffix is None


def test_chat_style_gives_messages_and_a_flat_prompt() -> None:
    built = build("chat", prefix="def f():\n    ", suffix="\n    return 1", files={"u.py": "U = 1"})
    assert built.mode == "chat"
    assert built.messages is not None
    assert [m["role"] for m in built.messages] == ["system", "user"]
    user = built.messages[1]["content"]
    assert "def f():\n    <FILL_HERE>\n    return 1" in user
    assert "U = 1" in user
    assert built.prompt == built.messages[0]["content"] + "\n\n" + user
    assert built.stop == ["</COMPLETION>"]
    assert "<COMPLETION>" in built.leftovers
    assert built.heal == ""


def test_stop_merges_style_eot_and_request_stop_without_duplicates() -> None:
    built = build(prefix="a", stop=["\n\n", "<|endoftext|>"])
    assert built.stop.count("<|endoftext|>") == 1
    assert built.stop[-1] == "\n\n"


# --- notebook context --------------------------------------------------------------------------


def cells(*specs: tuple[str, str]) -> list[ContextCell]:
    return [ContextCell(cell_type=t, source=s) for t, s in specs]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "marker"),
    [("python", "#"), ("r", "#"), ("julia", "#"), ("sql", "--"), ("javascript", "//"), ("typescript", "//")],
)
def test_markdown_cells_above_become_comments_of_the_cell_language(language: str, marker: str) -> None:
    built = build(
        "raw",
        language=language,
        cells_above=cells(("markdown", "Title\n\nText"), ("code", "x = 1")),
        prefix="y",
    )
    assert built.prompt == f"{marker} Title\n{marker}\n{marker} Text\n\nx = 1\n\ny"


def test_cells_below_become_the_suffix_and_raw_cells_are_left_out() -> None:
    built = build(
        cells_above=cells(("raw", "RAW_ABOVE"), ("code", "a = 1")),
        prefix="b = ",
        suffix="",
        cells_below=cells(("code", "print(b)"), ("raw", "RAW_BELOW"), ("markdown", "done")),
    )
    assert built.mode == "infill"
    assert built.prompt == "<|fim_prefix|>a = 1\n\nb = <|fim_suffix|>\n\nprint(b)\n\n# done<|fim_middle|>"


def test_language_comes_from_the_file_path_when_not_given() -> None:
    built = build("raw", file_path="q.sql", cells_above=cells(("markdown", "note")), prefix="SELECT")
    assert built.prompt.startswith("-- note")
    assert built.language == "sql"


def test_notebook_path_is_shown_as_a_script_of_its_language() -> None:
    built = build(prefix="x", files={"u.py": "U"}, file_path="work/analysis.ipynb", language="python")
    assert "<|file_sep|>work/analysis.py\n" in built.prompt


# --- healing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "kept", "heal"),
    [
        ("def f():\n    ", "def f():\n", "    "),
        ("x = 1\n", "x = 1\n", ""),
        ("x = 1\n\n\t", "x = 1\n\n", "\t"),
        ("    ", "", "    "),
        ("x = ", "x = ", ""),
        ("x", "x", ""),
        ("", "", ""),
    ],
)
def test_healing_moves_trailing_indentation_out_of_the_prompt(prefix: str, kept: str, heal: str) -> None:
    built = build("raw", prefix=prefix)
    assert built.prompt == kept
    assert built.heal == heal


def test_healing_in_fim_heals_the_text_right_before_the_middle() -> None:
    built = build(mode="infill", prefix="if x:\n    ", suffix="\nelse:\n    pass")
    assert built.prompt == "<|fim_prefix|>if x:\n<|fim_suffix|>\nelse:\n    pass<|fim_middle|>"
    assert built.heal == "    "


def test_healing_with_native_suffix() -> None:
    built = build("codestral", prefix="if x:\n    ", suffix="\nelse:\n    pass")
    assert (built.prompt, built.heal) == ("if x:\n", "    ")


# --- bad input ---------------------------------------------------------------------------------


def test_parse_request_unknown_mode() -> None:
    with pytest.raises(PromptError) as e:
        parse_request({"mode": "sideways", "prefix": "x"})
    assert e.value.type == "unknown_mode"
    assert "sideways" in str(e.value)


@pytest.mark.parametrize("files", [["a.py"], {"a.py": 1}, {"a.py": None}, "a.py", {"a.py": ["x"]}])
def test_parse_request_files_must_be_a_string_map(files: object) -> None:
    with pytest.raises(PromptError) as e:
        parse_request({"prefix": "x", "files": files})
    assert e.value.type == "bad_files"


@pytest.mark.parametrize("data", [[], "x", {"prefix": 3}, {"cells_above": [{"cell_type": "output"}]}])
def test_parse_request_other_bad_input(data: object) -> None:
    with pytest.raises(PromptError) as e:
        parse_request(data)
    assert e.value.type == "bad_request"


def test_parse_request_accepts_a_good_request() -> None:
    req = parse_request({"mode": "infill", "prefix": "a", "suffix": "b", "files": {"x.py": "X"}})
    assert req.mode == "infill" and req.files == {"x.py": "X"}


def test_build_rejects_files_that_bypassed_validation() -> None:
    req = PromptRequest.model_construct(prefix="x", files={"a.py": 1}, suffix="", mode="auto")
    with pytest.raises(PromptError) as e:
        build_prompt(req, QWEN)
    assert e.value.type == "bad_files"
