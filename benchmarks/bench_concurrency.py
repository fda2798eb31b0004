"""Concurrent users (issue 17): added first-chunk latency and throughput at 16 users.

The same two processes as ``bench_server.py`` (the scripted OpenAI-format upstream, 20 ms to the
first token and 5 ms a token; ``jupyter server`` with the extension). ``--users`` clients each ask
for a 39-token completion, wait for its end and ask again (a closed loop, no superseding), for
``--seconds`` through the server and then as long straight to the upstream with the very body the
server sends; ``--rounds`` alternations. Reported:

- first chunk p50 / p90 through the server and direct, and the added latency (p50 difference;
  target ≤ 5 ms at 16 users);
- throughput: completed completions per second through the server over direct (target ≥ 0.95),
  and the stream time (first chunk → end) p50 on both sides;
- server CPU per request.

    python benchmarks/bench_concurrency.py [--users 16] [--seconds 20] [--rounds 2] [--json PATH]
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
from bench_server import (
    TEXTS,
    TYPE,
    Direct,
    Markers,
    Req,
    Servers,
    WsClient,
    by_marker,
    cpu_seconds,
    marker_id,
    now,
    percentile,
    warm_up,
)


async def closed_loop(users: int, seconds: float, ask: Any) -> list[Req]:
    """Each user asks, waits for the end, asks again, until ``seconds`` have passed."""
    done: list[Req] = []
    end = now() + seconds

    async def user(k: int) -> None:
        while now() < end:
            req = await ask(k)
            await asyncio.wait_for(req.done.wait(), 30)
            done.append(req)

    await asyncio.gather(*(user(k) for k in range(users)))
    return done


def summary(reqs: list[Req], seconds: float) -> dict[str, Any]:
    ok = [r for r in reqs if r.error is None and r.t_first is not None and r.t_done is not None]
    first = [r.first_ms for r in ok if r.first_ms is not None]
    stream = [(r.t_done - r.t_first) * 1000 for r in ok if r.t_done is not None and r.t_first is not None]
    return {
        "requests": len(reqs),
        "ok": len(ok),
        "errors": len(reqs) - len(ok),
        "per_s": len(ok) / seconds,
        "first_p50": percentile(first, 50),
        "first_p90": percentile(first, 90),
        "stream_p50": percentile(stream, 50),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    srv = Servers(args.ttft_ms, args.token_ms, keep=False, text=args.text)
    markers = Markers()
    await srv.start()
    try:
        direct_one = await warm_up(srv, markers)
        # the completion of the load (39 tokens): the body the server sends for it
        ws = await WsClient.connect(srv.ws_url)
        req = ws.send(markers(TYPE))
        await asyncio.wait_for(req.done.wait(), 30)
        await ws.close()
        body = by_marker(await srv.upstream_records())[marker_id(req.marker)]["body"]
        direct = Direct(srv.up_url, body, req.marker)
        via: list[Req] = []
        straight: list[Req] = []
        cpu = 0.0
        for _ in range(args.rounds):
            socks = [await WsClient.connect(srv.ws_url) for _ in range(args.users)]

            async def ask_ws(k: int, socks: list[WsClient] = socks) -> Req:
                return socks[k].send(markers(TYPE))

            cpu0 = cpu_seconds(srv.server_pid())
            via += await closed_loop(args.users, args.seconds, ask_ws)
            cpu += cpu_seconds(srv.server_pid()) - cpu0
            for s in socks:
                await s.close()

            async def ask_direct(k: int) -> Req:
                r = Req(0, markers(TYPE))
                asyncio.get_running_loop().create_task(direct.request(r))
                return r

            straight += await closed_loop(args.users, args.seconds, ask_direct)
        await direct.close()
        await direct_one.close()
        total = args.seconds * args.rounds
        s, d = summary(via, total), summary(straight, total)
        return {
            "users": args.users,
            "server": s,
            "direct": d,
            "added_first_p50_ms": s["first_p50"] - d["first_p50"],
            "throughput_ratio": s["per_s"] / d["per_s"] if d["per_s"] else float("nan"),
            "server_cpu_ms_per_request": cpu * 1000 / max(1, len(via)),
            "date": time.strftime("%Y-%m-%d %H:%M %Z"),
            "load_average": os.getloadavg(),
        }
    finally:
        await srv.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--users", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0, help="per side and round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--ttft-ms", type=float, default=20.0)
    ap.add_argument("--token-ms", type=float, default=5.0)
    ap.add_argument("--text", choices=sorted(TEXTS), default="words", help="words, or ordinary code")
    ap.add_argument("--json", help="write the numbers here")
    args = ap.parse_args(argv)
    res = asyncio.run(run(args))
    s, d = res["server"], res["direct"]
    load = res["load_average"]
    print(f"\n{res['users']} users, closed loop, {args.text} text, {res['date']}, load average {load}")
    print("| measure | through the server | direct | target | met |")
    print("|---|---|---|---|---|")
    added = res["added_first_p50_ms"]
    print(
        f"| first chunk p50 / p90 (ms) | {s['first_p50']:.2f} / {s['first_p90']:.2f} | "
        f"{d['first_p50']:.2f} / {d['first_p90']:.2f} | added ≤ 5 ms p50 | "
        f"{'yes' if added <= 5 else '**no**'} ({added:.2f} ms) |"
    )
    ratio = res["throughput_ratio"]
    print(
        f"| completions per second | {s['per_s']:.1f} | {d['per_s']:.1f} | ≥ 0.95× | "
        f"{'yes' if ratio >= 0.95 else '**no**'} ({ratio:.3f}×) |"
    )
    print(f"| stream, first chunk → end, p50 (ms) | {s['stream_p50']:.1f} | {d['stream_p50']:.1f} | | |")
    print(f"| requests (errors) | {s['requests']} ({s['errors']}) | {d['requests']} ({d['errors']}) | | |")
    print(f"server CPU per request: {res['server_cpu_ms_per_request']:.2f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
