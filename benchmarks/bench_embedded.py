"""The embedded demo model: in-process (our EmbeddedLlamaLLM on the llama.cpp engine) vs. the same
GGUF behind ``python -m llama_cpp.server``, same prompts, same settings, in one run (the numpy
engine against llama.cpp: ``bench_engines.py``).

Prints time to first token (p50), tokens/s, and what the HTTP server adds over in-process.
Run: ``python benchmarks/bench_embedded.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from jupyter_codecomplete.backends.embedded import EmbeddedLlamaLLM, default_model_path
from jupyter_codecomplete.testing.processes import llama_cpp_server

PROMPTS = [
    "import os\nimport sys\n\n\ndef main():\n    ",
    "<|fim_prefix|>def read(path):\n    with open(path) as f:\n        "
    "<|fim_suffix|>\n\n\nprint(read('x'))\n<|fim_middle|>",
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        ",
    "def parse_args(argv):\n    parser = argparse.ArgumentParser()\n    parser.add_argument(",
]
MAX_TOKENS = 96


async def in_process(llm: EmbeddedLlamaLLM, prompt: str) -> tuple[float, int, float]:
    start = time.perf_counter()
    first = None
    n = 0
    try:
        async for chunk in llm.astream(prompt, max_tokens=MAX_TOKENS, temperature=0.0):
            if chunk and first is None:
                first = time.perf_counter()
            n += 1
    except ValueError:  # LangChain: the model ended at once with no text
        pass
    end = time.perf_counter()
    stats = llm.shared.history[-1]
    return (first or end) - start, stats.tokens, end - start


def via_server(client: httpx.Client, base: str, prompt: str) -> tuple[float, int, float]:
    body = {
        "prompt": prompt,
        "max_tokens": MAX_TOKENS,
        "temperature": 0.0,
        "repeat_penalty": 1.0,
        "stream": True,
    }
    start = time.perf_counter()
    first = None
    n = 0
    with client.stream("POST", f"{base}/completions", json=body) as r:
        for line in r.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            data = json.loads(line[6:])
            if data["choices"][0].get("text"):
                n += 1
                if first is None:
                    first = time.perf_counter()
    end = time.perf_counter()
    return (first or end) - start, n, end - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    model = default_model_path()
    llm = EmbeddedLlamaLLM(model_path=model, n_ctx=1024, n_threads=2, engine="llama.cpp")
    llm.shared.engine()  # load once, outside the timing
    log = Path(tempfile.mkdtemp()) / "server.log"
    with llama_cpp_server(model, log, n_ctx=1024, n_threads=2, alias=None) as server:
        base = server.base_url
        with httpx.Client(timeout=60) as client:
            rows: dict[str, list[tuple[float, int, float]]] = {"in-process": [], "llama_cpp.server": []}
            for _ in range(args.rounds):
                for p in PROMPTS:  # interleaved: both sides see the same machine load
                    rows["in-process"].append(asyncio.run(in_process(llm, p)))
                    rows["llama_cpp.server"].append(via_server(client, base, p))
    print(
        f"model: {Path(model).name} ({Path(model).stat().st_size / 1e6:.1f} MB), max_tokens {MAX_TOKENS}, "
        f"{args.rounds} rounds x {len(PROMPTS)} prompts, temperature 0"
    )
    print(f"{'path':<18} {'TTFT p50 ms':>12} {'tokens/s':>10} {'tokens':>7}")
    ttft: dict[str, float] = {}
    for name, results in rows.items():
        ttft[name] = statistics.median(r[0] for r in results) * 1000
        tokens = sum(r[1] for r in results)
        gen_time = sum(r[2] - r[0] for r in results)
        rate = tokens / gen_time if gen_time > 0 else float("nan")
        print(f"{name:<18} {ttft[name]:>12.1f} {rate:>10.0f} {tokens:>7}")
    print(f"server adds to the first token: {ttft['llama_cpp.server'] - ttft['in-process']:+.1f} ms (p50)")


if __name__ == "__main__":
    main()
