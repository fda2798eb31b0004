"""Prompt tokens evaluated per keystroke by real llama.cpp servers (issue 17): the embedded model
(in-process, our ``EmbeddedLlamaLLM``) and the same GGUF behind ``python -m llama_cpp.server``.

The typing simulation of ``bench_typing.py`` (CPython's ``argparse.py``, the cursor deep in it,
33 characters typed), with the demo model's own tokenizer and context (1,024 tokens;
``--n-ctx 4096`` for the issue's window): for each keystroke the prompt the server builds,
before (the window's start moves with the text) and after (on a grid: ``Budget.window_step``
0.25, the browser's cut on a grid). Each prompt is sent to both (one new token, greedy);
llama.cpp reuses the tokens a prompt shares with the previous one and evaluates the rest.
Counted: in-process, the tokens passed to the model's first ``eval`` of each request; behind
the server, its log ("prompt eval time = ... / N tokens").

    python benchmarks/bench_prompt_reuse.py [--typed 33] [--n-ctx 4096]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))

from bench_typing import client_prefix

from jupyter_codecomplete.backends.embedded import EmbeddedLlamaLLM, default_model_path
from jupyter_codecomplete.prompting import BUILTIN_STYLES, Budget, PromptRequest, build_prompt
from jupyter_codecomplete.testing.processes import free_port

N_CTX = 1024
MAX_TOKENS = 64  # the budget kept for the answer (the prompt gets the rest of the window)
PERF = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")


class LlamaCounter:
    name = "llama.cpp tokenizer"
    exact = True

    def __init__(self, llama: Any) -> None:
        self.llama = llama

    def count(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))


def prompts(text: str, cursor: int, typed: int, stable: bool, counter: LlamaCounter) -> list[str]:
    style = BUILTIN_STYLES["qwen2.5-coder"]
    budget = Budget(context_window=N_CTX, max_new_tokens=MAX_TOKENS, window_step=0.25 if stable else 0.0)
    out = []
    for i in range(typed + 1):
        before, after = text[: cursor + i], text[cursor + i :]
        request = PromptRequest(prefix=client_prefix(before, stable), suffix=after[:2000])
        out.append(build_prompt(request, style, budget, counter).prompt)
    return out


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def embedded(llm: EmbeddedLlamaLLM, sequence: list[str]) -> list[int]:
    llama = llm.shared.engine().llama  # type: ignore[attr-defined]  # the llama.cpp engine's Llama
    evaluated: list[int] = []
    first = [True]
    original = llama.eval

    def counting(tokens: Any) -> None:
        if first[0]:
            evaluated.append(len(tokens))
            first[0] = False
        original(tokens)

    llama.eval = counting
    try:
        for prompt in sequence:
            first[0] = True
            try:
                async for _ in llm.astream(prompt, max_tokens=1, temperature=0.0):
                    pass
            except ValueError:  # LangChain: the model ended at once, with no text
                pass
    finally:
        llama.eval = original
    return evaluated


def server(client: httpx.Client, base: str, log: Path, sequence: list[str]) -> list[int]:
    evaluated: list[int] = []
    for prompt in sequence:
        seen = len(PERF.findall(log.read_text(errors="replace")))
        body = {"prompt": prompt, "max_tokens": 1, "temperature": 0.0, "stream": False}
        client.post(f"{base}/completions", json=body).raise_for_status()
        for _ in range(100):
            found = PERF.findall(log.read_text(errors="replace"))
            if len(found) > seen:
                evaluated.append(int(found[seen]))
                break
            time.sleep(0.02)
    return evaluated


def main() -> None:
    global N_CTX
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--typed", type=int, default=33)
    parser.add_argument(
        "--n-ctx", type=int, default=1024, help="context window (the demo model was trained at 1,024)"
    )
    args = parser.parse_args()
    N_CTX = args.n_ctx
    model = default_model_path()
    llm = EmbeddedLlamaLLM(model_path=model, n_ctx=N_CTX, n_threads=2, engine="llama.cpp")
    counter = LlamaCounter(llm.shared.engine().llama)  # type: ignore[attr-defined]
    text = Path(argparse.__file__).read_text()[:60_000]
    cursor = text.index("\n", int(len(text) * 0.8)) + 1
    port = free_port()
    log = Path(tempfile.mkdtemp()) / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", model, "--port", str(port),
         "--n_ctx", str(N_CTX), "--n_threads", "2", "--host", "127.0.0.1", "--verbose", "True"],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/v1"
    rows = []
    try:
        with httpx.Client(timeout=120) as client:
            for _ in range(240):
                try:
                    if client.get(f"{base}/models").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.25)
            for name, stable in (("moves with the text (before)", False), ("on a grid (after)", True)):
                sequence = prompts(text, cursor, args.typed, stable, counter)
                tokens = counter.count(sequence[-1])
                inproc = asyncio.run(embedded(llm, sequence))[1:]  # the first prompt is read whole
                served = server(client, base, log, sequence)[1:]
                rows.append((name, tokens, inproc, served))
    finally:
        proc.terminate()
        proc.wait(10)
    day = time.strftime("%Y-%m-%d %H:%M")
    print(f"# {Path(model).name}, n_ctx {N_CTX}, {args.typed} characters typed, {day}, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("\n| window start | prompt tokens | evaluated per keystroke, embedded p50 / p90 "
          "| llama_cpp.server p50 / p90 |")  # fmt: skip
    print("|---|---|---|---|")
    for name, tokens, inproc, served in rows:
        print(
            f"| {name} | {tokens} | {statistics.median(inproc):.0f} / {pct(inproc, 0.9):.0f} "
            f"| {statistics.median(served):.0f} / {pct(served, 0.9):.0f} (n={len(served)}) |"
        )


if __name__ == "__main__":
    main()
