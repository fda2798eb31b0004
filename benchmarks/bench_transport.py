"""The model stream's wire alone (issue 38): client CPU per streamed completion, httpx's own
transport (httpcore, h11, anyio) against the package's (``backends/aio.py``: aiohttp's sockets
under httpx), both made by ``make_client`` as the backends make them.

A third client, aiohttp's own (no httpx above it), is the floor: what the httpx client API on top of
aiohttp's sockets costs a request (``HttpTransport`` keeps httpx as the one client API).

One scripted OpenAI-format model process (``--ttft-ms`` 50, ``--token-ms`` 5, a 64-token answer),
then for each transport a client process of its own that streams ``--completions`` answers with
``--users`` concurrent streams (a closed loop), reading the lines and each event's JSON as
``HttpTransport._decode`` does, and reports its own CPU time (user + system). The transports
alternate for ``--rounds``; the table gives each one's CPU per completion and per event and the
ratio, within the run.

    python benchmarks/bench_transport.py [--users 16] [--completions 400] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from bench_deployment import free_port, wait_http

TEXT = " ".join(["alpha", "+", "beta", "+", "gamma"] * 7)  # 69 tokens; max_tokens 64 stops it


MODES = {
    "httpx": "httpx's own (httpcore, h11, anyio)",
    "lean": "aiohttp's under httpx (ours)",
    "aiohttp": "aiohttp alone (no httpx: the floor)",
}


async def client(url: str, mode: str, users: int, completions: int) -> dict[str, float]:
    from jupyter_codecomplete.backends.http import POOL_LIMITS, make_client

    body = {"model": "m", "prompt": "x = ", "stream": True, "max_tokens": 64}
    if mode == "aiohttp":
        import aiohttp

        limit = POOL_LIMITS.max_connections or 0
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit))

        async def one_aiohttp() -> int:
            async with session.post(url, json=body) as resp:
                return await _events(raw.decode() async for raw in resp.content)

        async with session:
            return await _loop(one_aiohttp, users, completions)
    async with make_client(30.0, limits=POOL_LIMITS, lean=mode == "lean") as http:

        async def one() -> int:
            async with http.stream("POST", url, json=body) as resp:
                return await _events(resp.aiter_lines())

        return await _loop(one, users, completions)


async def _events(lines: AsyncIterator[str]) -> int:
    """The answer's events, each line's JSON decoded as ``HttpTransport._decode`` does."""
    n = 0
    async for line in lines:
        line = line.strip()
        if line.startswith("data:"):
            data = line[5:].strip()
            if data == "[DONE]":
                break
            json.loads(data)
            n += 1
    return n


async def _loop(one: Callable[[], Awaitable[int]], users: int, completions: int) -> dict[str, float]:
    """``completions`` streams, ``users`` at once (a closed loop), after one not measured."""
    events = 0
    started = 0
    await one()  # the first connection and imports: not measured

    async def user() -> None:
        nonlocal events, started
        while started < completions:
            started += 1
            got = await one()
            events += got

    cpu0, wall0 = time.process_time(), time.monotonic()
    await asyncio.gather(*(user() for _ in range(users)))
    cpu = time.process_time() - cpu0
    wall = time.monotonic() - wall0
    return {"cpu_ms": cpu * 1000 / started, "events": events / started, "wall_s": wall}


def measure(url: str, mode: str, users: int, completions: int) -> dict[str, float]:
    """One client process (its own CPU, no other work in it)."""
    here = str(Path(__file__).parent)
    code = (
        f"import asyncio, json, sys; sys.path.insert(0, {here!r}); import bench_transport as b; "
        f"print(json.dumps(asyncio.run(b.client({url!r}, {mode!r}, {users}, {completions}))))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=16)
    ap.add_argument("--completions", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--ttft-ms", type=float, default=50.0)
    ap.add_argument("--token-ms", type=float, default=5.0)
    args = ap.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        rules = Path(tmp) / "rules.json"
        rules.write_text(json.dumps([{"contains": "x = ", "completion": TEXT}]))
        model = subprocess.Popen(
            [
                sys.executable, "-m", "jupyter_codecomplete.testing.openai_upstream", "--port", str(port),
                "--rules", str(rules), "--ttft-ms", str(args.ttft_ms), "--token-ms", str(args.token_ms),
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp,
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}/v1"
            asyncio.run(wait_http(base + "/models", 30))
            url = base + "/completions"
            runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
            for _ in range(args.rounds):
                for mode in MODES:
                    runs[mode].append(measure(url, mode, args.users, args.completions))
        finally:
            model.terminate()
            model.wait(10)
    load = os.getloadavg()
    print(
        f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load[0]:.2f}; "
        f"{args.users} streams at once, {args.completions} completions a run, {args.rounds} rounds\n"
    )
    print("| transport | CPU ms / completion (runs) | events / completion | µs / event | ratio |")
    print("|---|---|---|---|---|")
    mean = {k: sum(r["cpu_ms"] for r in v) / len(v) for k, v in runs.items()}
    for mode, name in MODES.items():
        cpu = " / ".join(f"{r['cpu_ms']:.2f}" for r in runs[mode])
        ev = runs[mode][0]["events"]
        per_event, ratio = mean[mode] * 1000 / ev, mean[mode] / mean["httpx"]
        print(f"| {name} | {cpu} | {ev:.0f} | {per_event:.0f} | {ratio:.2f}× |")


if __name__ == "__main__":
    main()
