"""Aggregates of the usage events: what the REST route, ``jupyter codecomplete stats`` and the
statistics panel show.

*Kept* is the best figure known for a suggestion: characters still in the document 5 minutes after
it was accepted, else after 30 seconds (a suggestion whose 5-minute window has not ended yet).
*Editing time* is the time between suggestions shown, each gap counted up to :data:`IDLE_GAP_S`
(longer gaps are breaks), plus one gap for the last; *kept per hour* divides kept characters by it.
*Accept pauses* are the gate's learned pauses before taking a suggestion, by line kind
(:func:`.gate.pauses`: how long the client holds a place the gate marks).
"""

from __future__ import annotations

import collections
import itertools
import time
from collections.abc import Iterable, Sequence
from typing import Any

from .gate import pauses
from .preview import preview

IDLE_GAP_S = 300.0
# Upper edges of the latency histogram's bins, ms (the last bin is everything above).
LATENCY_BINS_MS: tuple[int, ...] = (100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000)
OUTCOMES = ("accepted", "typed_through", "dismissed", "ignored")


def kept(row: dict[str, Any]) -> int:
    """Characters kept: after 5 min, else 30 s, else what was there when its document closed
    before 30 s (``kept_at_close``)."""
    for field in ("kept_5m", "kept_30s", "kept_at_close"):
        k = row.get(field)
        if k is not None:
            return int(k)
    return 0


def kept_at_close_only(row: dict[str, Any]) -> bool:
    """Its kept figure is the one counted at close (neither window was measured)."""
    return row.get("kept_5m") is None and row.get("kept_30s") is None and row.get("kept_at_close") is not None


def editing_seconds(times_ms: Sequence[float]) -> float:
    """Editing time from the moments suggestions were shown (see the module's docstring)."""
    ordered = sorted(times_ms)
    if not ordered:
        return 0.0
    total = 0.0
    for a, b in itertools.pairwise(ordered):
        total += min((b - a) / 1000, IDLE_GAP_S)
    # the time after the last suggestion: as much as a typical gap, at least 30 s
    return total + max(30.0, total / len(ordered))


def _group(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    shown = len(rows)
    counts = collections.Counter(r["outcome"] for r in rows)
    accepted_chars = sum(int(r["accepted_chars"] or 0) for r in rows)
    kept_chars = sum(kept(r) for r in rows)
    latencies = sorted(float(r["latency_ms"]) for r in rows)
    hours = editing_seconds([r["shown_at"] for r in rows]) / 3600
    return {
        "shown": shown,
        **{o: counts.get(o, 0) for o in OUTCOMES},
        "accept_rate": counts.get("accepted", 0) / shown if shown else None,
        "shown_chars": sum(int(r["length"] or 0) for r in rows),
        "accepted_chars": accepted_chars,
        "kept_30s_chars": sum(int(r["kept_30s"] or 0) for r in rows),
        "kept_5m_chars": sum(int(r["kept_5m"] or 0) for r in rows),
        "kept_chars": kept_chars,
        # of which counted when the document closed before 30 s: how many, and their characters
        "kept_at_close": sum(1 for r in rows if kept_at_close_only(r)),
        "kept_at_close_chars": sum(int(r.get("kept_at_close") or 0) for r in rows if kept_at_close_only(r)),
        "kept_ratio": kept_chars / accepted_chars if accepted_chars else None,
        "editing_hours": hours,
        "kept_per_hour": kept_chars / hours if hours else None,
        "latency_p50_ms": latencies[len(latencies) // 2] if latencies else None,
        "latency_p90_ms": (
            latencies[min(len(latencies) - 1, int(len(latencies) * 0.9))] if latencies else None
        ),
    }


def latency_histogram(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (model, bin): ``{model, bin, low_ms, high_ms, count}``; ``high_ms`` null for the last."""
    counts: collections.Counter[tuple[str, int]] = collections.Counter()
    for r in rows:
        ms = float(r["latency_ms"])
        index = next((i for i, edge in enumerate(LATENCY_BINS_MS) if ms < edge), len(LATENCY_BINS_MS))
        counts[(r["model"] or "?", index)] += 1
    out = []
    # in the bins' order (then by model): a chart that keeps the data's order shows them rising
    for (model, index), count in sorted(counts.items(), key=lambda item: (item[0][1], item[0][0])):
        low = 0 if index == 0 else LATENCY_BINS_MS[index - 1]
        high = LATENCY_BINS_MS[index] if index < len(LATENCY_BINS_MS) else None
        label = f"{low}-{high} ms" if high is not None else f">= {low} ms"
        out.append(
            {"model": model, "bin": label, "order": index, "low_ms": low, "high_ms": high, "count": count}
        )
    return out


def _by(rows: Sequence[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for r in rows:
        groups[str(r[key] or "?")].append(r)
    return [{key: name, **_group(g)} for name, g in sorted(groups.items())]


def per_day(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model and (local) day: suggestions, acceptance, kept characters per hour of editing."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = collections.defaultdict(list)
    for r in rows:
        day = time.strftime("%Y-%m-%d", time.localtime(r["shown_at"] / 1000))
        groups[(day, r["model"] or "?")].append(r)
    return [{"day": day, "model": model, **_group(g)} for (day, model), g in sorted(groups.items())]


def summarize(rows: Sequence[dict[str, Any]], *, now: float | None = None) -> dict[str, Any]:
    """Everything the statistics views show, from the store's rows."""
    now = time.time() if now is None else now
    return {
        "generated_at": now,
        "total": _group(rows),
        "first_shown_at": rows[0]["shown_at"] if rows else None,
        "last_shown_at": rows[-1]["shown_at"] if rows else None,
        "by_model": _by(rows, "model"),
        "by_trigger": _by(rows, "trigger"),
        "by_language": _by(rows, "language"),
        "by_line_kind": _by(rows, "line_kind"),
        # edit predictions (trigger "edit") per next-edit format the model was asked in
        "by_edit_format": _by([r for r in rows if r["trigger"] == "edit"], "style"),
        "by_accept_kind": [g for g in _by([r for r in rows if r["accept_kind"]], "accept_kind")],
        "latency_histogram": latency_histogram(rows),
        "per_day": per_day(rows),
        "accept_pauses": pauses(rows),
        # what each restraint level would have changed (usage/preview.py)
        "restraint": preview(rows),
    }
