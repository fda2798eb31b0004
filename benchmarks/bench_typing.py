"""Prompts the model server can reuse: a typing simulation on a 60 KB file.

CPython's ``argparse.py`` (its first 60 KB), the cursor deep in it (at a line start near 80 %),
the next 33 characters of the file typed one at a time. For each keystroke the client's request
(``maxPrefixChars`` 8000, ``maxSuffixChars`` 2000, as the browser cuts them) and the server's
prompt (Qwen2.5-Coder FIM style, 4,096-token window, 256 new tokens) are built, before (the
longest text that fits: the start moves with the text) and after (``Budget.window_step`` 0.25, and
the client's cut on a grid of a quarter of its limit).

Reported per keystroke: whether the prompt keeps everything before the cursor's line unchanged
(what a server with prefix caching reuses), the share of the prompt shared with the previous one,
and the prompt tokens a prefix-caching server evaluates again (the tokens after the shared part,
with a BPE tokenizer trained on the fly as in ``bench_prompt.py``).

    python benchmarks/bench_typing.py

Not a test. Measured numbers are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import itertools

from bench_prompt import train_tokenizer

from jupyter_codecomplete.prompting import BUILTIN_STYLES, Budget, PromptRequest, build_prompt

MAX_PREFIX, MAX_SUFFIX = 8000, 2000


def client_prefix(before: str, grid: bool) -> str:
    """The browser's cut of the text before the cursor (src/context/context.ts ``boundedPrefix``)."""
    if len(before) <= MAX_PREFIX:
        return before
    if not grid:
        return before[-MAX_PREFIX:]
    step = max(1, MAX_PREFIX // 4)
    g = -(-(len(before) - MAX_PREFIX) // step) * step
    line = g if g > 0 and before[g - 1] == "\n" else before.find("\n", g) + 1
    return before[line:] if 0 < line < len(before) else before[-MAX_PREFIX:]


def line_start(prompt: str, prefix: str) -> int:
    """Where the cursor's line starts in the prompt (the text before it ends with a line break)."""
    head = prefix[: prefix.rfind("\n") + 1][-300:]
    return prompt.find(head) + len(head) if head else 0


def common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def simulate(text: str, cursor: int, typed: int, stable: bool, window: int, counter) -> dict[str, float]:  # type: ignore[no-untyped-def]
    style = BUILTIN_STYLES["qwen2.5-coder"]
    budget = Budget(context_window=window, max_new_tokens=256, window_step=0.25 if stable else 0.0)
    prompts: list[tuple[str, int]] = []
    for i in range(typed + 1):
        doc = text[: cursor + i] + text[cursor + i :]  # typing the file's own next characters
        before, after = doc[: cursor + i], doc[cursor + i :]
        prefix = client_prefix(before, stable)
        built = build_prompt(PromptRequest(prefix=prefix, suffix=after[:MAX_SUFFIX]), style, budget, counter)
        prompts.append((built.prompt, line_start(built.prompt, prefix)))
    kept, shared, evaluated = 0, [], []
    for (prev, _), (cur, line_at) in itertools.pairwise(prompts):
        c = common(prev, cur)
        kept += c >= line_at
        shared.append(c / len(cur) * 100)
        evaluated.append(counter.count(cur[c:]))
    n = len(prompts) - 1
    return {
        "kept": kept / n * 100,
        "shared_p50": statistics.median(shared),
        "eval_p50": statistics.median(evaluated),
        "eval_p90": pct(evaluated, 0.9),
        "prompt_tokens": counter.count(prompts[-1][0]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--typed", type=int, default=33)
    parser.add_argument("--window", type=int, default=4096)
    args = parser.parse_args()
    text = Path(argparse.__file__).read_text()[:60_000]
    cursor = text.index("\n", int(len(text) * 0.8)) + 1
    counter = train_tokenizer()
    day = time.strftime("%Y-%m-%d")
    print(f"# bench_typing: {platform.machine()}, Python {platform.python_version()}, {day}")
    print(f"# argparse.py, first {len(text)} chars, cursor at {cursor}, {args.typed} characters typed")
    print(
        "\n| window start | keeps all before the cursor's line | shared text p50 "
        "| tokens re-evaluated p50 / p90 | prompt tokens |"
    )
    print("|---|---|---|---|---|")
    for name, stable in (("moves with the text (before)", False), ("on a grid (after)", True)):
        r = simulate(text, cursor, args.typed, stable, args.window, counter)
        print(
            f"| {name} | {r['kept']:.0f} % | {r['shared_p50']:.1f} % "
            f"| {r['eval_p50']:.0f} / {r['eval_p90']:.0f} | {r['prompt_tokens']:.0f} |"
        )


if __name__ == "__main__":
    main()
