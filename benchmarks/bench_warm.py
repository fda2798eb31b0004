"""A warm model server (issue 29): time to the first token of the first request after opening a
long file, cold vs after a warm-up, against ``python -m llama_cpp.server`` and the embedded model
(the bundled demo GGUF, a 4,096-token context), through the engine (prepare, prompt, model,
cleaning) as the websocket uses it.

Per round a new 1,000-line Python file (so nothing of it is cached), the cursor at a new line at
80 %: *cold* asks for a suggestion at once; *warm* first sends the warm-up (``handler.warm``: the
same prompt, one token, what a ``warm`` message does when the file is opened) and then asks the
same. Rounds alternate cold and warm; reported: time to the first cleaned piece, p50 / max, and
the warm-up's own time (what the user does not wait for: it runs while the file opens).

    python benchmarks/bench_warm.py [--rounds 4] [--n-ctx 4096] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.backends.embedded import default_model_path
from jupyter_codecomplete.completion.engine import make_default_engine
from jupyter_codecomplete.completion.settings import EngineSettings
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing.processes import llama_cpp_server


def long_file(seed: int, lines: int = 1000) -> str:
    """About ``lines`` lines of ordinary, distinct Python (a new one per seed)."""
    out: list[str] = [f"# module {seed}", "import math", ""]
    i = 0
    while len(out) < lines:
        out += [
            f"def f{seed}_{i}(values, scale={i % 9 + 1}):",
            f'    """Scaled total number {i} of module {seed}."""',
            "    total = 0",
            "    for value in values:",
            f"        total += math.sqrt(abs(value)) * scale + {i % 13}",
            "    return total",
            "",
            "",
        ]
        i += 1
    return "\n".join(out[:lines]) + "\n"


def request(text: str, number: int) -> InlineCompletionRequest:
    cut = text.find("\n\n", int(len(text) * 0.8)) + 2
    return InlineCompletionRequest(
        number=number, prefix=text[:cut], suffix=text[cut:], language="python", path="mod.py", stream=True
    )


async def first_piece(handler: Any, req: InlineCompletionRequest) -> float:
    start = time.perf_counter()
    async for chunk in handler.handle_stream_request(req, delta=True):
        if chunk.response.insertText or chunk.done:
            return (time.perf_counter() - start) * 1000
    return float("nan")


async def measure(config: dict[str, Any], rounds: int, seed0: int) -> dict[str, Any]:
    handler = make_default_engine(
        EngineSettings(models={"completion": ModelConfig.model_validate(config)}, recent_completions=0)
    )
    cold: list[float] = []
    warm: list[float] = []
    warm_up: list[float] = []
    try:
        # the first request of a server loads things (tokenizer, model): not measured
        await first_piece(handler, request(long_file(seed0 - 1), 0))
        for r in range(rounds * 2):
            req = request(long_file(seed0 + r), r + 1)
            if r % 2:
                t = time.perf_counter()
                await handler.warm(req)
                warm_up.append((time.perf_counter() - t) * 1000)
                warm.append(await first_piece(handler, req))
            else:
                cold.append(await first_piece(handler, req))
    finally:
        await handler.close()
    return {"cold_ms": cold, "warm_ms": warm, "warm_up_ms": warm_up}


def show(name: str, res: dict[str, Any]) -> None:
    c, w, u = res["cold_ms"], res["warm_ms"], res["warm_up_ms"]
    print(
        f"| {name} | {statistics.median(c):.0f} / {max(c):.0f} | {statistics.median(w):.0f} / {max(w):.0f} | "
        f"{statistics.median(c) / statistics.median(w):.1f}× | {statistics.median(u):.0f} |"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    model = default_model_path()
    common = {"style": "qwen2.5-coder", "context_window": args.n_ctx, "max_tokens": 32, "temperature": 0.0}
    out: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "n_ctx": args.n_ctx}
    out["embedded"] = await measure({"backend": "embedded", **common}, args.rounds, 100)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        with llama_cpp_server(model, log, n_ctx=args.n_ctx, n_threads=2) as server:
            cfg = {"backend": "openai", "base_url": server.base_url, "model": "codecomplete-demo", **common}
            out["llama_cpp.server"] = await measure(cfg, args.rounds, 200)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=4, help="cold and warm requests each")
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--json", help="write the numbers here")
    args = ap.parse_args(argv)
    res = asyncio.run(run(args))
    print(f"\nfirst piece after opening a 1,000-line file, {res['date']}, context {args.n_ctx} tokens (ms)")
    print("| model server | cold p50 / max | warmed p50 / max | cold ÷ warm | the warm-up itself p50 |")
    print("|---|---|---|---|---|")
    for name in ("embedded", "llama_cpp.server"):
        show(name, res[name])
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
