"""Cost of the post-processing pipeline per 1,000 chunks (3-5 character chunks of Python code).

Run: ``python benchmarks/bench_postprocess.py`` (prints a table; no assertions).
Each filter is measured alone on the same chunk stream, then the full pipeline.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from jupyter_codecomplete.postprocess import PostprocessContext, build_filters, make_pipeline
from jupyter_codecomplete.postprocess.base import Filter

BODY = '''    """Load a CSV file and summarise it."""
    df = pd.read_csv(path, sep=",", encoding="utf-8")
    df = df.dropna(subset=["price", "quantity"])
    df["total"] = df["price"] * df["quantity"]  # revenue per row
    summary = (
        df.groupby(["region", "year"])["total"]
        .agg(["sum", "mean", "count"])
        .reset_index()
    )
    for region, group in summary.groupby("region"):
        if group["sum"].max() > threshold:
            print(f"{region}: {group['sum'].max():.2f}")
        else:
            continue
    return summary
'''

PREFIX = "import pandas as pd\n\n\ndef summarise(path, threshold=1000):\n"
CTX = PostprocessContext(
    language="python",
    prefix=PREFIX,
    suffix="\n\nresult = summarise('sales.csv')\n",
    stop=["<|endoftext|>", "<|file_sep|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"],
    leftovers=["<think>...</think>", "<EOT>"],
    heal="",
)


def chunks_of(text: str, seed: int = 0) -> list[str]:
    rnd = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rnd.randint(3, 5)
        out.append(text[i : i + n])
        i += n
    return out


def measure(make: Callable[[], Filter], chunks: list[str], rounds: int) -> float:
    """Seconds per chunk (best of 3 batches); the filters are built before the clock starts."""
    best = float("inf")
    for _ in range(3):
        filters = [make() for _ in range(rounds)]
        t0 = time.perf_counter()
        for f in filters:
            for c in chunks:
                f.feed(c)
            f.finish()
        best = min(best, (time.perf_counter() - t0) / (rounds * len(chunks)))
    return best


def main() -> None:
    # a function body that no filter cuts: every filter sees the whole stream
    text = BODY
    chunks = chunks_of(text)
    rounds = max(1, 20_000 // len(chunks))
    rows: list[tuple[str, float]] = []
    for i, f in enumerate(build_filters(CTX)):
        name = type(f).__name__

        def make(i: int = i) -> Filter:
            return build_filters(CTX)[i]

        rows.append((name, measure(make, chunks, rounds)))

    def full() -> Filter:
        class _P(Filter):
            def __init__(self) -> None:
                super().__init__()
                self.p = make_pipeline(CTX)

            def feed(self, text: str) -> str:
                return self.p.feed(text)

            def finish(self) -> str:
                return self.p.finish()

        return _P()

    rows.append(("FULL PIPELINE", measure(full, chunks, rounds)))
    t0 = time.perf_counter()
    for _ in range(200):
        build_filters(CTX)
    setup = (time.perf_counter() - t0) / 200

    guard = guard_cost()

    print(f"{len(chunks)} chunks of 3-5 chars ({len(text)} chars), {rounds} rounds, best of 3")
    print(f"{'filter':<30} {'ms per 1000 chunks':>20}")
    for name, sec in rows:
        print(f"{name:<30} {sec * 1e6:>20.2f}")
    print(f"{'setup per request (build_filters)':<30} {setup * 1e3:>17.3f} ms")
    if guard is not None:
        print(f"{'syntax check, per request':<30} {guard * 1e3:>17.3f} ms")


# A request whose suggestion the filters end before the output does (most multi-line ones): the
# guard parses the document once (8,000-character windows around the cursor; more only when it is
# broken). Measured: the whole request, minus the same
# request without the guard.
GUARD_PREFIX = "// utilities\n" + "function helper(x) {\n  return x + 1;\n}\n\n" * 150 + "function f(xs) {"
GUARD_SUFFIX = "}\n\n" + "const y = helper(2);\n" * 300
GUARD_RAW = "\n  for (const x of xs) {\n    if (x) {\n      use(x);\n    }\n  }\n  return xs;\n}\n"


def guard_cost() -> float | None:
    from jupyter_codecomplete.postprocess.pipeline import Pipeline
    from jupyter_codecomplete.postprocess.syntax import parser_for

    if parser_for("javascript") is None:
        return None
    ctx = PostprocessContext(language="javascript", prefix=GUARD_PREFIX, suffix=GUARD_SUFFIX)
    raw_chunks = chunks_of(GUARD_RAW)

    def run(guard: bool) -> float:
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(20):
                p = Pipeline(ctx, guard=guard)
                for c in raw_chunks:
                    p.feed(c)
                p.finish()
            best = min(best, (time.perf_counter() - t0) / 20)
        return best

    return max(0.0, run(True) - run(False))


if __name__ == "__main__":
    main()
