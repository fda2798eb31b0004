"""Token budgets: trimming from the far ends on line boundaries, exact counters vs the estimate."""

from __future__ import annotations

import re

import pytest

from jupyter_codecomplete.prompting import (
    BUILTIN_STYLES,
    Budget,
    CallableCounter,
    EstimateCounter,
    PromptError,
    PromptRequest,
    TokenizersCounter,
    build_prompt,
)
from jupyter_codecomplete.prompting.budget import keep_head, keep_tail
from jupyter_codecomplete.protocol import ContextCell

QWEN = BUILTIN_STYLES["qwen2.5-coder"]
RAW = BUILTIN_STYLES["raw"]
_WORDS = re.compile(r"\w+|[^\w\s]|\s+")


def word_counter() -> CallableCounter:
    """An exact counter (words, punctuation, whitespace runs): deterministic and easy to reason about."""
    return CallableCounter(_WORDS.findall, name="words")


def numbered(n: int, tag: str = "line") -> str:
    return "".join(f"{tag}_{i} = {i}\n" for i in range(n))


# --- keep_tail / keep_head ---------------------------------------------------------------------


@pytest.mark.parametrize("budget", [0, 1, 7, 8, 9, 40, 4000])
def test_keep_tail_keeps_whole_last_lines_within_budget(budget: int) -> None:
    counter = word_counter()
    text = numbered(50) + "cursor = "
    kept = keep_tail(text, budget, counter, min_start=text.rfind("\n") + 1)
    assert text.endswith(kept.text)
    start = len(text) - len(kept.text)
    assert start == 0 or text[start - 1] == "\n"  # cut on a line boundary
    assert kept.tokens == counter.count(kept.text)
    if kept.text != "cursor = ":  # the cursor line is kept even when alone over budget
        assert kept.tokens <= budget
    # maximal: one more line would not fit
    if start > 0 and kept.tokens <= budget:
        prev = text.rfind("\n", 0, start - 1) + 1
        assert counter.count(text[prev:]) > budget
    assert kept.complete == (start == 0)


@pytest.mark.parametrize("budget", [0, 3, 8, 9, 40, 4000])
def test_keep_head_keeps_whole_first_lines_within_budget(budget: int) -> None:
    counter = word_counter()
    text = numbered(50)
    kept = keep_head(text, budget, counter)
    assert text.startswith(kept.text)
    assert kept.text == "" or kept.text.endswith("\n")
    assert kept.tokens <= budget
    end = len(kept.text)
    if end < len(text):
        nxt = text.find("\n", end) + 1
        assert counter.count(text[:nxt]) > budget
    assert kept.complete == (end == len(text))


def test_keep_head_keeps_the_rest_of_the_cursor_line() -> None:
    text = "rest of the line\nnext\n"
    kept = keep_head(text, 0, word_counter(), min_end=text.find("\n") + 1)
    assert kept.text == "rest of the line\n"


def test_trim_counts_only_about_the_budget_not_the_whole_text() -> None:
    calls: list[int] = []
    inner = word_counter()

    class Spy:
        name, exact = "spy", True

        def count(self, text: str) -> int:
            calls.append(len(text))
            return inner.count(text)

    text = numbered(200_000)  # ~3 MB
    kept = keep_tail(text, 500, Spy())
    assert kept.tokens <= 500
    assert max(calls) < 50_000
    assert len(calls) <= 8


# --- build_prompt with a budget ----------------------------------------------------------------


def test_prefix_trimmed_from_the_top_suffix_from_the_bottom() -> None:
    counter = word_counter()
    prefix = numbered(400, "above") + "x = "
    suffix = "\n" + numbered(400, "below")
    budget = Budget(context_window=600, max_new_tokens=100, prefix_share=0.75)
    built = build_prompt(PromptRequest(prefix=prefix, suffix=suffix), QWEN, budget, counter)
    assert built.truncated
    body = built.prompt.removeprefix("<|fim_prefix|>").removesuffix("<|fim_middle|>")
    kept_prefix, kept_suffix = body.split("<|fim_suffix|>")
    assert prefix.endswith(kept_prefix) and kept_prefix.endswith("above_399 = 399\nx = ")
    assert kept_prefix.startswith("above_")  # a whole line
    assert suffix.startswith(kept_suffix) and kept_suffix.startswith("\nbelow_0 = 0\n")
    assert kept_suffix.endswith("\n")
    assert "above_0 =" not in kept_prefix and "below_399" not in kept_suffix
    assert built.prompt_tokens is not None
    assert built.prompt_tokens + budget.max_new_tokens <= budget.context_window
    assert abs(built.prompt_tokens - counter.count(built.prompt)) <= budget.safety_tokens
    assert built.tokens_exact
    # roughly the prefix share goes to the prefix
    p, s = counter.count(kept_prefix), counter.count(kept_suffix)
    assert 0.6 < p / (p + s) < 0.9


def test_a_short_side_gives_its_share_to_the_other() -> None:
    counter = word_counter()
    prefix = numbered(400) + "x = "
    built = build_prompt(
        PromptRequest(prefix=prefix, suffix="\ny = 1"),
        QWEN,
        Budget(context_window=600, max_new_tokens=100, window_step=0.0),
        counter,
    )
    assert built.prompt_tokens is not None
    assert built.prompt_tokens > 480  # the prefix used nearly all of the 500


def test_notebook_cells_far_above_are_dropped_first() -> None:
    cells_above = [ContextCell(source=f"cell_{i} = {i}") for i in range(1000)]
    built = build_prompt(
        PromptRequest(cells_above=cells_above, prefix="z = "),
        RAW,
        Budget(context_window=300, max_new_tokens=50),
        word_counter(),
    )
    assert built.prompt.endswith("cell_999 = 999\n\nz = ")
    assert "cell_0 =" not in built.prompt
    assert built.truncated
    assert "context above the cursor was trimmed to fit the token budget" in built.notes


def test_files_are_dropped_before_the_current_file_is_trimmed() -> None:
    counter = word_counter()
    files = {"big.py": numbered(300, "big"), "small.py": "S = 1\n"}
    built = build_prompt(
        PromptRequest(prefix="x = 1\ny = ", files=files, file_path="cur.py"),
        QWEN,
        Budget(context_window=200, max_new_tokens=50, min_file_tokens=1000),
        counter,
    )
    assert built.prompt.endswith("<|file_sep|>cur.py\nx = 1\ny = ")
    assert built.files_dropped == ["big.py"]
    assert built.files_used == ["small.py"]
    assert any("big.py" in n for n in built.notes)


def test_a_file_that_does_not_fit_whole_is_trimmed_from_its_end() -> None:
    counter = word_counter()
    files = {"big.py": numbered(300, "big")}
    built = build_prompt(
        PromptRequest(prefix="y = ", files=files, file_path="cur.py"),
        QWEN,
        Budget(context_window=200, max_new_tokens=50, min_file_tokens=10),
        counter,
    )
    assert built.files_used == ["big.py"]
    assert "big_0 = 0\n" in built.prompt and "big_299" not in built.prompt
    assert built.prompt_tokens is not None and built.prompt_tokens <= 150


@pytest.mark.parametrize("window", [300, 700, 2000])
def test_verify_recounts_the_finished_prompt(bpe_counter: TokenizersCounter, window: int) -> None:
    import difflib
    import inspect

    source = inspect.getsource(difflib)
    mid = len(source) // 2
    req = PromptRequest(prefix=source[:mid], suffix=source[mid:], files={"x.py": source[:5000]})
    budget = Budget(context_window=window, max_new_tokens=100, verify=True, safety_tokens=0)
    built = build_prompt(req, QWEN, budget, bpe_counter)
    assert built.prompt_tokens == bpe_counter.count(built.prompt)
    assert built.prompt_tokens + budget.max_new_tokens <= window


def test_prompt_too_long_when_even_the_cursor_line_cannot_fit() -> None:
    with pytest.raises(PromptError) as e:
        build_prompt(
            PromptRequest(prefix="a\n" + "word " * 500),
            RAW,
            Budget(context_window=300, max_new_tokens=50),
            word_counter(),
        )
    assert e.value.type == "prompt_too_long"


def test_max_new_tokens_filling_the_window_is_a_budget_error() -> None:
    with pytest.raises(PromptError) as e:
        build_prompt(PromptRequest(prefix="a"), RAW, Budget(context_window=100, max_new_tokens=100))
    assert e.value.type == "bad_budget"


def test_template_longer_than_the_window_is_prompt_too_long() -> None:
    with pytest.raises(PromptError) as e:
        build_prompt(
            PromptRequest(prefix="a"), BUILTIN_STYLES["chat"], Budget(context_window=40, max_new_tokens=1)
        )
    assert e.value.type == "prompt_too_long"


def test_no_budget_means_no_trimming() -> None:
    prefix = numbered(5000)
    built = build_prompt(PromptRequest(prefix=prefix + "x"), RAW)
    assert built.prompt == prefix + "x"
    assert not built.truncated


# --- exact vs estimate -------------------------------------------------------------------------


def test_estimate_is_used_only_without_an_exact_counter(bpe_counter: TokenizersCounter) -> None:
    import difflib
    import inspect

    req = PromptRequest(prefix=inspect.getsource(difflib) + "x = ")
    budget = Budget(context_window=1000, max_new_tokens=100, window_step=0.0)
    est = build_prompt(req, RAW, budget)
    exact = build_prompt(req, RAW, budget, bpe_counter)
    assert not est.tokens_exact and est.token_counter is not None and est.token_counter.startswith("estimate")
    assert exact.tokens_exact and exact.token_counter == "test-bpe"
    real = bpe_counter.count(exact.prompt)
    assert exact.prompt_tokens is not None and abs(exact.prompt_tokens - real) <= budget.safety_tokens
    assert 850 <= real <= 900
    # the estimate errs on the safe side: its prompt fits the real window, without wasting much
    assert 700 <= bpe_counter.count(est.prompt) <= 900


def test_estimate_counts_on_the_high_side_for_code(bpe_counter: TokenizersCounter) -> None:
    import inspect
    import string

    text = inspect.getsource(string)
    assert EstimateCounter().count(text) >= 0.9 * bpe_counter.count(text)


def test_estimate_handles_non_ascii() -> None:
    est = EstimateCounter()
    assert est.count("") == 0
    assert est.count("数据分析") >= 4
    assert est.count("abc") == 1
