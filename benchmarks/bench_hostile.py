"""Benchmark the server against a hostile model server and clumsy clients (issue 18).

Starts the scripted upstream (``jupyter_codecomplete.testing.openai_upstream``, hostile rules) and
``jupyter server`` with this extension as processes on loopback ports (isolated config/data dirs in
a temp dir). The benchmark process is the client. Measures, each on a fresh server so that its peak
memory belongs to that case:

- a 10 MB answer from a model that ignores ``max_tokens``, streamed (500-byte events) to a protocol 1
  and a protocol 2 client, and not streamed (one JSON body): bytes to the browser, server peak and
  final RSS, server CPU, event-loop lag;
- a client that never reads while such an answer streams: server RSS;
- one 4.3 MB multi-line prefix: event-loop lag;
- a REST client that gives up: how long until the model server sees the request closed;
- the cleaning pipeline alone (in this process): CPU for 2,500 ... 20,000 events of 500 bytes;
- 200 sockets x 20 superseding requests, with a plain REST GET (``api/status``) polled meanwhile:
  loop lag, REST latency, and how long a request takes to reach the model server.

    python benchmarks/bench_hostile.py [--json PATH] [--sockets 200] [--requests 20]
    python benchmarks/bench_hostile.py --phases load --versus 'c.CodeCompleteApp.X = Y'  # A/B

Prints a markdown table; never part of the pass/fail tests (timings depend on the machine).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import cpu_seconds, free_port, percentile

from jupyter_codecomplete.testing.wsclient import CompletionSocket, SocketClosed, request

now = time.monotonic
MB = 1024 * 1024
TEN_MB = "".join(f"value_{i} = compute({i}, {i * 7})\n" for i in range(330_000))[: 10 * 1000 * 1000]
RULES: list[dict[str, Any]] = [
    {"contains": "FLOOD", "completion": TEN_MB, "ignore_max_tokens": True, "piece_chars": 500},
    {"contains": "LOAD", "completion": "alpha + beta + gamma + delta\n", "token_s": 0.005, "ttft_s": 0.02},
    {"contains": "HANG", "hang": True},
]


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


class Server:
    def __init__(self, extra_config: str = "") -> None:
        self.extra_config = extra_config
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
        self.up_port, self.port = free_port(), free_port()
        self.token = "bench-" + os.urandom(8).hex()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.http = httpx.AsyncClient(timeout=60)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/codecomplete/inline?token={self.token}"

    @property
    def pid(self) -> int:
        return self.procs[1].pid

    def _spawn(self, args: list[str], log: str, env: dict[str, str]) -> None:
        out = open(self.tmp / log, "wb")
        self.procs.append(subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env))

    async def start(self) -> None:
        (self.tmp / "rules.json").write_text(json.dumps(RULES))
        env = dict(os.environ)
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
            d = self.tmp / name.lower()
            d.mkdir()
            env[name] = str(d)
        env.pop("JUPYTER_TOKEN", None)
        up = f"http://127.0.0.1:{self.up_port}/v1"
        model = {"backend": "openai", "base_url": up, "model": "bench", "style": "raw", "timeout": 60.0}
        (self.tmp / "jupyter_config_dir" / "jupyter_server_config.py").write_text(
            f"c.CodeCompleteApp.completion_model = {model!r}\n"
            f"c.CodeCompleteApp.models = {{'nostream': { ({**model, 'streaming': False})!r}}}\n"
            "c.CodeCompleteApp.routes = {'text/x-nostream': 'nostream'}\n"
            "c.CodeCompleteApp.monitor_event_loop = True\n"
            "c.CodeCompleteApp.discover_local_servers = False\n" + self.extra_config + "\n"
        )
        root = self.tmp / "root"
        root.mkdir()
        py = sys.executable
        self._spawn(
            [py, "-m", "jupyter_codecomplete.testing.openai_upstream", "--port", str(self.up_port),
             "--rules", str(self.tmp / "rules.json"), "--model", "bench"],
            "upstream.log", env,
        )  # fmt: skip
        self._spawn(
            [py, "-m", "jupyter_server", "--ip=127.0.0.1", f"--port={self.port}", "--port-retries=0",
             f"--ServerApp.token={self.token}", "--ServerApp.open_browser=False",
             "--ServerApp.jpserver_extensions={'jupyter_codecomplete': True}",
             f"--ServerApp.root_dir={root}", "--ServerApp.log_level=WARN", "--allow-root"],
            "server.log", env,
        )  # fmt: skip
        deadline = now() + 90
        for url in (up + "/models", f"{self.base}/api/codecomplete/stats?token={self.token}"):
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if (await self.http.get(url)).status_code == 200:
                        break
                if now() > deadline or any(p.poll() is not None for p in self.procs):
                    raise RuntimeError(f"{url} did not come up; logs in {self.tmp}")
                await asyncio.sleep(0.2)
        await asyncio.sleep(6)  # past the start-up gc.freeze

    async def lag_ms(self, reset: bool = False) -> float:
        q = "&reset=1" if reset else ""
        r = await self.http.get(f"{self.base}/api/codecomplete/stats?token={self.token}{q}")
        return float(r.json()["max_loop_lag_ms"] or 0.0)

    async def lag_stats(self) -> dict[str, Any]:
        """The lag monitor's figures (worst, percentiles, the worst sample's CPU, GC pauses)."""
        r = await self.http.get(f"{self.base}/api/codecomplete/stats?objects=1&token={self.token}")
        data = r.json()
        keys = (
            *("p50_loop_lag_ms", "p99_loop_lag_ms", "worst_lag_cpu_ms", "max_gc_pause_ms", "gc_passes"),
            *("gc_max_pause_ms", "gc_max_pause_collected", "gc_tracked_objects", "deferred_full_collections"),
        )
        return {k: data.get(k) for k in keys}

    async def upstream_records(self) -> list[dict[str, Any]]:
        r = await self.http.get(f"http://127.0.0.1:{self.up_port}/_stats")
        return list(r.json()["requests"])

    async def stop(self) -> None:
        await self.http.aclose()
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


RUN = iter(range(1, 1_000_000))


async def warm_up(srv: Server) -> None:
    """One ordinary request first: the first request imports and builds what later ones reuse."""
    ws = await connect(srv, 2)
    await ws.complete(1, f"# LOAD warm{next(RUN)}\n", stream=True)
    ws.close()


async def connect(srv: Server, protocol: int) -> CompletionSocket:
    return await CompletionSocket.connect(
        srv.ws_url, protocol=None if protocol == 1 else protocol, max_message_size=256 * MB
    )


async def flood(protocol: int, stream: bool) -> dict[str, Any]:
    """One 10 MB answer on a fresh server."""
    srv = Server()
    await srv.start()
    try:
        await warm_up(srv)
        base_rss, cpu0 = rss(srv.pid), cpu_seconds(srv.pid)
        await srv.lag_ms(reset=True)
        ws = await connect(srv, protocol)
        t0 = now()
        extra: dict[str, Any] = {"stream": True}
        if not stream:
            extra["mime"] = "text/x-nostream"
        await ws.send(request(1, "# FLOOD\n", **extra))
        received, messages, text = 0, 0, ""
        while True:
            raw = await ws.recv_raw()
            if raw is None:
                break
            received += len(raw)
            messages += 1
            msg = json.loads(raw)
            if msg.get("type") == "stream":
                piece = msg["response"]["insertText"]
                text = text + piece if msg.get("delta") else piece
                if msg["done"]:
                    break
        wall = now() - t0
        ws.close()
        return {
            "case": f"10 MB answer, {'streamed' if stream else 'not streamed'}, protocol {protocol}",
            "wire_bytes": received,
            "messages": messages,
            "suggestion_chars": len(text),
            "wall_s": wall,
            "server_cpu_s": cpu_seconds(srv.pid) - cpu0,
            "rss_before_mb": base_rss / MB,
            "peak_rss_mb": peak_rss(srv.pid) / MB,
            "rss_after_mb": rss(srv.pid) / MB,
            "max_loop_lag_ms": await srv.lag_ms(),
        }
    finally:
        await srv.stop()


async def never_reads() -> dict[str, Any]:
    srv = Server()
    await srv.start()
    try:
        await warm_up(srv)
        base = rss(srv.pid)
        ws = await connect(srv, 1)
        for n in range(1, 21):  # 20 flooding requests, each superseding the one before
            await ws.send(request(n, f"# FLOOD {n}\n", stream=True))
            await asyncio.sleep(0.25)
        await asyncio.sleep(2)
        out = {
            "case": "client that never reads, 20 x 10 MB streamed (protocol 1)",
            "rss_before_mb": base / MB,
            "rss_after_mb": rss(srv.pid) / MB,
            "peak_rss_mb": peak_rss(srv.pid) / MB,
        }
        ws.close()
        return out
    finally:
        await srv.stop()


async def big_prefix(srv: Server) -> dict[str, Any]:
    prefix = "".join(f"line_{i} = {i}  # a comment to make it longer\n" for i in range(90_000))
    await warm_up(srv)
    ws = await connect(srv, 2)
    await srv.lag_ms(reset=True)
    t0 = now()
    await ws.complete(1, prefix + "# LOAD\n", stream=True)
    ws.close()
    return {
        "case": f"{len(prefix) / MB:.1f} MB multi-line prefix",
        "wall_s": now() - t0,
        "max_loop_lag_ms": await srv.lag_ms(),
    }


async def rest_disconnect(srv: Server, n: int = 10) -> dict[str, Any]:
    """A REST client gives up: how long until the model server sees its request closed."""
    delays = []
    for i in range(n):
        body = {"prompt": f"HANG {i} {next(RUN)}", "stream": bool(i % 2)}
        async with httpx.AsyncClient() as client:
            try:
                await client.post(
                    f"{srv.base}/api/codecomplete/completions?token={srv.token}", json=body, timeout=0.3
                )
            except httpx.TimeoutException:
                pass
            gave_up = now()  # the client's connection is closed as the timeout fires
        for _ in range(200):
            rec = [r for r in await srv.upstream_records() if r["body"].get("prompt") == body["prompt"]]
            if rec and rec[0]["closed_at"]:
                delays.append((rec[0]["closed_at"] - gave_up) * 1000)
                break
            await asyncio.sleep(0.01)
    return {
        "case": "REST client gives up: model request closed after",
        "n": len(delays),
        "p50_ms": statistics.median(delays) if delays else None,
        "max_ms": max(delays) if delays else None,
    }


async def load(
    srv: Server, sockets: int, requests: int, profile: str | None = None, label: str = ""
) -> dict[str, Any]:
    socks = [await connect(srv, 2) for _ in range(sockets)]
    sent: dict[str, float] = {}
    done = 0
    finished = asyncio.Event()

    async def reader(ws: CompletionSocket) -> None:
        nonlocal done
        while True:
            try:
                msg = await ws.recv()
            except SocketClosed:
                return
            if msg["type"] == "stream" and msg["done"]:
                done += 1
                if done >= sockets:
                    finished.set()

    readers = [asyncio.ensure_future(reader(ws)) for ws in socks]
    rest: list[float] = []
    stop = False

    async def poll() -> None:
        while not stop:
            t = now()
            r = await srv.http.get(f"{srv.base}/api/status?token={srv.token}")
            r.raise_for_status()
            rest.append((now() - t) * 1000)
            await asyncio.sleep(0.01)

    await asyncio.sleep(1)
    await srv.lag_ms(reset=True)
    run = next(RUN)
    spy = start_profile(srv.pid, profile) if profile else None
    poller = asyncio.ensure_future(poll())
    cpu0 = cpu_seconds(srv.pid)
    t0 = now()
    for n in range(1, requests + 1):  # typing: each socket sends a superseding request
        for k, ws in enumerate(socks):
            marker = f"LOAD r{run}s{k}n{n}x"
            sent[marker] = now()
            ws.send_nowait(request(n, f"# {marker}\n", stream=True))
        await asyncio.sleep(0.005)
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(finished.wait(), 60)
    wall = now() - t0
    stop = True
    await poller
    cpu = cpu_seconds(srv.pid) - cpu0
    if spy is not None:
        stop_profile(spy)
    lag = await srv.lag_ms()
    lag_detail = await srv.lag_stats()
    records = await srv.upstream_records()
    reach = []
    for rec in records:
        prompt = str(rec["body"].get("prompt", ""))
        for marker in (prompt[2:].split("\n", 1)[0],):
            if marker in sent:
                reach.append((rec["started"] - sent[marker]) * 1000)
    for ws in socks:
        ws.close()
    for r in readers:
        r.cancel()
    return {
        "case": f"{sockets} sockets x {requests} superseding requests{label}",
        "wall_s": wall,
        "server_cpu_s": cpu,
        "server_cpu_ms_per_request": cpu * 1000 / (sockets * requests),
        "final_answers": done,
        "upstream_requests": len(reach),
        "max_loop_lag_ms": lag,
        **lag_detail,
        "rest_get_p50_ms": statistics.median(rest) if rest else None,
        "rest_get_p99_ms": percentile(rest, 99),
        "reach_upstream_p50_ms": statistics.median(reach) if reach else None,
        "reach_upstream_p99_ms": percentile(reach, 99),
    }


def cleaning() -> list[dict[str, Any]]:
    from jupyter_codecomplete.postprocess import PostprocessContext, make_pipeline

    out = []
    for n in (2_500, 5_000, 10_000, 20_000):
        ctx = PostprocessContext(language="python", prefix="def f():\n    ", suffix="")
        p = make_pipeline(ctx)
        t = time.process_time()
        longest = 0.0
        for _ in range(n):
            s = time.perf_counter()
            p.feed("y" * 500)
            longest = max(longest, time.perf_counter() - s)
        p.finish()
        out.append(
            {
                "case": f"cleaning {n} events of 500 bytes (one line, no size cap)",
                "cpu_s": time.process_time() - t,
                "longest_feed_ms": longest * 1000,
            }
        )
    return out


def start_profile(pid: int, path: str) -> subprocess.Popen[bytes]:
    """Sample the server's stacks with py-spy (``pip install py-spy``) until :func:`stop_profile`."""
    spy = subprocess.Popen(
        ["py-spy", "record", "--pid", str(pid), "--rate", "500", "--format", "raw", "--output", path,
         "--nonblocking"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(0.5)  # attached
    return spy


def stop_profile(spy: subprocess.Popen[bytes]) -> None:
    spy.send_signal(signal.SIGINT)
    try:
        spy.wait(30)
    except subprocess.TimeoutExpired:
        spy.kill()


def profile_summary(path: str, top: int = 25) -> list[str]:
    """The functions the server spent its samples in (own samples, and with what they called)."""
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [f.split(" (")[0] + " (" + f.split(" (")[1].split(":")[0].rsplit("/", 1)[-1] + ")"
                  if " (" in f else f for f in stack.split(";")]  # fmt: skip
        total += n
        own[frames[-1]] += n
        for frame in set(frames):
            inclusive[frame] += n
    lines = [f"{total} samples; own / with callees:"]
    for frame, n in own.most_common(top):
        lines.append(f"  {100 * n / total:5.1f} % / {100 * inclusive[frame] / total:5.1f} %  {frame}")
    return lines


async def load_rounds(srv: Server, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The load phase's rounds; with ``--versus``, alternately on this server (A) and on one with
    the extra configuration (B), so that both see the same machine."""
    servers = [("", srv)]
    if args.versus:
        other = Server("\n".join(args.versus))
        await other.start()
        servers = [(" [A]", srv), (" [B]", other)]
    results = []
    try:
        for _, s in servers:
            await load(s, 20, 2)  # warm-up
        for k in range(args.rounds):
            for label, s in servers:
                tag = label.strip(" []").lower()
                profile = f"{args.profile}.{k}{tag}" if args.profile else None
                results.append(await load(s, args.sockets, args.requests, profile, label))
                print(results[-1], flush=True)
                if profile:
                    print("\n".join(profile_summary(profile)), flush=True)
    finally:
        if args.versus:
            await servers[1][1].stop()
    if args.versus:
        for label, _ in servers:
            mine = [r for r in results if r["case"].endswith(label)]
            medians = {k: statistics.median(r[k] for r in mine) for k in VERSUS_KEYS}
            print(f"median{label}: " + ", ".join(f"{k} {v:.2f}" for k, v in medians.items()), flush=True)
    return results


VERSUS_KEYS = ("server_cpu_s", "max_loop_lag_ms", "p50_loop_lag_ms", "worst_lag_cpu_ms", "max_gc_pause_ms",
               "rest_get_p50_ms", "reach_upstream_p50_ms")  # fmt: skip

PHASES = ("flood", "never_reads", "cleaning", "big_prefix", "rest_disconnect", "load")


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    phases = set(args.phases)
    if "flood" in phases:
        for protocol, stream in ((1, True), (2, True), (2, False)):
            results.append(await flood(protocol, stream))
            print(results[-1], flush=True)
    if "never_reads" in phases:
        results.append(await never_reads())
        print(results[-1], flush=True)
    if "cleaning" in phases:
        results.extend(cleaning())
    srv = Server()
    await srv.start()
    try:
        if "big_prefix" in phases:
            results.append(await big_prefix(srv))
            print(results[-1], flush=True)
        if "rest_disconnect" in phases:
            results.append(await rest_disconnect(srv))
            print(results[-1], flush=True)
        if "load" in phases:
            results.extend(await load_rounds(srv, args))
    finally:
        await srv.stop()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--sockets", type=int, default=200)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3, help="load runs on the same server")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    ap.add_argument(
        "--versus",
        action="append",
        metavar="CONFIG_LINE",
        help="run the load rounds alternately on a second server with this configuration line too "
        "(repeatable), e.g. 'c.CodeCompleteApp.defer_full_collections = False'",
    )
    ap.add_argument("--profile", help="sample the server with py-spy in each load run (raw stacks: PATH.N)")
    args = ap.parse_args(argv)
    results = asyncio.run(run(args))
    print()
    print("| case | figures |")
    print("|---|---|")
    for r in results:
        figures = ", ".join(
            f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items() if k != "case"
        )
        print(f"| {r['case']} | {figures} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
