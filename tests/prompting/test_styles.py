"""Style records and the registry: model-name matching, user records and overrides."""

from __future__ import annotations

import pytest

from jupyter_codecomplete.prompting import BUILTIN_STYLES, PromptError, PromptStyle, StyleRegistry
from jupyter_codecomplete.prompting.builtin_styles import BUILTIN_RECORDS
from jupyter_codecomplete.prompting.styles import GENERIC_EDIT_STYLE


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("Qwen/Qwen2.5-Coder-7B", "qwen2.5-coder"),
        ("qwen2.5-coder:1.5b-base-q8_0", "qwen2.5-coder"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder"),
        ("Qwen/CodeQwen1.5-7B", "codeqwen1.5"),
        ("bigcode/starcoder", "starcoder"),
        ("bigcode/starcoder2-15b", "starcoder2"),
        ("deepseek-ai/deepseek-coder-6.7b-base", "deepseek-coder"),
        ("deepseek-ai/DeepSeek-Coder-V2-Lite-Base", "deepseek-coder-v2"),
        ("codellama:7b-code", "codellama"),
        ("codestral-latest", "codestral"),
        ("google/codegemma-2b", "codegemma"),
        ("ibm-granite/granite-8b-code-base", "granite"),
        ("ByteDance-Seed/Seed-Coder-8B-Base", "seed-coder"),
        ("stabilityai/stable-code-3b", "stable-code"),
        ("THUDM/codegeex4-all-9b", "codegeex4"),
        ("gpt-4o-mini", "chat"),
        ("some-unknown-model", "raw"),
    ],
)
def test_for_model_picks_the_family(model: str, style: str) -> None:
    assert StyleRegistry().for_model(model).name == style


def test_longest_pattern_wins() -> None:
    reg = StyleRegistry({"short": {"patterns": ["*coder*"]}, "long": {"patterns": ["*my-coder-xl*"]}})
    assert reg.for_model("org/my-coder-xl-7b").name == "long"
    assert reg.for_model("org/other-coder").name == "short"


def test_user_record_wins_a_tie_with_a_builtin() -> None:
    reg = StyleRegistry({"mine": {"patterns": ["*starcoder2*"], "fim": BUILTIN_RECORDS["starcoder2"]["fim"]}})
    assert reg.for_model("starcoder2:3b").name == "mine"


def test_default_when_nothing_matches_can_be_chosen() -> None:
    assert StyleRegistry(default="chat").for_model("nothing-like-it").name == "chat"
    with pytest.raises(PromptError) as e:
        StyleRegistry(default="nope")
    assert e.value.type == "unknown_style"


def test_get_unknown_style_is_a_prompt_error_naming_it() -> None:
    with pytest.raises(PromptError) as e:
        StyleRegistry().get("no-such-style")
    assert e.value.type == "unknown_style"
    assert "no-such-style" in str(e.value)


def test_user_dict_overrides_only_the_fields_it_gives() -> None:
    reg = StyleRegistry({"qwen2.5-coder": {"stop": ["<|endoftext|>"], "fim": {"order": "spm"}}})
    style = reg.get("qwen2.5-coder")
    assert style.stop == ["<|endoftext|>"]
    assert style.fim is not None and style.fim.order == "spm"
    assert style.fim.prefix == "<|fim_prefix|>"  # untouched nested field kept
    assert style.patterns == BUILTIN_STYLES["qwen2.5-coder"].patterns
    assert reg.is_user("qwen2.5-coder")
    # the built-in record itself is unchanged
    assert StyleRegistry().get("qwen2.5-coder").stop == BUILTIN_STYLES["qwen2.5-coder"].stop


def test_user_record_can_extend_a_builtin() -> None:
    reg = StyleRegistry({"my-qwen": {"extends": "qwen2.5-coder", "patterns": ["*my-qwen*"]}})
    style = reg.for_model("my-qwen-7b")
    assert style.name == "my-qwen"
    assert style.fim == BUILTIN_STYLES["qwen2.5-coder"].fim


def test_user_record_may_be_a_promptstyle() -> None:
    reg = StyleRegistry({"x": PromptStyle(name="other", patterns=["x-*"])})
    assert reg.get("x").name == "x"


@pytest.mark.parametrize(
    "record",
    [
        {"fim": {"prefix": "<a>"}},  # missing suffix/middle
        {"unknown_field": 1},
        {"header": "{no_such_field}"},
        {"extends": "no-such-parent"},
        "not a dict",
    ],
)
def test_bad_user_records_are_prompt_errors(record: object) -> None:
    with pytest.raises(PromptError) as e:
        StyleRegistry({"bad": record})  # type: ignore[dict-item]
    assert e.value.type == "bad_style"
    assert "bad" in str(e.value)


def test_every_builtin_names_its_source_and_has_patterns_or_is_raw() -> None:
    for name, style in BUILTIN_STYLES.items():
        assert style.name == name
        if name != "raw":
            # the generic next-edit format is the fallback of edit predictions, as raw is of completions
            assert style.patterns or name == GENERIC_EDIT_STYLE, name
            assert style.source, name


def test_all_returns_a_copy() -> None:
    reg = StyleRegistry()
    reg.all().clear()
    assert "raw" in reg.all()


def test_capabilities() -> None:
    assert BUILTIN_STYLES["codellama"].capabilities() == {
        "infill": True,
        "repository": False,
        "native_suffix": False,
        "chat": False,
        "edit": False,
    }
    assert BUILTIN_STYLES["raw"].capabilities()["infill"] is False
    assert BUILTIN_STYLES["codestral"].capabilities()["native_suffix"] is True


def test_server_can_infill_follows_the_record() -> None:
    """llama.cpp's /infill writes PSM FIM prompts from the model file: only for records it renders
    the same way (docs/prompt-styles.md, "llama.cpp: /infill or /completion")."""
    from jupyter_codecomplete.prompting import BUILTIN_STYLES as S

    assert S["qwen2.5-coder"].server_can_infill and S["codellama"].server_can_infill
    assert S["raw"].server_can_infill  # no format of its own: the server's template
    for name in ("codestral", "seed-coder", "qwen3-coder", "codegeex4", "starcoder2", "chat"):
        assert not S[name].server_can_infill, name
    for name in ("codellama-completion", "codegemma-it"):
        assert S[name].no_infill and not S[name].supports_infill and not S[name].server_can_infill
