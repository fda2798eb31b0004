"""Side by side with jupyter-ai 2.x (issue 38): server CPU per streamed completion, added first-piece
delay and throughput at 1 and 16 users, against the same scripted model and the model alone.

One run starts three processes on loopback ports: the scripted OpenAI-format upstream
(``jupyter_codecomplete.testing.openai_upstream``: ``--ttft-ms`` 50 to the first token, ``--token-ms``
5 a token, the 39-token line of natural text ``alpha + beta + ...``), ``jupyter server`` with this
extension (``api/codecomplete/inline``, the ``openai`` backend, raw prompts) and ``jupyter server``
with jupyter-ai 2.31.7 (``api/ai/completion/inline``, its ``openai`` provider: langchain-openai's
completions client, ``openai_api_base`` set to the same upstream). jupyter-ai runs from a throw-away
venv (``--jai-venv``, default ``/tmp/bench-jupyter-ai``; ``--setup`` makes it:
``python -m venv`` then ``pip install jupyter-ai==2.31.7 langchain-openai``), never from this
project's environment.

Each user is a websocket that asks for a streamed completion (``stream: true``; jupyter-ai:
``{"number", "prefix", "suffix", "mime", "stream", "path", "language"}``), waits for its end and
asks again (a closed loop), for ``--seconds`` per phase; the phases (ours, jupyter-ai, the model
alone with our server's request body, at 1 and at ``--users`` users) alternate for ``--rounds``.
"First piece" is the first message with non-empty text (ours: the first ``stream`` chunk with text;
jupyter-ai: its first ``stream`` chunk with text, after its empty ``isIncomplete`` reply; the model
alone: the first server-sent event with text). Server CPU is the server process's user + system time
(``/proc``) over its phases, divided by the completions finished in them. Our server runs as a
user's does: the loop-lag monitor (``monitor_event_loop``, off by default) off.

Printed: one markdown table with the issue's ratios and targets (ours / jupyter-ai CPU ≤ 0.15×; at
16 users ≥ 0.95× the model's throughput and added first-piece delay ≤ 0.1× jupyter-ai's; at one user
≤ 0.3× jupyter-ai's). The machine is shared: ratios within one run are what counts.

``--profile`` also samples our server with py-spy (``--py-spy``, default
``/tmp/bench-py-spy/bin/py-spy``; ``--setup`` installs it there) during the ``--users`` load of
the last round and prints where its CPU goes: the top functions by cumulative and by own time, in
ms per completion and µs per token (the sampled share of the measured CPU).

Advisories (checked with pip-audit on the venv, 2026-12-06): see ``ADVISORIES`` below; the venv is
only ever run on loopback against the scripted model.

    python benchmarks/bench_vs_jupyter_ai.py --setup          # once: the venvs under /tmp
    python benchmarks/bench_vs_jupyter_ai.py [--users 16] [--seconds 10] [--rounds 2] [--profile]
    python benchmarks/bench_vs_jupyter_ai.py --compare /tmp/before   # and another checkout's server

``--compare DIR``: a second server of ours from another checkout of this project (``DIR`` on its
``PYTHONPATH``, with its own scripted model), measured in the same rounds right after ours: the
before and after of a change, within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tornado.websocket import WebSocketClientConnection, websocket_connect

sys.path.insert(0, str(Path(__file__).parent))
from bench_concurrency import closed_loop, summary
from bench_server import (
    PREFIX_TAIL,
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
    warm_up,
)

from jupyter_codecomplete.testing.processes import free_port

JAI_VERSION = "2.31.7"
JAI_MODEL = "openai:gpt-3.5-turbo-instruct"  # the provider's completions model id (any name reaches the stub)
ADVISORIES = (
    "pip-audit ran on the venv (2026-12-06) but could not look any package up from here (the registry"
    " mirror serves no advisory data); the venv is only run on loopback, with a dummy key, against"
    " the scripted model"
)
TOKENS = 39  # the completion of the load: TYPE_TEXT's tokens


def setup(jai: Path, spy: Path) -> None:
    if not (jai / "bin" / "jupyter-server").exists():
        subprocess.run([sys.executable, "-m", "venv", str(jai)], check=True)
        subprocess.run(
            [str(jai / "bin" / "pip"), "install", "-q", f"jupyter-ai=={JAI_VERSION}", "langchain-openai"],
            check=True,
        )
    if not spy.exists():
        venv = spy.parent.parent
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "py-spy"], check=True)


class JaiServer:
    """jupyter-ai's Jupyter server, from its own venv, pointed at the upstream of ``srv``."""

    def __init__(self, srv: Servers, venv: Path) -> None:
        self.srv, self.venv = srv, venv
        self.tmp = srv.tmp / "jai"
        self.port = free_port()
        self.token = srv.token
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/api/ai/completion/inline?token={self.token}"

    async def start(self) -> None:
        self.tmp.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "OPENAI", "PYTHON"))}
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
            d = self.tmp / name.lower()
            d.mkdir()
            env[name] = str(d)
        params = {JAI_MODEL: {"openai_api_base": self.srv.up_url, "max_tokens": 64}}
        (self.tmp / "jupyter_config_dir" / "jupyter_server_config.py").write_text(
            f"c.AiExtension.default_completions_model = {JAI_MODEL!r}\n"
            f"c.AiExtension.default_language_model = {JAI_MODEL!r}\n"
            f"c.AiExtension.model_parameters = {params!r}\n"
            "c.AiExtension.default_api_keys = {'OPENAI_API_KEY': 'bench-not-a-key'}\n"
        )
        self._spawn(env)
        deadline = now() + 120
        url = f"http://127.0.0.1:{self.port}/api/ai/completion?token={self.token}"
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter-ai's server exited early; log in {self.tmp}")
            with contextlib.suppress(Exception):
                if (await self.srv.http.get(url)).status_code < 500:
                    return
            if now() > deadline:
                raise RuntimeError(f"jupyter-ai's server did not come up; log in {self.tmp}")
            await asyncio.sleep(0.3)

    def _spawn(self, env: dict[str, str]) -> None:
        root = self.tmp / "root"
        root.mkdir()
        out = open(self.tmp / "server.log", "wb")  # lives as long as the process
        self.proc = subprocess.Popen(
            [
                str(self.venv / "bin" / "python"), "-m", "jupyter_server", "--ip=127.0.0.1",
                f"--port={self.port}", "--port-retries=0", f"--ServerApp.token={self.token}",
                "--ServerApp.open_browser=False", f"--ServerApp.root_dir={root}",
                "--ServerApp.log_level=WARN", "--allow-root",
            ],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=root,
        )  # fmt: skip

    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class JaiClient:
    """jupyter-ai 2's inline completion socket: numbered requests, replies filed by ``reply_to``."""

    def __init__(self, conn: WebSocketClientConnection) -> None:
        self.conn = conn
        self.reqs: dict[int, Req] = {}
        self.number = 0
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, url: str) -> JaiClient:
        conn = await websocket_connect(url, max_message_size=64 * 1024 * 1024)
        conn.protocol.set_nodelay(True)  # type: ignore[union-attr]  # as browsers do
        return cls(conn)

    def send(self, marker: str) -> Req:
        self.number += 1
        req = Req(self.number, marker)
        self.reqs[req.number] = req
        msg = {
            "number": req.number,
            "prefix": f"# {marker}{PREFIX_TAIL}",
            "suffix": "",
            "mime": "text/x-python",
            "stream": True,
            "path": "bench.ipynb",
            "language": "python",
        }
        data = json.dumps(msg)
        req.t_send = now()
        self.conn.write_message(data)
        return req

    async def _read(self) -> None:
        while True:
            raw = await self.conn.read_message()
            t = now()
            if raw is None:
                break
            msg = json.loads(raw)
            req = self.reqs.get(msg.get("reply_to", -1))
            if req is None:
                continue
            if msg.get("error"):
                req.error = str(msg["error"].get("type"))
                req.t_done = t
                req.done.set()
            elif msg.get("type") == "stream":
                req.frames += 1
                if msg["response"]["insertText"] and req.t_first is None:
                    req.t_first, req.first_text = t, msg["response"]["insertText"]
                if msg["done"]:
                    req.t_done = t
                    req.done.set()
                    self.reqs.pop(req.number, None)
        for req in self.reqs.values():
            req.done.set()

    async def close(self) -> None:
        self.conn.close()
        self.reader.cancel()


class Phase:
    """The requests and server CPU of one kind of load, summed over the rounds."""

    def __init__(self) -> None:
        self.reqs: list[Req] = []
        self.cpu = 0.0
        self.seconds = 0.0


async def sockets_phase(
    phase: Phase, connect: Any, url: str, pid: int | None, users: int, seconds: float, markers: Markers
) -> None:
    socks = [await connect(url) for _ in range(users)]

    async def ask(k: int) -> Req:
        return socks[k].send(markers(TYPE))  # type: ignore[no-any-return]

    cpu0 = cpu_seconds(pid) if pid else 0.0
    phase.reqs += await closed_loop(users, seconds, ask)
    if pid:
        phase.cpu += cpu_seconds(pid) - cpu0
    phase.seconds += seconds
    for s in socks:
        await s.close()


async def direct_phase(phase: Phase, direct: Direct, users: int, seconds: float, markers: Markers) -> None:
    async def ask(k: int) -> Req:
        r = Req(0, markers(TYPE))
        asyncio.get_running_loop().create_task(direct.request(r))
        return r

    phase.reqs += await closed_loop(users, seconds, ask)
    phase.seconds += seconds


# --------------------------------------------------------------------------------------- profile
def spy_start(spy: Path, pid: int, seconds: float, out: Path, rate: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            str(spy), "record", "--pid", str(pid), "--duration", str(max(1, int(seconds))),
            "--rate", str(rate), "--format", "raw", "--output", str(out), "--nonblocking",
        ],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def spy_report(raw: Path, cpu_ms_per_completion: float, top: int) -> list[str]:
    """Top functions by cumulative and by own samples, scaled to the measured CPU per completion."""
    total = 0
    own: collections.Counter[str] = collections.Counter()
    cum: collections.Counter[str] = collections.Counter()
    libs: collections.Counter[str] = collections.Counter()  # own samples per top-level package
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [f.split(" (", 1)[0] + " " + _where(f) for f in stack.split(";")]
        total += n
        own[frames[-1]] += n
        libs[_library(frames[-1])] += n
        for f in set(frames):
            cum[f] += n
    if not total:
        return ["(no samples)"]
    scale = cpu_ms_per_completion / total
    out = [
        f"py-spy: {total} samples; {cpu_ms_per_completion:.2f} ms CPU per completion ({TOKENS} tokens)",
        "",
        "| cumulative ms / completion | µs / token | function |",
        "|---|---|---|",
    ]
    out += [f"| {n * scale:.2f} | {n * scale * 1000 / TOKENS:.0f} | `{f}` |" for f, n in cum.most_common(top)]
    out += ["", "| own ms / completion | µs / token | function |", "|---|---|---|"]
    out += [f"| {n * scale:.2f} | {n * scale * 1000 / TOKENS:.0f} | `{f}` |" for f, n in own.most_common(top)]
    out += ["", "| own ms / completion | share | package |", "|---|---|---|"]
    out += [f"| {n * scale:.2f} | {n / total:.0%} | `{lib}` |" for lib, n in libs.most_common(top)]
    return out


def _library(frame: str) -> str:
    """The top-level package (or standard-library module) of a frame's ``(path)``."""
    path = frame.rsplit(" (", 1)[-1].rstrip(")")
    head = path.split("/", 1)[0]
    return head.removesuffix(".py") or path


def _where(frame: str) -> str:
    """``(path:line)`` → ``(module-ish path)``: site-packages and the repo root cut off, no line."""
    loc = frame.split(" (", 1)[1].rstrip(")") if " (" in frame else ""
    path = loc.rsplit(":", 1)[0]
    for cut in ("site-packages/", "/jupyter_codecomplete/", "/lib/python3"):
        if cut in path:
            path = path.split(cut, 1)[1]
            if cut == "/jupyter_codecomplete/":
                path = "jupyter_codecomplete/" + path
            break
    return f"({path})"


# ------------------------------------------------------------------------------------------- run
async def run(args: argparse.Namespace) -> dict[str, Any]:
    # the loop-lag monitor off, as in a user's server (it wakes 50 times a second: ~14 ms of CPU)
    srv = Servers(args.ttft_ms, args.token_ms, keep=args.keep, monitor=False)
    base = None
    if args.compare:
        base = Servers(args.ttft_ms, args.token_ms, keep=args.keep, pythonpath=args.compare, monitor=False)
    jai = JaiServer(srv, Path(args.jai_venv))
    markers = Markers()
    load_before = os.getloadavg()
    await srv.start()
    try:
        if base is not None:
            await base.start()
            await (await warm_up(base, markers)).close()
        await jai.start()
        direct_one = await warm_up(srv, markers)
        await direct_one.close()
        ws = await WsClient.connect(srv.ws_url)
        req = ws.send(markers(TYPE))
        await asyncio.wait_for(req.done.wait(), 30)
        await ws.close()
        body = by_marker(await srv.upstream_records())[marker_id(req.marker)]["body"]
        direct = Direct(srv.up_url, body, req.marker)
        # jupyter-ai's first completions build its chain and client: not part of the measure
        jc = await JaiClient.connect(jai.ws_url)
        for _ in range(5):
            r = jc.send(markers(TYPE))
            await asyncio.wait_for(r.done.wait(), 60)
            if r.error or not r.first_text:
                raise RuntimeError(f"jupyter-ai answered {r.error!r} / {r.first_text!r}; log in {jai.tmp}")
        await jc.close()
        whos = ("ours", "jai", "model", "base") if base is not None else ("ours", "jai", "model")
        phases = {(who, n): Phase() for who in whos for n in (1, args.users)}
        spy_raw = srv.tmp / "py-spy.txt"
        spy_cpu = (0.0, 0)
        for rnd in range(args.rounds):
            for n in (1, args.users):
                spy = None
                if args.profile and rnd == args.rounds - 1 and n == (args.profile_users or args.users):
                    spy = spy_start(Path(args.py_spy), srv.server_pid(), args.seconds, spy_raw, args.rate)
                    cpu0, k0 = cpu_seconds(srv.server_pid()), len(phases["ours", n].reqs)
                sec = args.seconds
                await sockets_phase(
                    phases["ours", n], WsClient.connect, srv.ws_url, srv.server_pid(), n, sec, markers
                )
                if spy is not None:
                    spy_cpu = (cpu_seconds(srv.server_pid()) - cpu0, len(phases["ours", n].reqs) - k0)
                    spy.wait(30)
                if base is not None:
                    await sockets_phase(
                        phases["base", n], WsClient.connect, base.ws_url, base.server_pid(), n, sec, markers
                    )
                await sockets_phase(
                    phases["jai", n], JaiClient.connect, jai.ws_url, jai.pid(), n, sec, markers
                )
                await direct_phase(phases["model", n], direct, n, args.seconds, markers)
        await direct.close()
        res: dict[str, Any] = {
            "users": args.users,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average_before": load_before,
            "load_average": os.getloadavg(),
            "args": vars(args),
        }
        for (who, n), ph in phases.items():
            s = summary(ph.reqs, ph.seconds)
            s["cpu_ms_per_completion"] = ph.cpu * 1000 / max(1, s["ok"])
            s["frames"] = sum(r.frames for r in ph.reqs) / max(1, len(ph.reqs))
            res[f"{who}_{n}"] = s
        if args.profile and spy_raw.exists():
            res["profile"] = spy_report(spy_raw, spy_cpu[0] * 1000 / max(1, spy_cpu[1]), args.top)
        return res
    finally:
        jai.stop()
        await srv.stop()
        if base is not None:
            await base.stop()


def table(res: dict[str, Any]) -> list[str]:
    n = res["users"]
    rows = [
        "| measure | ours | jupyter-ai | model alone | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]

    def row(
        what: str, ours: float, jai: float, model: str, ratio: float, target: str, ok: bool | None
    ) -> None:
        met = "" if ok is None else ("yes" if ok else "**no**")
        rows.append(f"| {what} | {ours:.2f} | {jai:.2f} | {model} | {ratio:.3f} | {target} | {met} |")

    for k in (1, n):
        o, j, m = res[f"ours_{k}"], res[f"jai_{k}"], res[f"model_{k}"]
        co, cj = o["cpu_ms_per_completion"], j["cpu_ms_per_completion"]
        cpu_ok = co / cj <= 0.15
        row(f"server CPU per completion, {k} user(s) (ms)", co, cj, "", co / cj, "≤ 0.15× jupyter-ai", cpu_ok)
        ao, aj = o["first_p50"] - m["first_p50"], j["first_p50"] - m["first_p50"]
        lim = 0.3 if k == 1 else 0.1
        row(
            f"first piece p50, added over the model, {k} user(s) (ms)", ao, aj, f"{m['first_p50']:.2f}",
            ao / aj if aj else float("nan"), f"≤ {lim}× jupyter-ai's", ao <= lim * aj,
        )  # fmt: skip
        to, tj = o["per_s"] / m["per_s"], j["per_s"] / m["per_s"]
        row(
            f"throughput / the model's, {k} user(s)", to, tj, f"{m['per_s']:.1f}/s", to,
            "≥ 0.95×" if k == n else "", to >= 0.95 if k == n else None,
        )  # fmt: skip
        row(f"stream p50, first piece → end, {k} user(s) (ms)", o["stream_p50"], j["stream_p50"],
            f"{m['stream_p50']:.1f}", o["stream_p50"] / m["stream_p50"], "", None)  # fmt: skip
        rows.append(
            f"| stream frames per completion, {k} user(s) | {o['frames']:.1f} | {j['frames']:.1f} | | | | |"
        )
        rows.append(
            f"| completions (errors), {k} user(s) | {o['ok']} ({o['errors']}) | {j['ok']} ({j['errors']}) | "
            f"{m['ok']} ({m['errors']}) | | | |"
        )
    if f"base_{n}" in res:
        rows += ["", "| before (`--compare`) | ours | before | ours / before |", "|---|---|---|---|"]
        for k in (1, n):
            o, b, m = res[f"ours_{k}"], res[f"base_{k}"], res[f"model_{k}"]
            co, cb = o["cpu_ms_per_completion"], b["cpu_ms_per_completion"]
            rows.append(
                f"| server CPU per completion, {k} user(s) (ms) | {co:.2f} | {cb:.2f} | {co / cb:.3f} |"
            )
            ao, ab = o["first_p50"] - m["first_p50"], b["first_p50"] - m["first_p50"]
            rows.append(f"| first piece p50 added, {k} user(s) (ms) | {ao:.2f} | {ab:.2f} | |")
            of, bf = o["frames"], b["frames"]
            rows.append(f"| stream frames per completion, {k} user(s) | {of:.1f} | {bf:.1f} | |")
            to, tb = o["per_s"] / m["per_s"], b["per_s"] / m["per_s"]
            rows.append(f"| throughput / the model's, {k} user(s) | {to:.2f} | {tb:.2f} | {to / tb:.3f} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--users", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=10.0, help="per phase and round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--ttft-ms", type=float, default=50.0)
    ap.add_argument("--token-ms", type=float, default=5.0)
    ap.add_argument("--jai-venv", default="/tmp/bench-jupyter-ai")
    ap.add_argument("--py-spy", default="/tmp/bench-py-spy/bin/py-spy")
    ap.add_argument("--setup", action="store_true", help="make the venvs (jupyter-ai, py-spy) and stop")
    ap.add_argument("--profile", action="store_true", help="sample our server with py-spy at --users users")
    ap.add_argument("--profile-users", type=int, help="with --profile: this load instead (1)")
    ap.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (logs)")
    ap.add_argument("--json", help="write the numbers here")
    ap.add_argument(
        "--compare", help="another checkout of this project: its server measured too (before/after)"
    )
    args = ap.parse_args(argv)
    if args.setup:
        setup(Path(args.jai_venv), Path(args.py_spy))
        return 0
    res = asyncio.run(run(args))
    load = ", ".join(f"{x:.2f}" for x in res["load_average"])
    before = ", ".join(f"{x:.2f}" for x in res["load_average_before"])
    print(
        f"\n{res['date']}, load average {before} before the run, {load} after; model: "
        f"{args.ttft_ms:g} ms to the first token, {args.token_ms:g} ms a token, {TOKENS} tokens; "
        f"{args.seconds:g} s a phase, {args.rounds} rounds"
    )
    print("\n".join(table(res)))
    if "profile" in res:
        print()
        print("\n".join(res["profile"]))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
