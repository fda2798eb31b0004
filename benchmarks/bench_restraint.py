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
2. The test session (``textwrap.py``, 6,000 characters) in each mode, three seeds; the
   events of each go into a store of their own and ``summarize`` counts them.

Per 1,000 characters of the session: model calls, suggestions shown, characters accepted, kept
(still there 5 minutes later), and the ratios to the fixed debounce.

    python benchmarks/bench_restraint.py [--chars 6000] [--seeds 3] [--before-gate OLD_GATE.py]

``--before-gate``: also replay with the gate an older ``gate.py`` learns from the same history
(``git show REV:jupyter_codecomplete/usage/gate.py > /tmp/gate_before.py``), rows ``* before``.

Not a test; needs ``jlpm install``. Measured numbers are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_codecomplete.protocol import UsageEvent
from jupyter_codecomplete.usage import UsageStore, summarize
from jupyter_codecomplete.usage.gate import learn

ROOT = Path(__file__).resolve().parents[1]
MODES = ("fixed", "adaptive", "gated_more", "gated", "gated_less")
LEVELS = {"gated_more": "more", "gated": "normal", "gated_less": "less"}
TRAINING = ("shlex", "glob", "fnmatch", "heapq")


def session(module: str, chars: int) -> str:
    """The first ``chars`` characters of a standard-library module (the same text in every run of
    one Python version, unlike this project's own files)."""
    import importlib

    path = importlib.import_module(module).__file__
    assert path is not None
    return Path(path).read_text()[:chars]


def replay(
    text: str, modes: tuple[str, ...], seed: int, gates: dict[str, Any], tmp: Path, latency_ms: float = 140
) -> Any:
    inp, out = tmp / f"in-{seed}.json", tmp / f"out-{seed}.json"
    body = {"text": text, "modes": list(modes), "gates": gates, "seed": seed, "latency_ms": latency_ms}
    inp.write_text(json.dumps(body))
    cmd = ["npx", "jest", "--config", "benchmarks/replay/jest.config.js", "--silent"]
    env = os.environ | {"REPLAY_IN": str(inp), "REPLAY_OUT": str(out)}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
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
        "--latency-ms", type=float, default=140, help="the model's base time to show (+ 4 ms a character)"
    )
    args = parser.parse_args()
    modes: tuple[str, ...] = MODES
    with tempfile.TemporaryDirectory(prefix="codecomplete-replay-") as tmpdir:
        tmp = Path(tmpdir)
        rows: list[dict[str, Any]] = []
        for i, module in enumerate(TRAINING):
            train = replay(session(module, args.chars), ("fixed",), 1, {}, tmp)["fixed"]
            rows += stored(train["events"], tmp / f"train-{i}.sqlite3")
        gates = {mode: learn(rows, level) for mode, level in LEVELS.items()}  # type: ignore[arg-type]
        if args.before_gate:
            before = load_gate(args.before_gate)
            for mode, level in LEVELS.items():
                gates[f"{mode}_before"] = before(rows, level)
            modes = (*MODES, *(f"{m}_before" for m in LEVELS))
        gate = gates["gated"]
        print(
            f"gate learned from {gate['events']} training suggestions ({gate['overall']:.1f} kept characters "
            f"each, {gate['useful_rate']:.0%} not wasted)"
        )
        for mode in gates:
            print(f"  {mode}: skips {skipped(gates[mode])}")
        for k in gate["places"]:
            print(
                f"  {k['trigger']:>10} {k['line_kind']:<8} shown {k['shown']:4}  "
                f"wasted {k['wasted_share']:4.0%}  kept per suggestion {k['kept_per_suggestion']:.1f}"
            )
        text = session("textwrap", args.chars)
        counts = ("calls", "shown", "accepted", "kept", "typed", "wasted")
        totals = {m: dict.fromkeys(counts, 0) for m in modes}
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
