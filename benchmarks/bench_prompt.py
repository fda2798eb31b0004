"""Benchmark: build a prompt for a synthetic 1,000-cell (~2 MB) notebook.

Runs offline: the exact tokenizer is a byte-level BPE (16k vocabulary) trained in memory on the
Python standard library's source before timing starts; nothing is downloaded. Compares it with the
character estimate, for a cursor at the end of the notebook (completion, 999 cells above) and in
its middle (infill, 500 cells above and 499 below), with and without other open files.

    python benchmarks/bench_prompt.py [--repeat 50] [--window 4096]

Prints p50/p90 in milliseconds. Target (issue 4): p50 <= 20 ms with the exact tokenizer.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jupyter_codecomplete.prompting import (
    BUILTIN_STYLES,
    Budget,
    BuiltPrompt,
    EstimateCounter,
    PromptRequest,
    TokenCounter,
    TokenizersCounter,
    build_prompt,
)
from jupyter_codecomplete.protocol import ContextCell

TRAIN_MODULES = (
    "argparse json.decoder json.encoder textwrap inspect ast dataclasses enum functools logging pathlib "
    "subprocess tarfile zipfile email.message http.client typing collections"
)
CODE_MODULES = "difflib string pydoc calendar csv configparser shutil tempfile statistics fractions"


def train_tokenizer() -> TokenizersCounter:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    corpus = [inspect.getsource(importlib.import_module(n)) for n in TRAIN_MODULES.split()]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    special = ["<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|file_sep|>", "<|repo_name|>"]
    trainer = trainers.BpeTrainer(vocab_size=16000, special_tokens=special, show_progress=False)
    tok.train_from_iterator(corpus, trainer=trainer)
    return TokenizersCounter(tok, name="bpe-16k(stdlib)")


def synthetic_cells(n: int = 1000, cell_chars: int = 2000, seed: int = 7) -> list[ContextCell]:
    rng = random.Random(seed)
    lines: list[str] = []
    for name in CODE_MODULES.split():
        lines.extend(inspect.getsource(importlib.import_module(name)).splitlines())
    cells: list[ContextCell] = []
    for i in range(n):
        start = rng.randrange(0, len(lines) - 200)
        chunk: list[str] = []
        size = 0
        j = start
        while size < cell_chars:
            chunk.append(lines[j])
            size += len(lines[j]) + 1
            j += 1
        kind = "markdown" if i % 5 == 4 else "code"
        source = (
            "\n".join(chunk)
            if kind == "code"
            else "\n".join(f"Notes on step {i}: {s.strip()}" for s in chunk)
        )
        cells.append(ContextCell(cell_type=kind, language="python", source=source))
    return cells


def timed(fn, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    fn()  # warm up
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.9 * (len(samples) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--window", type=int, nargs="+", default=[4096, 16384])
    args = ap.parse_args()

    t0 = time.perf_counter()
    exact = train_tokenizer()
    cells = synthetic_cells()
    setup_s = time.perf_counter() - t0
    total_chars = sum(len(c.source) for c in cells)
    files = {f"lib/mod_{k}.py": cells[k * 7].source for k in range(5)}
    style = BUILTIN_STYLES["qwen2.5-coder"]
    counters: list[TokenCounter] = [exact, EstimateCounter()]

    end_req = PromptRequest(cells_above=cells[:-1], prefix="result = compute(", file_path="analysis.ipynb")
    mid_req = PromptRequest(
        cells_above=cells[:500],
        prefix="    value = ",
        suffix="\n    return value\n",
        cells_below=cells[501:],
        file_path="analysis.ipynb",
    )
    files_req = mid_req.model_copy(update={"files": files, "repo_name": "demo"})
    cases = [
        ("end of notebook, completion", end_req),
        ("middle, infill", mid_req),
        ("middle, infill + 5 files", files_req),
    ]

    print(
        f"notebook: {len(cells)} cells, {total_chars / 1e6:.2f} MB; max_new 256; style {style.name}; "
        f"tokenizer setup {setup_s:.1f} s; repeat {args.repeat}"
    )
    print("tokens: counted by parts; real: the whole prompt recounted with the exact tokenizer")
    print(f"{'window':>6} {'case':28} {'counter':26} {'p50 ms':>7} {'p90 ms':>7} {'tokens':>6} {'real':>6}")
    for window in args.window:
        for verify in (False, True):
            budget = Budget(context_window=window, max_new_tokens=256, verify=verify)
            for label, req in cases:
                for counter in counters if not verify else [exact]:
                    name = counter.name + (" +verify" if verify else "")

                    def run(
                        req: PromptRequest = req, counter: TokenCounter = counter, budget: Budget = budget
                    ) -> BuiltPrompt:
                        return build_prompt(req, style, budget, counter)

                    built = run()
                    p50, p90 = timed(run, args.repeat)
                    real = exact.count(built.prompt)
                    row = f"{window:6d} {label:28} {name:26} {p50:7.2f} {p90:7.2f}"
                    print(f"{row} {built.prompt_tokens:6d} {real:6d}")
    t_parse = timed(lambda: PromptRequest.model_validate(end_req.model_dump()), max(5, args.repeat // 5))
    print(f"(for scale: validating the 2 MB request itself takes p50 {t_parse[0]:.1f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
