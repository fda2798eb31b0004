"""The context window's start stays fixed while the user types (model servers reuse the prompt
they already read): typing at the end of a long text keeps everything before the cursor's line."""

from __future__ import annotations

import inspect
import itertools
import textwrap

import pytest

from jupyter_codecomplete.prompting import BUILTIN_STYLES, Budget, PromptRequest, build_prompt

QWEN = BUILTIN_STYLES["qwen2.5-coder"]
RAW = BUILTIN_STYLES["raw"]


def _typing(text: str, typed: str, budget: Budget, style=QWEN, suffix: str = "") -> list[tuple[str, int]]:
    """The prompts of each keystroke, with the position of the cursor's line in each."""
    out = []
    for i in range(1, len(typed) + 1):
        prefix = text + typed[:i]
        built = build_prompt(PromptRequest(prefix=prefix, suffix=suffix), style, budget)
        assert built.prompt_tokens is not None
        assert built.prompt_tokens + budget.max_new_tokens <= budget.context_window
        head = prefix[: prefix.rfind("\n") + 1][-300:]
        out.append((built.prompt, built.prompt.find(head) + len(head) if head else 0))
    return out


def _kept_share(prompts: list[tuple[str, int]]) -> float:
    kept = sum(
        1 for (before, _), (after, line) in itertools.pairwise(prompts) if after[:line] == before[:line]
    )
    return kept / (len(prompts) - 1)


LONG = inspect.getsource(textwrap) * 3
TYPED = "        result = self._wrap_chunks(chunks)\n        return [line for line in res"


@pytest.mark.parametrize("suffix", ["", "\n\ndef after():\n    pass\n"])
def test_typing_keeps_the_window_start(suffix: str) -> None:
    prompts = _typing(LONG + "\n", TYPED, Budget(context_window=2048, max_new_tokens=128), suffix=suffix)
    assert _kept_share(prompts) >= 0.95


def test_the_start_moves_in_large_steps_and_the_window_stays_well_used() -> None:
    budget = Budget(context_window=2048, max_new_tokens=128)
    prompts = _typing(LONG + "\n", TYPED * 8, budget, style=RAW)
    starts = {prompt[:40] for prompt, _ in prompts}
    # hundreds of keystrokes, a handful of window moves; without the grid, many more
    assert len(starts) <= 4
    tight_prompts = _typing(LONG + "\n", TYPED * 8, budget.model_copy(update={"window_step": 0.0}), style=RAW)
    assert len({prompt[:40] for prompt, _ in tight_prompts}) > 3 * len(starts)
    tight = build_prompt(
        PromptRequest(prefix=LONG + "\n" + TYPED), RAW, budget.model_copy(update={"window_step": 0.0})
    )
    stable = build_prompt(PromptRequest(prefix=LONG + "\n" + TYPED), RAW, budget)
    assert stable.prompt_tokens is not None and tight.prompt_tokens is not None
    # at most a quarter of the text budget goes unused
    assert stable.prompt_tokens >= 0.7 * tight.prompt_tokens
