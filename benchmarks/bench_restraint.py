"""Restraint, replayed: fixed debounce vs adaptive debounce vs adaptive + the learned gate.

A simulated user writes a Python text one key at a time at a person's rhythm, in virtual time
(``benchmarks/replay/replay.bench.ts``, run with jest: the extension's own ``AdaptiveDebounce``,
``Gate``, ``UsageTracker`` and line kinds; JupyterLab's 150 ms debounce, the editor and the model
are simulated). The scripted model answers with the real next text to the end of the line, right
with a chance that depends on the kind of place (code 45 %, a fresh line 35 %, mid-line 10 %,
string 10 %, comment 5 %), otherwise right for a while and then astray; its time to show is
140 ms + 4 ms per character ± 40 ms. The user accepts with Tab what is what they were going to
type, the right words with Ctrl+Right, takes a mostly right one whole and deletes its wrong tail.

1. A training history (the first 6,000 characters of four standard-library modules, ``shlex``,
   ``glob``, ``fnmatch`` and ``heapq``: some 800 suggestions, a few hours of a user's editing)
   with the fixed debounce: its usage events go into a real ``UsageStore`` (SQLite) and the
   server's ``gate.learn`` fits the gate from them, as it would from the user's own history.
2. The test session (``textwrap.py``, 6,000 characters) in each mode, three seeds (the gated
   modes run the extension's ``Restraint.decide``: at the default level the gate's places are
   held for a pause, at "suggest less" skipped); the
   events of each go into a store of their own and ``summarize`` counts them.

Per 1,000 characters of the session: model calls, suggestions shown, characters accepted, kept
(still there 5 minutes later), and the ratios to the fixed debounce.

    python benchmarks/bench_restraint.py [--chars 6000] [--seeds 3] [--before-gate OLD_GATE.py]
        [--learned-pauses]

``--training shlex``: a shorter history (one module). ``--before-gate``: also replay with the
gate an older ``gate.py`` learns from the same history
(``git show REV:jupyter_codecomplete/usage/gate.py > /tmp/gate_before.py``), rows ``* before``.
``--learned-pauses``: also the default level holding for the pauses before an accept that the
gate learned from the history's events (``pauses``; what a reload starts from), row
``gated_pauses``; the other gated rows start with no pauses (2 s until the session has five).

Not a test; needs ``jlpm install``. Measured numbers are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jupyter_codecomplete.protocol import UsageEvent
from jupyter_codecomplete.testing.processes import ServerProcess, free_port
from jupyter_codecomplete.usage import UsageStore, summarize
from jupyter_codecomplete.usage.gate import learn
from jupyter_codecomplete.usage.preview import preview

ROOT = Path(__file__).resolve().parents[1]
MODES = ("fixed", "adaptive", "gated_more", "gated", "gated_less")
LEVELS = {"gated_more": "more", "gated": "normal", "gated_less": "less"}
TRAINING = ("shlex", "glob", "fnmatch", "heapq")
TRAIN_CHARS = 6000  # of each training module, whatever --chars says


def session(module: str, chars: int) -> str:
    """The first ``chars`` characters of a standard-library module (the same text in every run of
    one Python version, unlike this project's own files)."""
    import importlib

    path = importlib.import_module(module).__file__
    assert path is not None
    return Path(path).read_text()[:chars]


def replay(
    text: str,
    modes: tuple[str, ...],
    seed: int,
    gates: dict[str, Any],
    tmp: Path,
    latency_ms: float = 140,
    **extra: Any,
) -> Any:
    inp, out = tmp / f"in-{seed}.json", tmp / f"out-{seed}.json"
    body = {"text": text, "modes": list(modes), "gates": gates, "seed": seed, "latency_ms": latency_ms}
    inp.write_text(json.dumps(body | extra))
    cmd = ["npx", "jest", "--config", "benchmarks/replay/jest.config.js", "--silent"]
    env = os.environ | {"REPLAY_IN": str(inp), "REPLAY_OUT": str(out)}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        sys.exit(f"the replay failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(out.read_text())


def stored(events: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """The events through a real store (virtual times moved to now), read back."""
    start = time.time() * 1000 - 3_600_000
    store = UsageStore(str(path))
    store.record_sync([UsageEvent.model_validate(e | {"shown_at": start + e["shown_at"]}) for e in events])
    rows = store.rows_sync()
    store.close()
    return rows


MARKER = 80  # characters before the cursor that pick the scripted upstream's rule


@contextlib.contextmanager
def real_engine(
    text: str, answers: list[str], tmp: Path, ttft_ms: float, token_ms: float
) -> Iterator[dict[str, str]]:
    """The scripted OpenAI-compatible upstream answering each place of ``text`` with the simulated
    model's answer there (a rule per place: the text before it, longest first), and ``jupyter
    server`` with this extension pointed at it (isolated directories); yields ``{url, token}``."""
    rules = [
        {"contains": text[max(0, t - MARKER) : t], "completion": answers[t]} for t in range(len(text), 0, -1)
    ]
    (tmp / "rules.json").write_text(json.dumps(rules))
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        (tmp / name.lower()).mkdir(exist_ok=True)
        env[name] = str(tmp / name.lower())
    env.pop("JUPYTER_TOKEN", None)
    up_port, port, token = free_port(), free_port(), uuid.uuid4().hex
    model = {
        "backend": "openai",
        "base_url": f"http://127.0.0.1:{up_port}/v1",
        "model": "replay",
        "style": "raw",
        "max_tokens": 64,
    }
    (tmp / "jupyter_config_dir" / "jupyter_server_config.py").write_text(
        f"c.CodeCompleteApp.completion_model = {model!r}\n"
        "c.CodeCompleteApp.discover_local_servers = False\n"
        "c.CodeCompleteApp.record_usage = False\n"
    )
    (tmp / "root").mkdir(exist_ok=True)
    py = sys.executable
    upstream = ServerProcess(
        [py, "-m", "jupyter_codecomplete.testing.openai_upstream", "--port", str(up_port), "--rules",
         str(tmp / "rules.json"), "--ttft-ms", str(ttft_ms), "--token-ms", str(token_ms), "--default", ""],
        ready_url=f"http://127.0.0.1:{up_port}/v1/models", log=tmp / "upstream.log", env=env,
    )  # fmt: skip
    server = ServerProcess(
        [py, "-m", "jupyter_server", "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
         f"--ServerApp.token={token}", "--ServerApp.open_browser=False",
         "--ServerApp.jpserver_extensions={'jupyter_codecomplete': True}",
         f"--ServerApp.root_dir={tmp / 'root'}", "--ServerApp.log_level=WARN", "--allow-root"],
        ready_url=f"http://127.0.0.1:{port}/api/codecomplete/stats?token={token}", log=tmp / "server.log",
        env=env,
    )  # fmt: skip
    with upstream, server:
        yield {"url": f"http://127.0.0.1:{port}", "token": token}


def per_thousand(result: dict[str, Any], tmp: Path, name: str, chars: int) -> dict[str, float]:
    """Model calls, shown, wasted, accepted and kept characters per 1,000 characters typed."""
    events = stored(result["events"], tmp / f"{name}.sqlite3")
    total = summarize(events)["total"]
    per = 1000 / chars
    return {
        "calls": result["calls"] * per,
        "shown": total["shown"] * per,
        "wasted": sum(1 for e in events if not e["kept_5m"]) * per,
        "accepted": total["accepted_chars"] * per,
        "kept": total["kept_5m_chars"] * per,
    }


def upstream_mode(args: argparse.Namespace, gates: dict[str, Any], tmp: Path) -> int:
    """The session replayed through the real engine and through the simulated model, side by side."""
    text = session("textwrap", args.chars)
    seed = 2
    modes = ("fixed", "adaptive", "gated")
    answers = replay(text, (), seed, {}, tmp, answers=True)["answers"]
    started = time.monotonic()
    with real_engine(text, answers, tmp, args.ttft_ms, args.token_ms) as upstream:
        real = replay(text, modes, seed, gates, tmp, args.latency_ms, upstream=upstream)
    wall = time.monotonic() - started
    sim = replay(text, modes, seed, gates, tmp, args.latency_ms)
    print(
        f"\nper 1,000 characters of the session ({len(text)} characters, seed {seed}; through the engine "
        f"and the scripted upstream, time to first token {args.ttft_ms:.0f} ms + {args.token_ms:.0f} ms a "
        f"token: {wall:.0f} s), against the simulated model ({args.latency_ms:.0f} ms + 4 ms a character)\n"
    )
    print(
        "| mode | model calls | shown | shown, nothing kept | accepted chars | kept chars "
        "| calls | shown | kept |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    figures = {}
    for source, results in (("engine", real), ("simulated", sim)):
        for mode in modes:
            figures[(source, mode)] = per_thousand(results[mode], tmp, f"{source}-{mode}", len(text))
        base = figures[(source, "fixed")]
        for mode in modes:
            f = figures[(source, mode)]
            ratios = " | ".join(
                f"{f[k] / base[k]:.2f}x" if base[k] else "-" for k in ("calls", "shown", "kept")
            )
            print(
                f"| {mode} ({source}) | {f['calls']:.0f} | {f['shown']:.0f} | {f['wasted']:.0f} | "
                f"{f['accepted']:.0f} | {f['kept']:.0f} | {ratios} |"
            )
    for mode in modes:
        r = real[mode]
        print(
            f"{mode} (engine): {r['calls']} calls, {r['cleaned']} answers changed by the engine's cleaning, "
            f"{r['lost']} lost (empty where the upstream had text)"
        )
    # the simulation stands for the engine when each mode's ratios to fixed agree
    worst = 0.0
    for mode in modes[1:]:
        for k in ("shown", "kept"):
            r_real = figures[("engine", mode)][k] / figures[("engine", "fixed")][k]
            r_sim = figures[("simulated", mode)][k] / figures[("simulated", "fixed")][k]
            worst = max(worst, abs(r_real - r_sim))
    agree = worst <= args.tolerance
    print(
        f"\nratios to fixed (shown, kept), engine against simulated: largest difference {worst:.2f} "
        f"({'within' if agree else 'OUTSIDE'} the tolerance of {args.tolerance:.2f})"
    )
    return 0 if agree else 1


def skipped(gate: dict[str, Any]) -> str:
    """The places a gate skips, with the rhythms when not all of them."""
    by_place: dict[str, list[str]] = {}
    for s in gate["skip"]:
        by_place.setdefault(f"{s['trigger']}/{s['line_kind']}", []).append(s.get("rhythm", "any"))
    parts = [p if len(r) == 4 or r == ["any"] else f"{p} ({', '.join(r)})" for p, r in by_place.items()]
    return ", ".join(parts) or "nothing"


def load_gate(path: str) -> Any:
    """``learn`` of another ``gate.py`` (``--before-gate``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gate_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.learn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=6000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--before-gate", help="an older gate.py to compare with (rows '* before')")
    parser.add_argument(
        "--learned-pauses",
        action="store_true",
        help="also hold for the pauses learned from the history (row 'gated_pauses')",
    )
    parser.add_argument(
        "--training", default=",".join(TRAINING), help="the training history: standard-library modules"
    )
    parser.add_argument(
        "--latency-ms", type=float, default=140, help="the model's base time to show (+ 4 ms a character)"
    )
    parser.add_argument(
        "--upstream", action="store_true", help="replay a shorter session through the real engine too"
    )
    parser.add_argument("--ttft-ms", type=float, default=140, help="upstream mode: time to first token")
    parser.add_argument("--token-ms", type=float, default=12, help="upstream mode: time between tokens")
    parser.add_argument(
        "--tolerance", type=float, default=0.1, help="upstream mode: the largest difference of ratios allowed"
    )
    args = parser.parse_args()
    modes: tuple[str, ...] = MODES
    with tempfile.TemporaryDirectory(prefix="codecomplete-replay-") as tmpdir:
        tmp = Path(tmpdir)
        rows: list[dict[str, Any]] = []
        for i, module in enumerate(args.training.split(",")):
            train = replay(session(module, TRAIN_CHARS), ("fixed",), 1, {}, tmp)["fixed"]
            rows += stored(train["events"], tmp / f"train-{i}.sqlite3")
        gates = {mode: learn(rows, level) for mode, level in LEVELS.items()}  # type: ignore[arg-type]
        if args.before_gate:
            before = load_gate(args.before_gate)
            for mode, level in LEVELS.items():
                gates[f"{mode}_before"] = before(rows, level)
            modes = (*MODES, *(f"{m}_before" for m in LEVELS))
        if args.learned_pauses:
            gates["gated_pauses"] = gates["gated"]
            modes = (*modes, "gated_pauses")
            print(f"  learned pauses before an accept: {gates['gated']['pauses']}")
        gate = gates["gated"]
        print(
            f"gate learned from {gate['events']} training suggestions ({gate['overall']:.1f} kept characters "
            f"each, {gate['useful_rate']:.0%} not wasted)"
        )
        for mode in gates:
            # the default level holds its places for the user's pause, "less" skips them
            verb = "holds" if gates[mode].get("hold") else "skips"
            print(f"  {mode}: {verb} {skipped(gates[mode])}")
        for k in gate["places"]:
            print(
                f"  {k['trigger']:>10} {k['line_kind']:<8} shown {k['shown']:4}  "
                f"wasted {k['wasted_share']:4.0%}  kept per suggestion {k['kept_per_suggestion']:.1f}"
            )
        if args.upstream:
            return upstream_mode(args, gates, tmp)
        text = session("textwrap", args.chars)
        counts = ("calls", "shown", "accepted", "kept", "typed", "wasted")
        totals = {m: dict.fromkeys(counts, 0) for m in modes}
        # what `stats` would tell this user from the fixed run's events (the gate learned from the
        # training history and the session before each block), against what each level did
        foreseen: dict[str, list[int]] = {}
        for seed in range(2, 2 + args.seeds):
            result = replay(text, modes, seed, gates, tmp, args.latency_ms)
            for mode in modes:
                r = result[mode]
                events = stored(r["events"], tmp / f"{mode}-{seed}.sqlite3")
                summary = summarize(events)["total"]
                t = totals[mode]
                t["calls"] += r["calls"]
                t["shown"] += summary["shown"]
                t["accepted"] += summary["accepted_chars"]
                t["kept"] += summary["kept_5m_chars"]
                t["typed"] += r["typed"]
                t["wasted"] += sum(1 for e in events if not e["kept_5m"])
                if mode == "fixed":
                    for p in preview(events, history=rows):
                        f = foreseen.setdefault(str(p["level"]), [0, 0, 0, 0, 0])
                        f[0] += p["shown"]
                        f[1] += p["affected_shown"]
                        f[2] += p["kept_chars"]
                        f[3] += p["affected_kept_chars"]
                        f[4] += p["lost_kept_chars"]
    per = 1000 / (len(text) * args.seeds)
    base = totals["fixed"]
    print(f"\nper 1,000 characters of the session ({len(text)} characters, {args.seeds} seeds)\n")
    print(
        "| mode | model calls | shown | shown, nothing kept | accepted chars | kept chars (5 min) "
        "| keys typed | calls | shown | kept |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mode in modes:
        t = totals[mode]
        ratios = " | ".join(f"{t[k] / base[k]:.2f}x" if base[k] else "-" for k in ("calls", "shown", "kept"))
        print(
            f"| {mode} | {t['calls'] * per:.0f} | {t['shown'] * per:.0f} | {t['wasted'] * per:.0f} | "
            f"{t['accepted'] * per:.0f} | {t['kept'] * per:.0f} | {t['typed'] * per:.0f} | {ratios} |"
        )
    print(
        "\nforeseen from the fixed run's events (`jupyter codecomplete stats`' restraint preview), "
        "against the replay of each level\n"
    )
    print(
        "| level | verb | at its places: shown | kept chars | foreseen: shown | kept "
        "| replayed: shown | kept |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for mode, level in LEVELS.items():
        f = foreseen.get(level)
        if not f or mode not in totals:
            continue
        verb = "holds" if gates[mode].get("hold") else "skips"
        t = totals[mode]
        # a hold: at most its places' suggestions go; its kept cost is the ones taken sooner
        left = f"{'>= ' if verb == 'holds' else ''}{(f[0] - f[1]) / f[0]:.2f}x"
        print(
            f"| {level} | {verb} | {f[1] / f[0]:.0%} | {f[3] / f[2]:.0%} | {left} | "
            f"{(f[2] - f[4]) / f[2]:.2f}x | {t['shown'] / base['shown']:.2f}x | "
            f"{t['kept'] / base['kept']:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
