"""Edit predictions: the server's own work per request (prompt, answer parsing, cleaning with the
syntax guard), beside a completion prompt for the same document, in one run.

    python benchmarks/bench_edits.py [--repeat 20]

Documents of 1 KB, 100 KB and 4 MB of Python (the rename of a name used on the lines below at
the cursor, in the middle); the region is the format's own (``edit-chat``: 11 lines) and the
whole 200-line bound; the model's answer renames the name on every line of the region, and a
hostile answer proposes a change on every line (more edits than the limit). Times are medians in
milliseconds; the last column is the edit request's server work over the completion prompt's.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from jupyter_codecomplete.postprocess.edits import clean_edits
from jupyter_codecomplete.prompting import (
    BUILTIN_STYLES,
    EditPromptRequest,
    PromptRequest,
    build_edit_prompt,
    build_prompt,
    parse_edit_answer,
)

BLOCK = "def total_{i}(items):\n    s = 0\n    for p in items:\n        s += p\n    return s / len(items)\n\n"


def document(chars: int) -> str:
    parts: list[str] = []
    n = 0
    while sum(len(p) for p in parts) < chars:
        parts.append(BLOCK.format(i=n))
        n += 1
    return "".join(parts)


def median_ms(repeat: int, fn: Callable[..., object], *args: Any, **kwargs: Any) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    style = BUILTIN_STYLES["edit-chat"]
    completion_style = BUILTIN_STYLES["qwen2.5-coder"]
    rows = [
        [
            "document",
            "region",
            "answer",
            "prompt ms",
            "parse ms",
            "clean ms",
            "edits",
            "completion prompt ms",
            "ratio",
        ]
    ]
    for size in (1_000, 100_000, 4_000_000):
        text = document(size)
        mid = text.index("def total_", len(text) // 2)
        text = text[:mid] + text[mid:].replace("(items):", "(prices):", 1)
        cursor = text.index("(prices)", mid) + len("(prices")
        for region_name, region in (("own", None), ("200 lines", (mid, mid))):
            if region is not None:
                end = mid
                for _ in range(200):
                    end = text.find("\n", end) + 1 or len(text)
                region = (mid, end)
            req = EditPromptRequest(
                text=text, cursor=cursor, region=region, path="shop.py", language="python"
            )
            built = build_edit_prompt(req, style)
            current = text[built.region_start : built.region_end]
            for answer_name, rewrite in (
                ("rename", current.replace("items", "prices")),
                ("every line", "".join(line + "  # x\n" for line in current.splitlines())),
            ):
                answer = "<REWRITE>\n" + rewrite + "</REWRITE>"
                assert style.edit is not None
                spec = style.edit
                t_prompt = median_ms(args.repeat, build_edit_prompt, req, style)
                t_parse = median_ms(args.repeat, parse_edit_answer, answer, spec)
                parsed = parse_edit_answer(answer, spec)

                t_clean = median_ms(
                    args.repeat,
                    clean_edits,
                    text,
                    built.region_start,
                    built.region_end,
                    parsed.text,
                    language="python",
                    before=built.before,
                    after=built.after,
                )
                edits = len(
                    clean_edits(
                        text, built.region_start, built.region_end, parsed.text, language="python"
                    ).edits
                )
                preq = PromptRequest(
                    prefix=text[:cursor], suffix=text[cursor:], file_path="shop.py", language="python"
                )
                t_completion = median_ms(args.repeat, build_prompt, preq, completion_style)
                total = t_prompt + t_parse + t_clean
                rows.append(
                    [
                        f"{size // 1000} KB",
                        region_name,
                        answer_name,
                        f"{t_prompt:.2f}",
                        f"{t_parse:.3f}",
                        f"{t_clean:.2f}",
                        str(edits),
                        f"{t_completion:.2f}",
                        f"{total / t_completion:.2f}" if t_completion else "-",
                    ]
                )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, r in enumerate(rows):
        print("| " + " | ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    main()
