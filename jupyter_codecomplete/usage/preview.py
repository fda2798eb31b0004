"""What each restraint level would have changed, on the user's own recorded suggestions.

A walk forward through the events in the order they were shown: before every block of them the
gate is learned again (:func:`.gate.learn`) from the events *before* the block only, as the client
would have had it then, and each automatic suggestion of the block at a place that gate skips or
holds is counted against it. So a user sees, for their model on their code, what "suggest less"
and the default would cost before choosing:

- *skipped* (``less``): the request would not have been made, so the suggestion would not have
  been shown and its kept characters would not be there. Exact, but for what the user would have
  done instead (typed the same text by hand, as the replay benchmark's user does).
- *held* (``normal``, ``more``): the request waits for the user's usual pause before taking a
  suggestion there (the gate's learned ``pauses`` for the line kind, else
  :data:`.gate.PAUSE_DEFAULT_MS`), so the ghost text shows about when that pause is reached. An
  accepted suggestion is *lost* when the user took it after a shorter pause
  (``accept_pause_ms``); one recorded without a pause (an older event) is counted as lost. For
  the ones not accepted the events do not say how long the user paused, so the suggestions
  shown are given as what is *at stake* (at most that many fewer); the kept figure is the
  estimate.

Bounded: the last :data:`MAX_EVENTS` automatic suggestions are counted (and learned from, with
the ones before them), in at most :data:`MAX_BLOCKS` fits per level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .gate import AUTOMATIC, HOLD_LEVELS, MIN_EVENTS, PAUSE_DEFAULT_MS, Level, learn, rhythm, value

LEVELS_SHOWN: tuple[Level, ...] = ("more", "normal", "less")
MAX_BLOCKS = 20
MAX_EVENTS = 3000
MIN_BLOCK = 25


def _cell(row: dict[str, Any]) -> tuple[str, str, str]:
    return (str(row["trigger"]), str(row.get("line_kind") or "code"), rhythm(row.get("typing_ms")))


def _automatic(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted((r for r in rows if r.get("trigger") in AUTOMATIC), key=lambda r: float(r["shown_at"]))


def preview(
    rows: Sequence[dict[str, Any]],
    levels: Sequence[Level] = LEVELS_SHOWN,
    *,
    history: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Per level: ``{level, verb, events, min_events, shown, kept_chars, affected_shown, affected_kept_chars,
    lost_kept_chars, shown_ratio, kept_ratio}`` over the automatic suggestions of ``rows``
    (``verb``: ``skips`` or ``holds``; ``affected_*``: at the places it skips or holds;
    ``lost_kept_chars``: what it would cost; the ratios: what would be left, 1.0 when nothing is
    affected; ``shown_ratio`` of a hold: at least that much). ``history``: earlier events the gate
    also learns from, not counted."""
    auto = _automatic(rows)
    past = (_automatic(history) + auto[:-MAX_EVENTS])[-MAX_EVENTS:]
    auto = auto[-MAX_EVENTS:]
    n = len(auto)
    block = max(MIN_BLOCK, -(-n // MAX_BLOCKS))
    total_kept = sum(value(r) for r in auto)
    out = []
    for level in levels:
        affected = affected_kept = lost_kept = 0
        holds = level in HOLD_LEVELS
        # the gate is off until MIN_EVENTS are known: nothing before them is affected
        for start in range(max(0, MIN_EVENTS - len(past)), n, block):
            gate = learn(past + auto[:start], level)
            if not gate["active"]:
                continue
            cells = {(s["trigger"], s["line_kind"], s["rhythm"]) for s in gate["skip"]}
            learned = gate.get("pauses") or {}
            for r in auto[start : start + block]:
                if _cell(r) not in cells:
                    continue
                affected += 1
                kept = value(r)
                affected_kept += kept
                if holds:
                    hold = float(learned.get(str(r.get("line_kind") or "code"), PAUSE_DEFAULT_MS))
                    pause = r.get("accept_pause_ms")
                    if kept and (pause is None or float(pause) < hold):
                        lost_kept += kept
                else:
                    lost_kept += kept
        out.append(
            {
                "level": level,
                "verb": "holds" if holds else "skips",
                "events": n,
                "min_events": MIN_EVENTS,
                "shown": n,
                "kept_chars": total_kept,
                "affected_shown": affected,
                "affected_kept_chars": affected_kept,
                "lost_kept_chars": lost_kept,
                "shown_ratio": (n - affected) / n if n else None,
                "kept_ratio": (total_kept - lost_kept) / total_kept if total_kept else None,
            }
        )
    return out
