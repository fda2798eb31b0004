"""The gate's learning (``usage/gate.py``) on constructed event sets: which cells it skips and why."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.protocol import UsageEvent
from jupyter_codecomplete.usage import gate
from jupyter_codecomplete.usage.gate import fit, learn, rhythm

ROOT = Path(__file__).resolve().parents[2]


def rows(
    n: int,
    *,
    kept: int,
    trigger: str = "typing",
    line_kind: str = "code",
    typing_ms: float | None = 170.0,
    every: int = 1,
) -> list[dict[str, Any]]:
    """``n`` suggestions at one place; every ``every``-th one left ``kept`` characters, the others nothing."""
    return [
        {"trigger": trigger, "line_kind": line_kind, "typing_ms": typing_ms,
         "kept_5m": kept if i % every == 0 else 0, "accepted_chars": kept if i % every == 0 else 0}
        for i in range(n)
    ]  # fmt: skip


def skipped(learned: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(s["trigger"], s["line_kind"], s["rhythm"]) for s in learned["skip"]}


def test_logistic_fit_recovers_rates() -> None:
    # two groups, 80 % and 20 % positive: intercept + one indicator each (a weak prior)
    w = fit([((0, 1), 100, 80), ((0, 2), 100, 20)], 3, prior=1e-6)
    p = [1 / (1 + pow(2.718281828459045, -(w[0] + w[j]))) for j in (1, 2)]
    assert p == pytest.approx([0.8, 0.2], abs=1e-3)


def test_rhythm_bins() -> None:
    assert [rhythm(v) for v in (None, 60, 109.9, 110, 219, 220, 5000)] == [
        "unknown", "burst", "burst", "steady", "steady", "slow", "slow"
    ]  # fmt: skip


def test_a_place_mostly_wasted_that_leaves_little_is_skipped() -> None:
    # code: half of the suggestions keep 20 characters; comments: one in ten keeps 10
    events = rows(200, kept=20, every=2) + rows(60, kept=10, line_kind="comment", every=10)
    learned = learn(events)
    assert learned["active"] and learned["events"] == 260
    assert {(t, k) for t, k, _ in skipped(learned)} == {("typing", "comment")}
    comment = next(p for p in learned["places"] if p["line_kind"] == "comment")
    assert comment["wasted_share"] == pytest.approx(0.9) and comment["shown"] == 60
    # "suggest more" skips it too (it almost never helps); "off" skips nothing
    assert {(t, k) for t, k, _ in skipped(learn(events, "more"))} == {("typing", "comment")}
    off = learn(events, "off")
    assert not off["active"] and off["skip"] == []


def test_the_default_level_holds_a_low_value_place_and_suggest_less_skips_it() -> None:
    # the same cells are marked at each level; what the client does there is the level's
    events = rows(200, kept=20, every=2) + rows(60, kept=10, line_kind="comment", every=10)
    normal, less = learn(events), learn(events, "less")
    assert skipped(normal) == skipped(less) and skipped(normal)
    assert normal["hold"] is True  # asked only after the user's own long pause
    assert less["hold"] is False  # skipped outright


def test_often_wasted_but_worth_it_when_right_is_kept() -> None:
    # a fresh line: 70 % wasted, but the 30 % that help keep 60 characters each (far above the
    # overall average): skipping it would cut kept characters, so even "less" keeps it
    events = rows(200, kept=10, every=2) + rows(
        100, kept=60, trigger="fresh_line", line_kind="empty", every=3
    )
    for level in ("more", "normal", "less"):
        assert not any(k == "empty" for _, k, _ in skipped(learn(events, level))), level


def test_the_rhythm_is_learned() -> None:
    # after a burst of fast typing nothing is ever kept; typing steadily, half keep 20 characters
    events = rows(200, kept=20, every=2) + rows(80, kept=0, typing_ms=70.0)
    learned = learn(events)
    assert skipped(learned) == {("typing", "code", "burst")}
    cells = {c["rhythm"]: c for c in learned["cells"]}
    assert cells["burst"]["useful"] < 0.05 < 0.4 < cells["steady"]["useful"]


def test_needs_enough_events_and_never_learns_from_manual_requests() -> None:
    few = rows(30, kept=20, every=2) + rows(15, kept=0, line_kind="comment")
    assert learn(few)["active"] is False  # under MIN_EVENTS automatic suggestions
    # manual requests do not count, and do not make a place look good
    manual = rows(100, kept=50, trigger="manual", line_kind="comment")
    assert learn(few + manual)["events"] == 45
    # a place with fewer than MIN_PLACE_EVENTS of its own is not judged
    events = rows(200, kept=20, every=2) + rows(gate.MIN_PLACE_EVENTS - 1, kept=0, line_kind="string")
    assert skipped(learn(events)) == set()


def test_learning_is_fast_on_many_rows() -> None:
    events = (rows(20_000, kept=20, every=2) + rows(3000, kept=3, line_kind="comment", every=8)
              + rows(3000, kept=0, typing_ms=None, line_kind="string"))  # fmt: skip
    start = time.perf_counter()
    learned = learn(events)
    assert time.perf_counter() - start < 2.0  # generous on a loaded machine; ~0.1 s here
    assert {(t, k) for t, k, _ in skipped(learned)} == {("typing", "comment"), ("typing", "string")}


def accepts(
    pauses_ms: list[float | None], *, line_kind: str = "comment", t0: float = 0.0, **fields: Any
) -> list[dict[str, Any]]:
    """Accepted automatic suggestions at one line kind, one per pause, shown one second apart."""
    return [
        {"trigger": "typing", "line_kind": line_kind, "outcome": "accepted", "accept_kind": "whole",
         "accepted_chars": 5, "kept_5m": 5, "shown_at": t0 + 1000 * i, "accept_pause_ms": ms,
         "held": False} | fields
        for i, ms in enumerate(pauses_ms)
    ]  # fmt: skip


FIVE = [3000.0, 1200.0, 2400.0, 1800.0, 2000.0]  # sorted 1200, 1800, 2000, 2400, 3000: Q1 is 1800
FOUR = FIVE[:4]  # one short of enough

# (case, rows, the learned pauses)
PAUSE_CASES: list[tuple[str, list[dict[str, Any]], dict[str, float]]] = [
    ("no events", [], {}),
    ("fewer than five: absent", accepts(FOUR), {}),
    ("five: the lower quartile", accepts(FIVE), {"comment": 1800.0}),
    ("each line kind its own",
     accepts(FIVE) + accepts([900.0] * 5, line_kind="code") + accepts(FOUR, line_kind="string"),
     {"code": 900.0, "comment": 1800.0}),
    ("held ones ignored", accepts(FOUR) + accepts([600.0] * 10, held=True), {}),
    ("held ones do not move the quartile",
     accepts(FIVE) + accepts([4500.0] * 20, held=True), {"comment": 1800.0}),
    ("manual triggers ignored", accepts(FOUR) + accepts([700.0] * 10, trigger="manual"), {}),
    ("edit predictions ignored", accepts(FOUR) + accepts([700.0] * 10, trigger="edit"), {}),
    ("a fresh line counts", accepts(FOUR) + accepts([1000.0], trigger="fresh_line"), {"comment": 1200.0}),
    ("not accepted ignored",
     accepts(FOUR) + accepts([700.0] * 10, outcome="ignored", accept_kind=None), {}),
    ("no pause recorded (older rows) ignored", accepts(FOUR) + accepts([None] * 10), {}),
    ("clamped up to 0.5 s", accepts([50.0] * 5), {"comment": gate.PAUSE_MIN_MS}),
    ("clamped down to 5 s", accepts([60_000.0] * 5), {"comment": gate.PAUSE_MAX_MS}),
    # the 50 newest by shown_at (listed newest first): 50 pauses of 3 s; 50 older ones of 0.6 s drop out
    ("the last 50 by shown_at",
     accepts([3000.0] * 50, t0=1e6) + accepts([600.0] * 50), {"comment": 3000.0}),
    ("a mix of the last 50",
     accepts([600.0] * 50) + accepts([1000.0] * 13 + [2000.0] * 37, t0=1e6), {"comment": 1000.0}),
]  # fmt: skip


@pytest.mark.parametrize(("rows_", "expected"), [c[1:] for c in PAUSE_CASES], ids=[c[0] for c in PAUSE_CASES])
def test_learned_pauses(rows_: list[dict[str, Any]], expected: dict[str, float]) -> None:
    assert gate.pauses(rows_) == expected
    assert learn(rows_)["pauses"] == expected  # the gate's answer carries them, at any level
    assert learn(rows_, "less")["pauses"] == expected


def _ts_namespace_constants(path: Path, namespace: str) -> dict[str, float]:
    """``export const NAME = <number>;`` inside ``export namespace <namespace> { ... }`` of a TS file."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"export namespace {namespace} {{")
    body = text[start : text.index("\n}\n", start)]
    return {m[1]: float(m[2]) for m in re.finditer(r"export const (\w+) = ([\d_.]+);", body)}


def test_the_client_uses_the_same_pause_rule() -> None:
    # the page's own samples (AcceptPauses) and the server's learned pauses: one rule
    ts = _ts_namespace_constants(ROOT / "src" / "completion" / "restraint.ts", "AcceptPauses")
    assert ts == {
        "DEFAULT_MS": gate.PAUSE_DEFAULT_MS,
        "MIN_SAMPLES": gate.PAUSE_MIN_SAMPLES,
        "MAX_SAMPLES": gate.PAUSE_MAX_SAMPLES,
        "QUANTILE": gate.PAUSE_QUANTILE,
        "MIN_MS": gate.PAUSE_MIN_MS,
        "MAX_MS": gate.PAUSE_MAX_MS,
    }
    assert gate.PAUSE_MIN_MS <= ts["DEFAULT_MS"] <= gate.PAUSE_MAX_MS


def test_the_client_bounds_the_pause_as_the_server_does() -> None:
    # the tracker leaves out a pause the server's UsageEvent would refuse (the whole message)
    usage_ts = (ROOT / "src" / "usage" / "usage.ts").read_text()
    (ms,) = re.findall(r"export const MAX_PAUSE_MS = ([\d_]+);", usage_ts)
    field = UsageEvent.model_json_schema()["properties"]["accept_pause_ms"]["anyOf"][0]
    assert float(ms) == field["maximum"] and field["minimum"] == 0


def test_the_client_bins_rhythms_as_the_server_does() -> None:
    # the page bins the typing rhythm with DEFAULT_RHYTHMS until the gate's answer brings its own
    text = (ROOT / "src" / "completion" / "restraint.ts").read_text(encoding="utf-8")
    start = text.index("export const DEFAULT_RHYTHMS")
    body = text[start : text.index("];", start)]
    ts = [(m[1], m[2]) for m in re.finditer(r"\{ name: '(\w+)', below_ms: ([\d.]+|null) \}", body)]
    assert ts == [(name, "null" if math.isinf(edge) else f"{edge:g}") for name, edge in gate.RHYTHMS]
    # and the gate's answer says the same
    assert learn([])["rhythms"] == [
        {"name": name, "below_ms": None if b == "null" else float(b)} for name, b in ts
    ]
