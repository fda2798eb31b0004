"""Per-piece delay (issue 29): how long after the model sent a token its text reaches the client.

The same two processes as ``bench_server.py`` (the scripted OpenAI-format upstream and ``jupyter
server`` with the extension), but with a *slow* model (``--ttft-ms`` 50, ``--token-ms`` 100 by
default) and ordinary code text: one websocket request at a new top-level statement, the model
writing ``def fibonacci(n):`` ... token by token. For every stream message the client reads, the
delay is its arrival time minus the time the upstream sent the token that completed that text
(``time.monotonic`` is comparable across the processes; the upstream records when each token went
out). Reported: the first piece's delay and every piece's delay (p50 / p90 / max), and how many
pieces waited for the next token (their delay is about one token time).

    python benchmarks/bench_pieces.py [--requests 10] [--ttft-ms 50] [--token-ms 100] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import Markers, Servers, WsClient, by_marker, marker_id, percentile

from jupyter_codecomplete.testing.scripted import split_tokens

PIECES = "#@PIECES@"
# ordinary code at a new top-level statement (a multi-line request on an empty line)
CODE = "def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n"
PREFIX_TAIL = "\nimport math\n\n\n"


def delays(text_times: list[tuple[float, str]], tokens: list[str], token_times: list[float]) -> list[float]:
    """For each received piece: arrival minus the send time of the token that completed its text."""
    ends: list[int] = []
    pos = 0
    for tok in tokens:
        pos += len(tok)
        ends.append(pos)
    out: list[float] = []
    got = 0
    for t, piece in text_times:
        got += len(piece)
        # the first token whose end reaches the text received so far
        k = next((i for i, e in enumerate(ends) if e >= got), len(ends) - 1)
        if k < len(token_times):
            out.append((t - token_times[k]) * 1000)
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    srv = Servers(args.ttft_ms, args.token_ms, keep=False, rules=[{"contains": PIECES, "completion": CODE}])
    markers = Markers()
    await srv.start()
    try:
        ws = await WsClient.connect(srv.ws_url, protocol=2)  # deltas, as the browser
        pieces: dict[int, list[tuple[float, str]]] = {}
        ws.on_piece = lambda number, t, text: pieces.setdefault(number, []).append((t, text))
        reqs = []
        for _ in range(args.requests + 1):  # the first one warms up
            marker = markers(PIECES)
            req = ws.send(marker, prefix=f"# {marker}{PREFIX_TAIL}")
            await asyncio.wait_for(req.done.wait(), 60)
            reqs.append(req)
            await asyncio.sleep(0.05)
        await ws.close()
        records = by_marker(await srv.upstream_records())
        tokens = split_tokens(CODE)
        first: list[float] = []
        every: list[float] = []
        late = 0
        texts = set()
        for req in reqs[1:]:
            rec = records.get(marker_id(req.marker))
            if rec is None:
                continue
            got = pieces.get(req.number, [])
            texts.add("".join(p for _, p in got))
            d = delays(got, tokens, rec["token_times"])
            if d:
                first.append(d[0])
            if args.show:
                print([(p, round(x, 1)) for (_, p), x in zip(got, d, strict=False)])
            every += d
            late += sum(1 for x in d if x > args.token_ms / 2)
        return {
            "requests": len(reqs) - 1,
            "first_ms": first,
            "every_ms": every,
            "late_pieces": late,
            "texts": sorted(texts),
            "date": time.strftime("%Y-%m-%d %H:%M %Z"),
            "load_average": os.getloadavg(),
        }
    finally:
        await srv.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--requests", type=int, default=10)
    ap.add_argument("--ttft-ms", type=float, default=50.0)
    ap.add_argument("--token-ms", type=float, default=100.0)
    ap.add_argument("--show", action="store_true", help="print each piece and its delay")
    ap.add_argument("--json", help="write the numbers here")
    args = ap.parse_args(argv)
    res = asyncio.run(run(args))
    f, e = res["first_ms"], res["every_ms"]
    print(
        f"\nper-piece delay, model {args.ttft_ms:g} ms to first token, {args.token_ms:g} ms a token; "
        f"{res['date']}, load average {res['load_average']}"
    )
    print("| measure | p50 | p90 | max | n |")
    print("|---|---|---|---|---|")
    for name, v in (("first piece: client − model sent (ms)", f), ("every piece (ms)", e)):
        p50, p90, top = percentile(v, 50), percentile(v, 90), max(v, default=float("nan"))
        print(f"| {name} | {p50:.2f} | {p90:.2f} | {top:.2f} | {len(v)} |")
    late = res["late_pieces"]
    print(f"pieces that waited for the next token (> {args.token_ms / 2:g} ms): {late} of {len(e)}")
    print(f"suggestions: {res['texts']!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
