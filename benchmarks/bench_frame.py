"""Server time from a websocket frame to the model request: what the server adds before the model
even starts.

Starts the scripted upstream and ``jupyter server`` (as ``bench_server.py`` does) and sends one
streamed request at a time: the time from writing the frame on the client to the upstream's
handler starting (``time.monotonic`` in both processes: the same clock) for

- an 800-byte prefix of ordinary code (a definition, a call with arguments),
- the same with a 1,000-cell notebook as context: the cells the browser sends by default (the 20
  nearest, at most 12,000 characters), and every cell (~2 MB of cells above, as a client whose
  settings allow that many would send),

then profiles the server's own part in-process (``cProfile`` of parse, ``prepare`` and building
the LangChain request, no network), to say where the time goes.

    python benchmarks/bench_frame.py [--requests 100] [--profile-top 12]

Includes both loopback hops (websocket in, HTTP out: ~0.1 ms each here). Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import platform
import pstats
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_prompt import synthetic_cells
from bench_server import LAT, Servers, WsClient

CODE = """import json
from dataclasses import dataclass


@dataclass
class Point:
    x: float
    y: float

    def distance(self, other: "Point") -> float:
        return ((self.x - other.x) ** 2 + (self.y - other.y) ** 2) ** 0.5


def load_points(path: str, limit: int = 100) -> list[Point]:
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    return [Point(float(r["x"]), float(r["y"])) for r in rows[:limit]]


def nearest(points: list[Point], target: Point) -> Point:
"""


def prefix_800(marker: str) -> str:
    head = f"# {marker}\n"
    text = head + CODE
    text = text[-800:] if len(text) > 800 else text
    return head + text[len(head) :] if not text.startswith(head) else text


def as_sent(cells: list[dict[str, Any]], max_cells: int = 20, max_chars: int = 12000) -> list[dict[str, Any]]:
    """The cells above the cursor the browser sends by default (maxContextCells, maxContextChars)."""
    out: list[dict[str, Any]] = []
    used = 0
    for cell in reversed(cells):
        if len(out) >= max_cells or used + len(cell["source"]) > max_chars:
            break
        out.insert(0, cell)
        used += len(cell["source"])
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def measure(srv: Servers, n: int, cells: list[dict[str, Any]] | None) -> list[float]:
    client = await WsClient.connect(srv.ws_url)
    sent: dict[str, float] = {}
    tag = "c" if cells else "p"
    try:
        for i in range(n + 5):
            marker = f"{LAT} fr{i:07d}{tag}"
            extra: dict[str, Any] = {"prefix": prefix_800(marker)}
            if cells is not None:
                extra["cells_above"] = cells
            req = client.send(marker, **extra)
            await req.done.wait()
            if i >= 5:  # warm-up
                sent[marker.split()[1]] = req.t_send
    finally:
        await client.close()
    records: dict[str, dict[str, Any]] = {}
    for rec in await srv.upstream_records():
        found = re.search(rf"fr\d{{7}}{tag}", str(rec.get("body", {}).get("prompt", "")))
        if found:
            records[found.group(0)] = rec
    return [(records[k]["started"] - t) * 1000 for k, t in sent.items() if k in records]


def profile(cells: list[dict[str, Any]] | None, top: int) -> str:
    from jupyter_codecomplete.completion.default import DefaultInlineCompletionHandler
    from jupyter_codecomplete.protocol import InlineCompletionRequest

    handler = DefaultInlineCompletionHandler(
        settings={
            "models": {
                "completion": {
                    "backend": "openai",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "bench",
                    "style": "raw",
                    "max_tokens": 64,
                }
            }
        }
    )
    frames = []
    for i in range(50):
        body: dict[str, Any] = {
            "type": "inline_completion",
            "number": i,
            "prefix": prefix_800(f"p{i}"),
            "suffix": "",
            "language": "python",
            "path": "bench.ipynb",
            "stream": True,
        }
        if cells is not None:
            body["cells_above"] = cells
        frames.append(json.dumps(body))

    def one(frame: str) -> None:
        request = InlineCompletionRequest.model_validate_json(frame)
        prepared = handler.prepare(request)
        # what raw_stream builds: nothing per request on the direct path, else the runnable
        chain = handler.direct(prepared) or handler.raw_chain(prepared)
        handler.model_input(prepared)
        # what LangChain's OpenAI model turns into the SDK request body
        llm = prepared.backend.llm
        params = getattr(llm, "_default_params", None)
        del chain, params

    one(frames[0])
    t0 = time.perf_counter()
    prof = cProfile.Profile()
    prof.enable()
    for f in frames:
        one(f)
    prof.disable()
    per = (time.perf_counter() - t0) / len(frames) * 1000
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return f"in-process (profiled, so slower): {per:.2f} ms per request\n" + out.getvalue()


async def run(args: argparse.Namespace) -> None:
    print(
        f"# bench_frame: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}"
    )
    cells = [c.model_dump() for c in synthetic_cells()]
    srv = Servers(ttft_ms=50, token_ms=5, keep=False)
    await srv.start()
    try:
        rows = []
        for name, ctx in (
            ("800-byte prefix", None),
            ("+ 1,000-cell notebook, as the browser sends it (20 cells, 12,000 chars)", as_sent(cells)),
            ("+ 1,000-cell notebook, every cell (2 MB frame)", cells),
        ):
            ms = await measure(srv, args.requests, ctx)
            rows.append((name, statistics.median(ms), pct(ms, 0.9), len(ms)))
        print("\n| frame → model request | p50 ms | p90 ms | n |\n|---|---|---|---|")
        for name, p50, p90, n in rows:
            print(f"| {name} | {p50:.2f} | {p90:.2f} | {n} |")
    finally:
        await srv.stop()
    if args.profile_top:
        for name, ctx in (("800-byte prefix", None), ("1,000-cell notebook", cells)):
            print(f"\n## profile: {name}")
            print(profile(ctx, args.profile_top))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--profile-top", type=int, default=12)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
