"""The two in-process engines on the bundled demo model: the numpy engine (no compiler) vs
llama-cpp-python, through the embedded backend (worker thread, queue, stops), in one run.

Each engine runs in its own fresh process (so that resident memory is its own), the processes
alternating round by round (so that both see the same machine load). Per engine: the load time,
the time to the first token of a new prompt (cold: nothing of it cached) and after a keystroke (the
same prompt and one more character: the warm cache), tokens/s while generating, and resident memory
(the process after importing the package, after loading the model, and its peak), then the ratios.

Run: ``python benchmarks/bench_engines.py [--rounds 3] [--threads N]`` (needs llama-cpp-python:
``./scripts/setup.sh --local``). Without ``--threads`` each engine runs as the extension runs it
by default (the numpy engine: one BLAS thread; llama-cpp-python: its own default).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PROMPTS = [
    "import os\nimport sys\n\n\ndef main():\n    ",
    "<|fim_prefix|>def read(path):\n    with open(path) as f:\n        "
    "<|fim_suffix|>\n\n\nprint(read('x'))\n<|fim_middle|>",
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        ",
    "def parse_args(argv):\n    parser = argparse.ArgumentParser()\n    parser.add_argument(",
]
LONG_PROMPT = Path(argparse.__file__).read_text()[:3000]  # a stdlib file's first 3,000 characters
MAX_TOKENS = 96
ENGINES = ("numpy", "llama.cpp")


def rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def one(llm: Any, prompt: str) -> tuple[float, int, float]:
    start = time.perf_counter()
    first = None
    try:
        async for chunk in llm.astream(prompt, max_tokens=MAX_TOKENS, temperature=0.0):
            if chunk and first is None:
                first = time.perf_counter()
    except ValueError:  # LangChain: the model ended at once with no text
        pass
    end = time.perf_counter()
    return (first or end) - start, llm.shared.history[-1].tokens, end - start


def child(engine: str, threads: int | None) -> None:
    from jupyter_codecomplete.backends.embedded import EmbeddedLlamaLLM, default_model_path

    out: dict[str, Any] = {"rss_imported": rss_mb()}
    llm = EmbeddedLlamaLLM(model_path=default_model_path(), n_ctx=1024, n_threads=threads, engine=engine)
    start = time.perf_counter()
    llm.shared.engine(timeout=300)
    out["load_s"] = time.perf_counter() - start
    out["rss_loaded"] = rss_mb()
    cold, warm, rates = [], [], []
    out["long_prompt_tokens"] = len(llm.get_token_ids(LONG_PROMPT))
    for prompt in [*PROMPTS, LONG_PROMPT]:
        ttft, tokens, total = asyncio.run(one(llm, prompt))
        cold.append(ttft)
        if total > ttft and tokens > 1:
            rates.append((tokens - 1) / (total - ttft))
        ttft, _, _ = asyncio.run(one(llm, prompt + "x"))  # a keystroke later
        warm.append(ttft)
    out.update(cold=cold, warm=warm, rates=rates, rss_peak=rss_mb("VmHWM"))
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="n_threads for both engines")
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.threads)
        return
    runs: dict[str, list[dict[str, Any]]] = {e: [] for e in ENGINES}
    for _ in range(args.rounds):
        for engine in ENGINES:
            cmd = [sys.executable, __file__, "--child", engine]
            cmd += ["--threads", str(args.threads)] if args.threads else []
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            runs[engine].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    rows: dict[str, dict[str, float]] = {}
    for engine, results in runs.items():
        rows[engine] = {
            "load ms": statistics.median(r["load_s"] for r in results) * 1000,
            "first token, cold p50 ms": statistics.median(t for r in results for t in r["cold"][:-1]) * 1000,
            f"first token, {results[0]['long_prompt_tokens']}-token prompt ms": statistics.median(
                r["cold"][-1] for r in results
            )
            * 1000,
            "first token, a keystroke later p50 ms": statistics.median(t for r in results for t in r["warm"])
            * 1000,
            "tokens/s": statistics.median(x for r in results for x in r["rates"]),
            "RSS after import MB": statistics.median(r["rss_imported"] for r in results),
            "RSS loaded MB": statistics.median(r["rss_loaded"] for r in results),
            "RSS peak MB": statistics.median(r["rss_peak"] for r in results),
        }
    print(
        f"demo model, {MAX_TOKENS} tokens max, greedy, {len(PROMPTS) + 1} prompts x {args.rounds} rounds, "
        f"n_threads {args.threads or 'default'}, each engine in its own process (alternating)"
    )
    print(f"{'':<40} {'numpy':>10} {'llama.cpp':>10} {'numpy/llama.cpp':>16}")
    for key, a in rows["numpy"].items():
        b = rows["llama.cpp"][key]
        print(f"{key:<40} {a:>10.1f} {b:>10.1f} {a / b if b else float('nan'):>16.2f}")


if __name__ == "__main__":
    main()
