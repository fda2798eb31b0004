"""Restraint learned from the user's own events: which automatic requests are not worth making.

A few rules, fitted in microseconds from the store's rows (no model library): for each kind of place
an *automatic* suggestion was shown (the ``line_kind``: code, comment, string, mid_line, empty, and
the trigger: typing or fresh line), the characters a suggestion shown there left in the document on
average (kept characters, or accepted ones while the kept windows are still open: GitHub's
"accepted and retained characters", per suggestion), smoothed towards the user's overall average.
A place whose average is under the chosen level's fraction of the overall one is skipped;
manual requests (Alt+\\) are never skipped. The gate switches itself on once
:data:`MIN_EVENTS` automatic suggestions exist, and a kind is judged only with
:data:`MIN_KIND_EVENTS` of its own.

Levels ("suggest more / less"): ``more`` skips only places that almost never help, ``less`` skips
more; ``off`` skips nothing. The client also skips a request at the place the user just dismissed a
suggestion (same line, same text) unless the level is ``more``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

Level = Literal["off", "more", "normal", "less"]
MIN_EVENTS = 50
MIN_KIND_EVENTS = 20
# a place is skipped when its smoothed average is under this fraction of the user's overall average
THRESHOLDS: dict[str, float] = {"more": 0.2, "normal": 0.4, "less": 0.7}
AUTOMATIC = ("typing", "fresh_line")
PRIOR = 5.0  # pseudo-events at the overall average added to each kind (smoothing)


def value(row: dict[str, Any]) -> int:
    """Characters a suggestion left: kept after 5 min, else 30 s, else accepted."""
    k = row.get("kept_5m")
    if k is None:
        k = row.get("kept_30s")
    if k is None:
        k = row.get("accepted_chars")
    return int(k or 0)


def learn(rows: Sequence[dict[str, Any]], level: Level = "normal") -> dict[str, Any]:
    """The gate for these rows: ``{level, active, events, overall, threshold, skip: [{trigger, line_kind}],
    after_dismissal, kinds}`` (``overall`` and ``threshold`` in kept characters per suggestion)."""
    auto = [r for r in rows if r.get("trigger") in AUTOMATIC]
    n = len(auto)
    overall = sum(value(r) for r in auto) / n if n else 0.0
    kinds: dict[tuple[str, str], list[int]] = {}
    for r in auto:
        cell = kinds.setdefault((str(r["trigger"]), str(r.get("line_kind") or "code")), [0, 0])
        cell[0] += 1
        cell[1] += value(r)
    active = level != "off" and n >= MIN_EVENTS
    threshold = THRESHOLDS.get(level, 0.0) * overall
    out_kinds = []
    skip = []
    for (trigger, line_kind), (shown, kept) in sorted(kinds.items()):
        average = (kept + PRIOR * overall) / (shown + PRIOR)
        skipped = active and shown >= MIN_KIND_EVENTS and average < threshold
        out_kinds.append(
            {
                "trigger": trigger,
                "line_kind": line_kind,
                "shown": shown,
                "kept_chars": kept,
                "kept_per_suggestion": average,
                "skip": skipped,
            }
        )
        if skipped:
            skip.append({"trigger": trigger, "line_kind": line_kind})
    return {
        "level": level,
        "active": active,
        "events": n,
        "min_events": MIN_EVENTS,
        "overall": overall,
        "threshold": threshold,
        "skip": skip,
        "after_dismissal": level in ("normal", "less") and active,
        "kinds": out_kinds,
    }
