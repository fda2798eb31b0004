"""Benchmark: what cell outputs and kernel candidates cost when a prompt is built.

A 200-cell notebook whose code cells each carry outputs at the protocol's limits (a 20,000-character
stream full of ANSI colour codes and progress-bar carriage returns, a 20,000-character table, an
error), built with and without outputs and candidates; and cleaning one output of 10 MB (the server
never reads past its scan limit). Offline; the exact tokenizer is the one ``bench_prompt.py`` trains.

    python benchmarks/bench_notebook_context.py [--repeat 30]

Prints p50/p90 in milliseconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_prompt import synthetic_cells, timed, train_tokenizer

from jupyter_codecomplete.prompting import (
    BUILTIN_STYLES,
    Budget,
    EstimateCounter,
    PromptRequest,
    build_prompt,
)
from jupyter_codecomplete.prompting.outputs import clean_output_text
from jupyter_codecomplete.protocol import MAX_OUTPUT_TEXT, CellOutput, KernelCandidates

STREAM = ("\x1b[32mepoch 3\x1b[0m  10%\r 50%\r100% loss=0.123\n" * 1000)[:MAX_OUTPUT_TEXT]
TABLE = "\n".join(f"{i:5d}  {i * 1.5:8.2f}  {'abc' * 3}" for i in range(10_000))[:MAX_OUTPUT_TEXT]
OUTPUTS = [
    CellOutput(output_type="stream", text=STREAM),
    CellOutput(output_type="execute_result", text=TABLE),
    CellOutput(output_type="error", text="\x1b[0;31mKeyError\x1b[0m: 'prize'"),
]
CANDIDATES = KernelCandidates.model_validate(
    {"expression": "df[", "items": [{"text": f"'column_{i}'", "type": "dict key"} for i in range(100)]}
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    exact = train_tokenizer()
    cells = [
        c.model_copy(update={"outputs": OUTPUTS}) if c.cell_type == "code" else c
        for c in synthetic_cells(n=200)
    ]
    plain = [c.model_copy(update={"outputs": []}) for c in cells]
    style = BUILTIN_STYLES["qwen2.5-coder"]
    cases = [
        (
            "no outputs, no candidates",
            PromptRequest(cells_above=plain, prefix="x = df[", file_path="a.ipynb"),
        ),
        ("outputs", PromptRequest(cells_above=cells, prefix="x = df[", file_path="a.ipynb")),
        (
            "outputs + 100 candidates",
            PromptRequest(
                cells_above=cells, prefix="x = df[", file_path="a.ipynb", kernel_candidates=CANDIDATES
            ),
        ),
        (
            "outputs, 3 cells (all fit)",
            PromptRequest(cells_above=cells[-4:], prefix="x = df[", file_path="a.ipynb"),
        ),
    ]
    print(f"{'window':>6} {'case':28} {'counter':12} {'p50 ms':>7} {'p90 ms':>7} {'outputs shown':>13}")
    for window in (4096, 16384):
        budget = Budget(context_window=window, max_new_tokens=256)
        for label, req in cases:
            for counter in (exact, EstimateCounter()):
                built = build_prompt(req, style, budget, counter)
                p50, p90 = timed(lambda r=req, c=counter, b=budget: build_prompt(r, style, b, c), args.repeat)
                shown = built.prompt.count("# Out:")
                print(f"{window:6d} {label:28} {counter.name[:12]:12} {p50:7.2f} {p90:7.2f} {shown:13d}")
    huge = STREAM * 500  # 10 MB
    p50, p90 = timed(lambda: clean_output_text(huge), args.repeat)
    print(f"cleaning one 10 MB output: p50 {p50:.2f} ms, p90 {p90:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
