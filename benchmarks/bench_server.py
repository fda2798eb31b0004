"""Benchmark the completion server end to end: latency, cancellation, loop lag, memory, a soak.

Starts two processes on loopback ports: the scripted OpenAI-format upstream
(``jupyter_codecomplete.testing.openai_upstream``, a fixed time to first token and time between
tokens) and ``jupyter server`` with this extension pointed at it (isolated config/data/runtime
dirs in a temp dir). The benchmark process is the client: websockets to
``api/codecomplete/inline`` and, for comparison in the same run, plain streaming HTTP requests
straight to the upstream with the very body the server sends.

    python benchmarks/bench_server.py                      # about 2.5 minutes, 60 s soak
    python benchmarks/bench_server.py --soak-seconds 600   # the 10-minute soak
    python benchmarks/bench_server.py --quick              # a smoke run (~40 s)

"First chunk" is the first ``stream`` message whose ``insertText`` is not empty (through the
server) and the first server-sent event carrying text (direct). The scripted completions start
with a plain identifier after ``total = ``, which the post-processor passes on at once, so both
sides measure the same first token. Prints one markdown table (measure, value, target, met);
``--json PATH`` also writes every number. Never part of the pass/fail tests.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from jupyter_codecomplete.testing.processes import free_port
from jupyter_codecomplete.testing.wsclient import CompletionSocket, request

now = time.monotonic  # CLOCK_MONOTONIC: comparable with the upstream process's records

LAT, TYPE, LONG = "#@LAT@", "#@TYPE@", "#@LONG@"
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi".split()
# one line of code: the post-processor streams it word by word (it ends the suggestion at "\n")
LAT_TEXT = "alpha + beta\n"
TYPE_TEXT = " + ".join(WORDS[:10]) + "\n"  # 39 tokens: ~215 ms at 5 ms/token
LONG_TEXT = " + ".join((WORDS * 3)[:40]) + "\n"  # capped by max_tokens (64 tokens)
PREFIX_TAIL = "\ndef f(alpha, beta):\n    total = "
# --text code: ordinary code instead of words (whitespace tokens, brackets, a comma: what the
# cleaning holds back where it must), the same sizes: 18 / 40 / 64+ tokens
CODE_TEXTS = (
    "sum(values) / max(len(values), 1)\n",
    "sum(x * x for x in values) / max(len(values), 1) + offset(alpha, beta)\n",
    " + ".join(f"scale({w}, {i})" for i, w in enumerate(WORDS * 2)) + "\n",
)
TEXTS = {"words": (LAT_TEXT, TYPE_TEXT, LONG_TEXT), "code": CODE_TEXTS}


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan for no values."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Req:
    """One completion request as the client saw it (times are time.monotonic())."""

    number: int
    marker: str
    t_send: float = 0.0
    t_first: float | None = None
    first_text: str = ""
    t_done: float | None = None
    error: str | None = None
    t_superseded: float | None = None
    frames: int = 0  # stream messages received
    done: asyncio.Event = field(default_factory=asyncio.Event)
    first: asyncio.Event = field(default_factory=asyncio.Event)  # set with t_first, or when done

    @property
    def first_ms(self) -> float | None:
        return None if self.t_first is None else (self.t_first - self.t_send) * 1000

    @property
    def whole_ms(self) -> float | None:
        """To the end of the answer (the done message; direct: the end of the stream)."""
        return None if self.t_done is None or self.error else (self.t_done - self.t_send) * 1000


class Markers:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, kind: str) -> str:
        self.n += 1
        return f"{kind} id{self.n:07d}x"


class WsClient:
    """A completion websocket with a reader that files every message under its request."""

    def __init__(self, conn: CompletionSocket) -> None:
        self.conn = conn
        self.reqs: dict[int, Req] = {}
        self.number = 0
        self.closed = asyncio.Event()
        self.reader: asyncio.Task[None] | None = None
        # called with (request number, arrival time, text) for every stream message with text
        self.on_piece: Callable[[int, float, str], None] | None = None

    @classmethod
    async def connect(cls, url: str, protocol: int | None = None) -> WsClient:
        conn = await CompletionSocket.connect(url, protocol=protocol, max_message_size=64 * 1024 * 1024)
        conn.ws.protocol.set_nodelay(True)  # type: ignore[union-attr]  # as browsers do
        client = cls(conn)
        client.reader = asyncio.get_running_loop().create_task(client._read())
        return client

    def send(self, marker: str, **extra: Any) -> Req:
        self.number += 1
        req = Req(self.number, marker)
        t = now()
        for old in self.reqs.values():  # the server supersedes every older request in flight
            if old.t_done is None and old.t_superseded is None:
                old.t_superseded = t
        self.reqs[req.number] = req
        fields: dict[str, Any] = {"path": "bench.ipynb", "stream": True, **extra}
        prefix = fields.pop("prefix", f"# {marker}{PREFIX_TAIL}")  # a caller may bring its own prefix
        msg = request(req.number, prefix, **fields)
        data = json.dumps(msg)
        req.t_send = now()
        self.conn.send_nowait(data)
        return req

    async def _read(self) -> None:
        while True:
            raw = await self.conn.recv_raw()
            t = now()
            if raw is None:
                break
            msg = json.loads(raw)
            req = self.reqs.get(msg.get("reply_to", -1))
            if req is None:
                continue
            kind = msg["type"]
            if kind == "stream":
                req.frames += 1
                text = msg["response"]["insertText"]
                if text and self.on_piece is not None:
                    self.on_piece(req.number, t, text)
                if text and req.t_first is None:
                    req.t_first, req.first_text = t, text
                    req.first.set()
                if msg["done"]:
                    req.error = (msg.get("error") or {}).get("type")
                    self._finish(req, t)
            elif kind == "error":
                req.error = msg["error"]["type"]
                self._finish(req, t)
            elif kind == "inline_completion" and msg.get("error"):
                req.error = msg["error"]["type"]
                self._finish(req, t)
        self.closed.set()
        for req in self.reqs.values():
            req.done.set()

    def _finish(self, req: Req, t: float) -> None:
        req.t_done = t
        req.done.set()
        req.first.set()
        # forget finished requests, except the recent ones (bounded memory in long soaks)
        if len(self.reqs) > 64:
            for n in [n for n, r in self.reqs.items() if r.t_done is not None][:32]:
                self.reqs.pop(n, None)

    async def close(self) -> None:
        self.conn.close()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.closed.wait(), 5)
        if self.reader is not None:
            self.reader.cancel()


class Direct:
    """Streaming requests straight to the upstream, with the body the server sends."""

    def __init__(self, base_url: str, body: dict[str, Any], marker: str) -> None:
        self.url = base_url + "/completions"
        self.body = body
        self.template_marker = marker
        self.client = httpx.AsyncClient(timeout=30)

    async def request(self, req: Req) -> None:
        body = dict(self.body)
        body["prompt"] = str(body["prompt"]).replace(self.template_marker, req.marker)
        req.t_send = now()
        try:
            async with self.client.stream("POST", self.url, json=body) as resp:
                async for line in resp.aiter_lines():
                    if not line.startswith("data: "):
                        continue
                    data = line[6:]
                    if data == "[DONE]":
                        break
                    text = json.loads(data)["choices"][0]["text"]
                    if text and req.t_first is None:
                        req.t_first, req.first_text = now(), text
        finally:
            req.t_done = now()
            req.done.set()

    async def close(self) -> None:
        await self.client.aclose()


class Servers:
    """The upstream and the Jupyter server, as subprocesses in a temp dir."""

    def __init__(
        self,
        ttft_ms: float,
        token_ms: float,
        keep: bool,
        rules: list[dict[str, Any]] | None = None,
        text: str = "words",
        config: str = "",
        pythonpath: str | None = None,
        monitor: bool = True,
        nagle: bool = False,
    ) -> None:
        self.nagle = nagle  # the model stub streams with Nagle's algorithm on (no TCP_NODELAY)
        self.pythonpath = pythonpath  # another checkout's package (a before/after in one run)
        self.monitor = monitor  # the loop-lag monitor (off by default in a user's server)
        self.extra_rules = list(rules or [])
        self.extra_config = config  # more lines of the server's config (another model, a setting)
        self.texts = TEXTS[text]
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-codecomplete-"))
        self.keep = keep
        self.ttft_ms, self.token_ms = ttft_ms, token_ms
        self.up_port, self.port = free_port(), free_port()
        self.token = "bench-" + os.urandom(8).hex()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.http = httpx.AsyncClient(timeout=30)

    @property
    def up_url(self) -> str:
        return f"http://127.0.0.1:{self.up_port}/v1"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/codecomplete/inline?token={self.token}"

    def _spawn(self, args: list[str], log: str, env: dict[str, str]) -> None:
        out = open(self.tmp / log, "wb")  # lives as long as the process
        # cwd: the run's own folder. `python -m` puts the working directory first on sys.path,
        # ahead of PYTHONPATH: run from a checkout's root, a `pythonpath` server would import that
        # checkout's package, not its own (the before/after of --compare would be one code twice).
        self.procs.append(subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.tmp))

    async def start(self) -> None:
        rules = [
            {"contains": LAT, "completion": self.texts[0]},
            {"contains": TYPE, "completion": self.texts[1]},
            {"contains": LONG, "completion": self.texts[2]},
            *self.extra_rules,
        ]
        (self.tmp / "rules.json").write_text(json.dumps(rules))
        env = dict(os.environ)
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
            d = self.tmp / name.lower()
            d.mkdir()
            env[name] = str(d)
        env.pop("JUPYTER_TOKEN", None)
        if self.pythonpath is not None:
            env["PYTHONPATH"] = self.pythonpath
        model = {
            "backend": "openai",
            "base_url": self.up_url,
            "model": "bench",
            "style": "raw",
            "max_tokens": 64,
        }
        (self.tmp / "jupyter_config_dir" / "jupyter_server_config.py").write_text(
            f"c.CodeCompleteApp.completion_model = {model!r}\n"
            f"c.CodeCompleteApp.monitor_event_loop = {self.monitor}\n"
            "c.CodeCompleteApp.discover_local_servers = False\n" + self.extra_config
        )
        root = self.tmp / "root"
        root.mkdir()
        py = sys.executable
        self._spawn(
            [
                py, "-m", "jupyter_codecomplete.testing.openai_upstream", "--port", str(self.up_port),
                "--rules", str(self.tmp / "rules.json"), "--ttft-ms", str(self.ttft_ms),
                "--token-ms", str(self.token_ms), "--model", "bench", *(["--nagle"] if self.nagle else []),
            ],
            "upstream.log",
            env,
        )  # fmt: skip
        self._spawn(
            [
                py, "-m", "jupyter_server", "--ip=127.0.0.1", f"--port={self.port}",
                "--port-retries=0", f"--ServerApp.token={self.token}", "--ServerApp.open_browser=False",
                "--ServerApp.jpserver_extensions={'jupyter_codecomplete': True}",
                f"--ServerApp.root_dir={root}", "--ServerApp.log_level=WARN", "--allow-root",
            ],
            "server.log",
            env,
        )  # fmt: skip
        deadline = now() + 90
        for url in (self.up_url + "/models", f"{self.base}/api/codecomplete/stats?token={self.token}"):
            while True:
                if any(p.poll() is not None for p in self.procs):
                    raise RuntimeError(f"a process exited early; logs in {self.tmp}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await self.http.get(url)).status_code == 200:
                        break
                if now() > deadline:
                    raise RuntimeError(f"{url} did not come up; logs in {self.tmp}")
                await asyncio.sleep(0.2)

    async def stats(self, reset: bool = False, gc: bool = False) -> dict[str, Any]:
        q = "&reset=1" if reset else ""
        q += "&gc=1" if gc else ""
        r = await self.http.get(f"{self.base}/api/codecomplete/stats?token={self.token}{q}")
        r.raise_for_status()
        return dict(r.json())

    async def upstream_records(self) -> list[dict[str, Any]]:
        r = await self.http.get(self.up_url.rsplit("/v1", 1)[0] + "/_stats")
        return list(r.json()["requests"])

    def server_pid(self) -> int:
        return self.procs[1].pid

    async def stop(self) -> None:
        await self.http.aclose()
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


def by_marker(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for rec in records:
        prompt = str(rec.get("body", {}).get("prompt", ""))
        i = prompt.find(" id")
        if i != -1:
            out[prompt[i + 1 : i + 11]] = rec
    return out


def marker_id(marker: str) -> str:
    return marker.split()[1]


@dataclass
class CancelStats:
    close_ms: list[float] = field(default_factory=list)
    tokens_after: list[int] = field(default_factory=list)
    finished_first: int = 0  # the upstream had sent everything before the newer request came
    never_sent: int = 0  # cancelled before the upstream request was made
    not_closed: int = 0  # the upstream never saw the hang-up (a failure)


def cancel_stats(reqs: list[Req], records: list[dict[str, Any]]) -> CancelStats:
    recs = by_marker(records)
    out = CancelStats()
    for req in reqs:
        if req.t_superseded is None:
            continue
        rec = recs.get(marker_id(req.marker))
        if rec is None:
            out.never_sent += 1
            continue
        if rec["finished"] and not rec["client_closed"]:
            out.finished_first += 1
            continue
        if rec["closed_at"] is None:
            out.not_closed += 1
            continue
        out.close_ms.append((rec["closed_at"] - req.t_superseded) * 1000)
        after = sum(1 for t in rec["token_times"] if t > req.t_superseded)
        out.tokens_after.append(after + int(rec["tokens_after_close"]))
    return out


# ---------------------------------------------------------------------------------------- phases
async def warm_up(srv: Servers, markers: Markers) -> Direct:
    ws = await WsClient.connect(srv.ws_url)
    for _ in range(20):
        req = ws.send(markers(LAT))
        await asyncio.wait_for(req.done.wait(), 30)
        assert req.error is None and req.first_text, (req.error, req.first_text)
    recs = by_marker(await srv.upstream_records())
    body = recs[marker_id(req.marker)]["body"]
    await ws.close()
    return Direct(srv.up_url, body, req.marker)


async def idle_sockets(srv: Servers, n: int) -> dict[str, Any]:
    before = await srv.stats(gc=True)
    socks = [await WsClient.connect(srv.ws_url) for _ in range(n)]
    await asyncio.sleep(1.0)
    after = await srv.stats(gc=True)
    for s in socks:
        await s.close()
    extra = after["rss_bytes"] - before["rss_bytes"]
    return {"sockets": n, "rss_before": before["rss_bytes"], "extra_bytes": extra}


async def one_client(srv: Servers, direct: Direct, markers: Markers, pairs: int) -> dict[str, Any]:
    ws = await WsClient.connect(srv.ws_url)
    via: list[Req] = []
    dir_: list[Req] = []
    first_texts: set[str] = set()
    cpu0 = cpu_seconds(srv.server_pid())
    for i in range(pairs):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        for which in order:
            if which == 0:
                req = ws.send(markers(LAT))
                await asyncio.wait_for(req.done.wait(), 30)
                via.append(req)
                first_texts.add(req.first_text)
            else:
                req = Req(0, markers(LAT))
                await asyncio.wait_for(direct.request(req), 30)
                dir_.append(req)
            await asyncio.sleep(0.01)
    cpu = cpu_seconds(srv.server_pid()) - cpu0
    await ws.close()
    v = [r.first_ms for r in via if r.first_ms is not None]
    d = [r.first_ms for r in dir_ if r.first_ms is not None]
    return {
        "server_ms": v,
        "direct_ms": d,
        "server_whole_ms": [r.whole_ms for r in via if r.whole_ms is not None],
        "direct_whole_ms": [r.whole_ms for r in dir_ if r.whole_ms is not None],
        "errors": sum(1 for r in via if r.error),
        "server_cpu_ms": cpu / max(1, len(via)) * 1000,
        "first_texts": sorted(first_texts),
        "direct_first_texts": sorted({r.first_text for r in dir_}),
    }


@dataclass
class Typing:
    """How a user types: bursts of ``burst`` requests ``gap`` s apart, then a ``pause`` (uniform ranges).

    Each request supersedes the one before; a gap shorter than a stream cancels it mid-stream.
    """

    burst: int = 2
    gap: tuple[float, float] = (0.1, 0.2)
    pause: tuple[float, float] = (1.0, 2.0)

    def rate(self) -> float:
        """Mean requests per second of one user."""
        mean = (self.burst - 1) * sum(self.gap) / 2 + sum(self.pause) / 2
        return self.burst / mean


async def typing(
    clients: int, seconds: float, send: Callable[[int, str], Awaitable[Req]], how: Typing
) -> list[Req]:
    """``clients`` users typing for ``seconds``."""
    out: list[Req] = []
    end = now() + seconds

    async def user(k: int, rng: random.Random) -> None:
        await asyncio.sleep(rng.uniform(0, how.pause[1]))
        i = 0
        while now() < end:
            out.append(await send(k, TYPE))
            i += 1
            await asyncio.sleep(rng.uniform(*(how.gap if i % how.burst else how.pause)))

    await asyncio.gather(*(user(k, random.Random(k * 7919 + int(seconds))) for k in range(clients)))
    await asyncio.sleep(0.5)  # let the last streams end
    return out


async def load(
    srv: Servers,
    direct: Direct,
    markers: Markers,
    clients: int,
    seconds: float,
    rounds: int,
    how: Typing,
) -> dict[str, Any]:
    """Alternate phases through the server and direct, ``rounds`` of each, same typing pattern."""
    via: list[Req] = []
    dir_: list[Req] = []
    lags: list[float] = []
    per = seconds / rounds
    cpu = busy = 0.0
    for _ in range(rounds):
        socks = [await WsClient.connect(srv.ws_url) for _ in range(clients)]
        await srv.stats(reset=True)

        async def send_ws(k: int, kind: str, socks: list[WsClient] = socks) -> Req:
            return socks[k].send(markers(kind))

        cpu0, t0 = cpu_seconds(srv.server_pid()), now()
        via += await typing(clients, per, send_ws, how)
        cpu += cpu_seconds(srv.server_pid()) - cpu0
        busy += now() - t0
        lags.append(float((await srv.stats())["max_loop_lag_ms"]))
        for s in socks:
            await s.close()

        running: dict[int, tuple[Req, asyncio.Task[None]]] = {}
        tasks: list[asyncio.Task[None]] = []

        async def send_direct(
            k: int,
            kind: str,
            running: dict[int, tuple[Req, asyncio.Task[None]]] = running,
            tasks: list[asyncio.Task[None]] = tasks,
        ) -> Req:
            req = Req(0, markers(kind))
            prev = running.get(k)
            if prev is not None and not prev[1].done():
                prev[0].t_superseded = now()
                prev[1].cancel()  # closes the HTTP stream, as the server does
            task = asyncio.get_running_loop().create_task(direct.request(req))
            running[k] = (req, task)
            tasks.append(task)
            return req

        dir_ += await typing(clients, per, send_direct, how)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    records = await srv.upstream_records()
    cs = cancel_stats(via, records)
    return {
        "server_ms": [r.first_ms for r in via if r.first_ms is not None],
        "direct_ms": [r.first_ms for r in dir_ if r.first_ms is not None],
        "requests": len(via),
        "direct_requests": len(dir_),
        "no_first_chunk": sum(1 for r in via if r.first_ms is None and r.t_superseded is None),
        "superseded_before_first": sum(1 for r in via if r.first_ms is None and r.t_superseded is not None),
        "errors": sum(1 for r in via if r.error not in (None, "superseded")),
        "max_loop_lag_ms": max(lags),
        "server_cpu_pct": cpu / busy * 100,
        "cancel": cs.__dict__,
    }


async def supersede(srv: Servers, markers: Markers, n: int) -> dict[str, Any]:
    """Start a long stream, and while it streams send a newer request; when did the upstream see
    the hang-up, and how many tokens did it make after the newer request was sent?"""
    ws = await WsClient.connect(srv.ws_url)
    rng = random.Random(3)
    olds: list[Req] = []
    for _ in range(n):
        old = ws.send(markers(LONG))
        await asyncio.wait_for(old.first.wait(), 30)
        await asyncio.sleep(rng.uniform(0, 0.05))
        new = ws.send(markers(LAT))
        await asyncio.wait_for(asyncio.gather(old.done.wait(), new.done.wait()), 30)
        assert old.error == "superseded", old.error
        olds.append(old)
        await asyncio.sleep(0.05)
    await ws.close()
    await asyncio.sleep(0.2)
    return cancel_stats(olds, await srv.upstream_records()).__dict__


async def soak(srv: Servers, markers: Markers, seconds: float, rate: float, warmup: float) -> dict[str, Any]:
    """``rate`` requests/s from 4 sockets (each reconnects every 100 requests); memory and tasks."""
    n_clients = 4
    interval = n_clients / rate
    cells = [
        {"cell_type": "code", "language": "python", "source": f"x{i} = load({i})\nprint(x{i})\n"}
        for i in range(5)
    ]
    baseline = await srv.stats(gc=True)
    samples: list[tuple[float, int]] = []
    sent = [0]
    errors: dict[str, int] = {}
    rss_start: list[int] = []

    async def client(k: int, end: float, t0: float) -> None:
        ws = await WsClient.connect(srv.ws_url)
        i = 0
        try:
            while True:
                due = t0 + k * interval / n_clients + i * interval
                if due >= end:
                    break
                await asyncio.sleep(max(0.0, due - now()))
                ws.send(markers(TYPE), cells_above=cells[: i % 6])
                sent[0] += 1
                i += 1
                if i % 100 == 0:
                    await asyncio.sleep(0.3)
                    for r in ws.reqs.values():
                        if r.error not in (None, "superseded"):
                            errors[r.error] = errors.get(r.error, 0) + 1
                    await ws.close()
                    ws = await WsClient.connect(srv.ws_url)
            await asyncio.sleep(0.5)
            for r in ws.reqs.values():
                if r.error not in (None, "superseded"):
                    errors[r.error] = errors.get(r.error, 0) + 1
        finally:
            await ws.close()

    async def sampler(end: float) -> None:
        while now() < end:
            await asyncio.sleep(min(10.0, max(0.0, end - now())))
            st = await srv.stats()
            samples.append((now(), int(st["rss_bytes"])))

    t0 = now()
    end = t0 + warmup + seconds

    async def mark_start() -> None:
        await asyncio.sleep(warmup)
        rss_start.append(int((await srv.stats(gc=True))["rss_bytes"]))

    await asyncio.gather(*(client(k, end, t0) for k in range(n_clients)), sampler(end), mark_start())
    elapsed = now() - t0
    await asyncio.sleep(1.0)
    final = await srv.stats(gc=True)
    return {
        "seconds": seconds,
        "warmup_s": warmup,
        "sent": sent[0],
        "rate": sent[0] / elapsed,
        "rss_start": rss_start[0],
        "rss_end": final["rss_bytes"],
        "growth_pct": (final["rss_bytes"] - rss_start[0]) / rss_start[0] * 100,
        "rss_samples": [s for _, s in samples],
        "tasks_before": baseline["tasks"],
        "tasks_after": final["tasks"],
        "codecomplete_tasks_after": final["codecomplete_tasks"],
        "codecomplete_tasks_before": baseline["codecomplete_tasks"],
        # the lag monitor is a "codecomplete:" task too: count the difference
        "leaked_tasks": max(0, final["tasks"] - baseline["tasks"])
        + max(0, final["codecomplete_tasks"] - baseline["codecomplete_tasks"]),
        "errors": errors,
    }


# ----------------------------------------------------------------------------------------- report
def prompt_p50(path: str | None) -> tuple[float | None, str]:
    """The p50 of 'end of notebook, completion' with the exact tokenizer from bench_prompt output."""
    if not path or not os.path.exists(path):
        return None, "run benchmarks/bench_prompt.py"
    best: float | None = None
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) > 8 and parts[0] == "4096" and "bpe" in line and "+verify" not in line:
            v = float(parts[-4])
            best = v if best is None else max(best, v)
    return best, "bench_prompt.py, window 4096, worst case"


def dist(v: list[float]) -> str:
    return f"p50 {percentile(v, 50):.2f} p90 {percentile(v, 90):.2f} p99 {percentile(v, 99):.2f} ms"


def rows(res: dict[str, Any]) -> Iterator[tuple[str, str, str, bool | None]]:
    """(measure, value, target, met) for each phase that ran."""
    if "one_client" in res:
        one = res["one_client"]
        sp50 = percentile(one["server_ms"], 50) - percentile(one["direct_ms"], 50)
        sp99 = percentile(one["server_ms"], 99) - percentile(one["direct_ms"], 99)
        yield (
            "added latency to first chunk, 1 client, p50 / p99",
            f"{sp50:.2f} / {sp99:.2f} ms",
            "≤ 2 / ≤ 10 ms",
            sp50 <= 2 and sp99 <= 10,
        )
        if one.get("server_whole_ms"):
            w50 = percentile(one["server_whole_ms"], 50) - percentile(one["direct_whole_ms"], 50)
            yield (
                "added latency to the whole answer, 1 client, p50 (the first chunk's may not exceed it)",
                f"{w50:.2f} ms",
                f"≥ {sp50:.2f} ms",
                sp50 <= w50 + 0.5,
            )
    if "load" in res:
        ld = res["load"]
        lp99 = percentile(ld["server_ms"], 99) - percentile(ld["direct_ms"], 99)
        yield (
            f"added latency to first chunk, {res['args']['clients']} clients typing "
            f"(~{res['typing_rate']:.0f} req/s), p99",
            f"{lp99:.2f} ms",
            "≤ 25 ms",
            lp99 <= 25,
        )
    toks: list[int] = []
    for key, label in (("supersede", "1 client"), ("load", "under the typing load")):
        if key not in res:
            continue
        c = res[key] if key == "supersede" else res[key]["cancel"]
        toks += c["tokens_after"]
        c99 = percentile(c["close_ms"], 99)
        yield (
            f"superseded: upstream closed after the newer request, p99 ({label})",
            f"{c99:.2f} ms (n={len(c['close_ms'])})",
            "≤ 20 ms",
            c99 <= 20 and c["not_closed"] == 0,
        )
    if toks:
        yield (
            "upstream tokens generated after supersede, max (mean)",
            f"{max(toks)} ({statistics.mean(toks):.2f})",
            "≤ 2 per request",
            max(toks) <= 2,
        )
    if "load" in res:
        lag = res["load"]["max_loop_lag_ms"]
        yield ("event-loop lag under the typing load, max", f"{lag:.1f} ms", "≤ 20 ms", lag <= 20)
    pp, how = res["prompt"]
    if pp is not None:
        yield (
            "prompt, 1,000-cell notebook (2 MB), exact tokenizer, p50",
            f"{pp:.2f} ms ({how})",
            "≤ 20 ms",
            pp <= 20,
        )
    if "idle" in res:
        idle = res["idle"]
        mb = idle["extra_bytes"] / 2**20
        yield (f"{idle['sockets']} idle sockets, extra memory", f"{mb:.2f} MB", "≤ 10 MB", mb <= 10)
    if "soak" in res:
        sk = res["soak"]
        yield (
            f"soak {sk['seconds']:.0f} s at {sk['rate']:.1f} req/s: memory growth, leaked tasks",
            f"{sk['growth_pct']:+.2f} %, {sk['leaked_tasks']}",
            "≤ 5 %, 0",
            sk["growth_pct"] <= 5 and sk["leaked_tasks"] == 0,
        )


def print_report(res: dict[str, Any]) -> None:
    a = res["args"]
    print()
    print(
        f"# bench_server: {res['date']}, {res['machine']}; upstream TTFT {a['ttft_ms']} ms, "
        f"{a['token_ms']} ms/token, {a.get('text', 'words')} text"
    )
    print()
    print("| measure | value | target | met |")
    print("|---|---|---|---|")
    for name, value, target, met in rows(res):
        mark = "—" if met is None else ("yes" if met else "**no**")
        print(f"| {name} | {value} | {target} | {mark} |")
    print()
    print("Details:")
    if "one_client" in res:
        one = res["one_client"]
        print(f"- 1 client, first chunk: server {dist(one['server_ms'])} (n={len(one['server_ms'])})")
        print(f"  direct {dist(one['direct_ms'])} (n={len(one['direct_ms'])}); errors {one['errors']}")
        print(f"  first chunk text: server {one['first_texts']}, direct {one['direct_first_texts']}")
        if one.get("server_whole_ms"):
            whole = f"server {dist(one['server_whole_ms'])}, direct {dist(one['direct_whole_ms'])}"
            print(f"  whole answer: {whole}")
        print(f"  server CPU per request: {one['server_cpu_ms']:.2f} ms")
    if "load" in res:
        ld = res["load"]
        n = len(ld["server_ms"])
        print(f"- {a['clients']} clients typing, first chunk: server {dist(ld['server_ms'])} (n={n})")
        print(f"  direct {dist(ld['direct_ms'])} (n={len(ld['direct_ms'])})")
        print(
            f"  requests {ld['requests']}, superseded before their first chunk "
            f"{ld['superseded_before_first']}, without a first chunk {ld['no_first_chunk']}, "
            f"errors {ld['errors']}; server CPU {ld['server_cpu_pct']:.0f} % of a core"
        )
    for key, label in (("supersede", "1 client"), ("load", "typing load")):
        if key in res:
            c = res[key] if key == "supersede" else res[key]["cancel"]
            print(
                f"- supersede ({label}): close {dist(c['close_ms'])}; upstream had finished "
                f"{c['finished_first']}, never reached upstream {c['never_sent']}, "
                f"not closed {c['not_closed']}"
            )
    if "soak" in res:
        sk = res["soak"]
        print(
            f"- soak: {sk['sent']} requests, rss {sk['rss_start'] / 2**20:.1f} → "
            f"{sk['rss_end'] / 2**20:.1f} MB (after {sk['warmup_s']:.0f} s warm-up), samples "
            f"{[round(s / 2**20, 1) for s in sk['rss_samples']]} MB; tasks {sk['tasks_before']} → "
            f"{sk['tasks_after']}, codecomplete tasks {sk['codecomplete_tasks_before']} → "
            f"{sk['codecomplete_tasks_after']}; errors {sk['errors']}"
        )
    if "idle" in res:
        print(f"- idle sockets: rss before {res['idle']['rss_before'] / 2**20:.1f} MB")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    srv = Servers(args.ttft_ms, args.token_ms, args.keep, text=args.text)
    markers = Markers()
    res: dict[str, Any] = {
        "args": vars(args),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "machine": f"{platform.node()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}",
    }
    try:
        print(f"starting servers in {srv.tmp} ...", flush=True)
        await srv.start()
        direct = await warm_up(srv, markers)
        g, p = args.typing_gap_ms, args.typing_pause_ms
        how = Typing(args.typing_burst, (g[0] / 1000, g[1] / 1000), (p[0] / 1000, p[1] / 1000))
        res["typing_rate"] = how.rate() * args.clients
        steps: list[tuple[str, Callable[[], Awaitable[dict[str, Any]]]]] = [
            ("idle", lambda: idle_sockets(srv, args.idle_sockets)),
            ("one_client", lambda: one_client(srv, direct, markers, args.pairs)),
            (
                "load",
                lambda: load(srv, direct, markers, args.clients, args.load_seconds, args.rounds, how),
            ),
            ("supersede", lambda: supersede(srv, markers, args.supersedes)),
            ("soak", lambda: soak(srv, markers, args.soak_seconds, args.soak_rate, args.soak_warmup)),
        ]
        for name, step in steps:
            if name not in args.phases:
                continue
            t = now()
            print(f"{name} ...", end=" ", flush=True)
            res[name] = await step()
            print(f"{now() - t:.1f} s", flush=True)
        await direct.close()
    finally:
        await srv.stop()
    res["prompt"] = prompt_p50(args.prompt_output)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--ttft-ms", type=float, default=20.0, help="upstream time to first token")
    ap.add_argument("--token-ms", type=float, default=5.0, help="upstream time between tokens")
    ap.add_argument(
        "--text", choices=sorted(TEXTS), default="words", help="the completions: words, or ordinary code"
    )
    ap.add_argument("--pairs", type=int, default=200, help="1 client: server/direct request pairs")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--load-seconds", type=float, default=20.0, help="typing load, per side (server/direct)")
    ap.add_argument("--rounds", type=int, default=2, help="alternations of server and direct under load")
    ap.add_argument("--typing-burst", type=int, default=2, help="typing load: requests per burst")
    ap.add_argument("--typing-gap-ms", type=float, nargs=2, default=[100.0, 200.0], help="within a burst")
    ap.add_argument("--typing-pause-ms", type=float, nargs=2, default=[1000.0, 2000.0], help="between bursts")
    ap.add_argument("--supersedes", type=int, default=60)
    ap.add_argument("--idle-sockets", type=int, default=64)
    ap.add_argument("--soak-seconds", type=float, default=60.0)
    ap.add_argument("--soak-rate", type=float, default=20.0)
    ap.add_argument("--soak-warmup", type=float, default=10.0)
    ap.add_argument(
        "--phases",
        type=lambda v: v.split(","),
        default=["idle", "one_client", "load", "supersede", "soak"],
        help="comma-separated subset of idle,one_client,load,supersede,soak",
    )
    ap.add_argument("--prompt-output", help="a saved output of bench_prompt.py to take the prompt row from")
    ap.add_argument("--json", help="write every number here")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (server and upstream logs)")
    ap.add_argument("--quick", action="store_true", help="a short smoke run")
    args = ap.parse_args(argv)
    if args.quick:
        args.pairs, args.load_seconds, args.supersedes = 40, 6.0, 15
        args.soak_seconds, args.soak_warmup = 10.0, 3.0
    res = asyncio.run(run(args))
    print_report(res)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
