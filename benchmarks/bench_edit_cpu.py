"""The server's CPU per edit prediction (issue 38's edit path): a one-cell prediction, a rename
across a 100-cell notebook, and the fix after an error (a 20,000-character traceback, 100 cells),
beside a streamed inline completion, each asked one after another over a real websocket of a
running Jupyter server, answered by the scripted OpenAI-format upstream (the UI tests' edit
rules: the rename of ``df`` to ``sales``, the fix of ``prcie``), in one run.

    python benchmarks/bench_edit_cpu.py [--requests 10] [--rounds 2] [--compare /tmp/before]

``--compare DIR``: a second server from another checkout of this project (``DIR`` on its
``PYTHONPATH``, its own scripted model), each kind measured on both in the same rounds.

Server CPU is the server process's user + system time (``/proc``) over each kind's requests,
divided by their number, less the idle CPU the server spends in the same time (measured first,
with nothing asked: the event-loop monitor's ticks). "Reply p50" is the round trip, the scripted
model's answer included (50 ms to its first token, 5 ms a token; an edit answer in pieces of 4
characters). Each
kind's requests in a round follow the other kinds'. The requests' content is ``bench_cells.py``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_cells import DEFINE, wire
from bench_server import TYPE, Markers, Servers, WsClient, cpu_seconds, now

from jupyter_codecomplete.testing import EDIT_CHAT_ISSUE_27_RULES
from jupyter_codecomplete.testing.wsclient import CompletionSocket

EDIT_MODEL = "edit-bench"
# the edit rules, answering in pieces of 4 characters (a code model's tokenizer's average; the
# scripted model's word-like pieces would make a 100-cell rewrite three times as many tokens, past
# the server's token budget for the region) at the model's pace (--token-ms)
PIECE_CHARS = 4


def edit_rules(token_ms: float) -> list[dict[str, Any]]:
    return [{**r, "piece_chars": PIECE_CHARS, "token_s": token_ms / 1000} for r in EDIT_CHAT_ISSUE_27_RULES]


def edit_config(up_url: str) -> str:
    model = {"backend": "openai-chat", "base_url": up_url, "model": EDIT_MODEL, "style": "edit-chat"}
    return f"c.CodeCompleteApp.edit_model = {model!r}\n"


def one_cell(number: int) -> dict[str, Any]:
    text = DEFINE + "df['price'].sum()\n" * 10
    return {
        "type": "edit_prediction",
        "number": number,
        "version": number,
        "path": "sales.py",
        "language": "python",
        "text": text,
        "cursor": 5,
        "recent_edits": wire(1)["recent_edits"],
    }


def notebook(number: int) -> dict[str, Any]:
    return {**wire(100), "number": number, "version": number}


def error_fix(number: int) -> dict[str, Any]:
    frames = "".join(f"Cell In[{i}], line 1\n----> 1 other_{i}()\n" for i in range(1000))
    tb = (frames + "Cell In[7], line 1\n----> 1 df[\"prcie\"].sum()\n\nKeyError: 'prcie'")[-20_000:]
    return {
        **wire(100),
        "number": number,
        "version": number,
        "text": 'df["prcie"].sum()\n',
        "cursor": 0,
        "trigger": "error",
        "error": {"ename": "KeyError", "evalue": "'prcie'", "traceback": tb, "execution_count": 7},
        "kernel_candidates": {"expression": "df[", "items": [{"text": "'price'"}, {"text": "'qty'"}]},
    }


KINDS: dict[str, Callable[[int], dict[str, Any]]] = {
    "edit prediction, one cell": one_cell,
    "edit prediction, 100-cell notebook (rename)": notebook,
    "fix after an error (20,000-char traceback, 100 cells)": error_fix,
}


INLINE = "inline completion, streamed (39 tokens)"
NUMBERS = itertools.count(1001)  # the edit requests' numbers


class Kind:
    def __init__(self) -> None:
        self.cpu = 0.0
        self.wall = 0.0
        self.n = 0
        self.edits: list[int] = []
        self.ms: list[float] = []
        self.errors: list[str] = []


async def ask_edit(conn: CompletionSocket, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
    t0 = now()
    conn.send_nowait(json.dumps(body))
    while True:
        raw = await asyncio.wait_for(conn.recv_raw(), 30)
        if raw is None:
            raise RuntimeError("the socket closed")
        msg = json.loads(raw)
        if msg.get("reply_to") == body["number"] and msg["type"] in ("edit_prediction", "error"):
            return msg, (now() - t0) * 1000


class Server:
    """One server of the run (ours, or ``--compare``'s) and its two sockets."""

    def __init__(self, args: argparse.Namespace, pythonpath: str | None = None) -> None:
        self.srv = Servers(
            args.ttft_ms, args.token_ms, keep=False, rules=edit_rules(args.token_ms), pythonpath=pythonpath
        )
        self.srv.extra_config = edit_config(self.srv.up_url)
        self.kinds = {name: Kind() for name in [*KINDS, INLINE]}
        self.idle_per_s = 0.0

    async def start(self, args: argparse.Namespace, markers: Markers) -> None:
        await self.srv.start()
        self.pid = self.srv.server_pid()
        self.conn = await CompletionSocket.connect(self.srv.ws_url, max_message_size=64 * 1024 * 1024)
        for make in KINDS.values():  # the first of each kind builds its client: not measured
            await ask_edit(self.conn, make(next(NUMBERS)))
        self.inline = await WsClient.connect(self.srv.ws_url)
        r = self.inline.send(markers(TYPE))
        await asyncio.wait_for(r.done.wait(), 30)
        # the idle CPU (the loop monitor's ticks), over a few seconds with nothing asked
        c0, t0 = cpu_seconds(self.pid), time.monotonic()
        await asyncio.sleep(args.idle_s)
        self.idle_per_s = (cpu_seconds(self.pid) - c0) / (time.monotonic() - t0)

    async def measure(self, name: str, requests: int, markers: Markers) -> None:
        k = self.kinds[name]
        c0, t0 = cpu_seconds(self.pid), time.monotonic()
        for _ in range(requests):
            if name in KINDS:
                msg, ms = await ask_edit(self.conn, KINDS[name](next(NUMBERS)))
                if msg["type"] == "error" or msg.get("error"):
                    k.errors.append(str((msg.get("error") or {}).get("type")))
                k.edits.append(len(msg.get("edits") or []))
            else:
                r = self.inline.send(markers(TYPE))
                await asyncio.wait_for(r.done.wait(), 30)
                ms = (r.t_done - r.t_send) * 1000 if r.t_done is not None else float("nan")
                if r.error:
                    k.errors.append(r.error)
            k.ms.append(ms)
        k.cpu += cpu_seconds(self.pid) - c0
        k.wall += time.monotonic() - t0
        k.n += requests

    def results(self) -> dict[str, Any]:
        out = {}
        for name, k in self.kinds.items():
            out[name] = {
                "requests": k.n,
                "cpu_ms_per_request": k.cpu * 1000 / k.n,
                "cpu_ms_per_request_less_idle": (k.cpu - self.idle_per_s * k.wall) * 1000 / k.n,
                "reply_ms_p50": statistics.median(k.ms),
                "edits_per_reply": statistics.median(k.edits) if k.edits else None,
                "errors": k.errors[:5],
            }
        return out

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
            await self.inline.close()
        await self.srv.stop()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    servers = {"ours": Server(args)}
    if args.compare:
        servers["before"] = Server(args, pythonpath=args.compare)
    markers = Markers()  # each request its own text: no answer from memory
    try:
        for server in servers.values():
            await server.start(args, markers)
        for _ in range(args.rounds):
            for name in [*KINDS, INLINE]:
                for server in servers.values():  # each kind on each server, one after the other
                    await server.measure(name, args.requests, markers)
        return {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_average": os.getloadavg(),
            "idle_cpu_ms_per_s": servers["ours"].idle_per_s * 1000,
            "args": vars(args),
            "kinds": servers["ours"].results(),
            **({"before": servers["before"].results()} if "before" in servers else {}),
        }
    finally:
        for server in servers.values():
            await server.stop()


def table(res: dict[str, Any]) -> list[str]:
    rows = [["request", "server CPU ms / request", "less idle", "reply p50 ms", "edits / reply", "errors"]]
    base = res["kinds"][INLINE]["cpu_ms_per_request_less_idle"]
    for name, k in res["kinds"].items():
        rows.append(
            [
                name,
                f"{k['cpu_ms_per_request']:.1f}",
                f"{k['cpu_ms_per_request_less_idle']:.1f} ({k['cpu_ms_per_request_less_idle'] / base:.1f}×)",
                f"{k['reply_ms_p50']:.0f}",
                "-" if k["edits_per_reply"] is None else f"{k['edits_per_reply']:g}",
                str(len(k["errors"])),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = [
        f"{res['date']}, load average {', '.join(f'{x:.1f}' for x in res['load_average'])}; "
        f"idle server CPU {res['idle_cpu_ms_per_s']:.1f} ms/s; × is over the inline completion"
    ]
    for i, r in enumerate(rows):
        out.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")
        if i == 0:
            out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    if "before" in res:
        out += ["", "| request | ours, CPU ms (less idle) | before | ours / before |", "|---|---|---|---|"]
        for name, k in res["kinds"].items():
            mine, theirs = (
                k["cpu_ms_per_request_less_idle"],
                res["before"][name]["cpu_ms_per_request_less_idle"],
            )
            out.append(f"| {name} | {mine:.1f} | {theirs:.1f} | {mine / theirs:.2f} |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=10, help="requests of each kind a round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--idle-s", type=float, default=3.0)
    ap.add_argument("--ttft-ms", type=float, default=50.0)
    ap.add_argument("--token-ms", type=float, default=5.0)
    ap.add_argument("--json", help="write the result here too")
    ap.add_argument(
        "--compare", help="another checkout of this project: its server measured too (before/after)"
    )
    args = ap.parse_args()
    res = asyncio.run(run(args))
    print("\n".join(table(res)))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
