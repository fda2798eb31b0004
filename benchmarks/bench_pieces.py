"""Per-piece delay (issue 29): how long after the model sent a token its text reaches the client.

The same two processes as ``bench_server.py`` (the scripted OpenAI-format upstream and ``jupyter
server`` with the extension), but with a *slow* model (``--ttft-ms`` 50, ``--token-ms`` 100 by
default) and ordinary code text: one websocket request at a new top-level statement, the model
writing ``def fibonacci(n):`` ... token by token. For every token with visible text, the delay is
the arrival of the first stream message that shows all of it minus the time the upstream sent it
(``time.monotonic`` is comparable across the processes; the upstream records when each token went
out). Reported: the first token's delay, every token's (p50 / p90 / max), and how many were shown
only once the next token came (delay over half a token time). What the cleaning rightly holds
shows there too: a ``<`` (it may start a special token), a line that may repeat the one before.

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


def delays(pieces: list[tuple[float, str]], tokens: list[str], token_times: list[float]) -> list[float]:
    """For each token with visible text: the arrival of the first piece that shows all of it, minus
    the time the model sent it (the suggestion is the model's text here, trailing whitespace aside)."""
    out: list[float] = []
    ends: list[tuple[int, float]] = []  # (characters shown, arrival)
    shown = 0
    for t, piece in pieces:
        shown += len(piece)
        ends.append((shown, t))
    pos = 0
    for tok, sent in zip(tokens, token_times, strict=False):
        pos += len(tok)
        if not tok.strip():
            continue
        arrival = next((t for n, t in ends if n >= pos), None)
        if arrival is not None:
            out.append((arrival - sent) * 1000)
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    srv = Servers(args.ttft_ms, args.token_ms, keep=False, rules=[{"contains": PIECES, "completion": CODE}])
    markers = Markers()
    await srv.start()
    try:
        # the server freezes its start-up heap 5 s after start (one full collection, ~70 ms here)
        await asyncio.sleep(6)
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
        every: list[float] = []  # every token with visible text
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
                visible = [t for t in tokens if t.strip()]
                print([(t, round(x, 1)) for t, x in zip(visible, d, strict=False)])
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
    for name, v in (("first token: shown − sent by the model (ms)", f), ("every token of text (ms)", e)):
        p50, p90, top = percentile(v, 50), percentile(v, 90), max(v, default=float("nan"))
        print(f"| {name} | {p50:.2f} | {p90:.2f} | {top:.2f} | {len(v)} |")
    late = res["late_pieces"]
    print(f"tokens shown only after the next (> {args.token_ms / 2:g} ms): {late} of {len(e)}")
    print(f"suggestions: {res['texts']!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
