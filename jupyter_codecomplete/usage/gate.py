"""Restraint learned from the user's own events: which automatic requests are not worth making.

A suggestion is *wasted* when it was shown and left nothing in the document (no kept characters,
or none accepted while the kept windows are still open). The gate fits, from the store's rows of
*automatic* suggestions, a logistic regression of "not wasted" on what the client knows before
it asks:

- the *place*: trigger (typing, fresh line) × line kind (code, comment, string, mid-line, empty);
- the *rhythm*: how fast the user was typing just before the request (``typing_ms``, the mean of
  the last few intervals between keystrokes, in :data:`RHYTHMS` bins; ``unknown`` for older
  events and the first keys).

The features are categorical, so the rows are first counted into cells (place × rhythm, a few
dozen at most) and the model is fitted on the cells by Newton's method with an L2 prior
(:data:`PRIOR`: each weight is pulled towards 0, a place with few events towards the user's
overall rate): milliseconds for any number of rows, and the client only looks the answer up.

A cell is skipped when *both* hold (the level's :data:`LEVELS` thresholds):

- the chance that a suggestion there is not wasted is under ``useful``, and
- the characters a suggestion there leaves on average (that chance × the kept characters of the
  place's useful ones, smoothed) are under ``kept`` × the user's overall average,

so a place that is often wasted but pays off when it is right (a fresh line) is kept: restraint
cuts suggestions shown, not kept characters. At the levels in :data:`HOLD_LEVELS` (the default
among them) such a cell is not skipped outright but *held* (``hold``): the client asks there only
after a pause as long as the user's own pauses before taking a suggestion at that line kind
(``pauses``, learned here from the stored events by :func:`pauses`, so that a reload, a second tab
or Notebook 7 starts from them; ``AcceptPauses`` in ``src/completion/restraint.ts``), so a user who stops to
take a comment's completion still gets it; at "less" it is skipped. Manual requests (Alt+\\) are
never skipped. The gate switches itself on once :data:`MIN_EVENTS` automatic suggestions exist,
and a place is judged only with :data:`MIN_PLACE_EVENTS` of its own; a rhythm at a place with fewer
than :data:`MIN_CELL_EVENTS` is judged as the whole place is (its events' average prediction), so that a
rhythm never seen at a place is not skipped for what it did elsewhere. The client also skips a
request at the place the user just dismissed a suggestion (same line, same text) unless the level
is ``more`` or ``off``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

Level = Literal["off", "more", "normal", "less"]
MIN_EVENTS = 50
MIN_PLACE_EVENTS = 12
MIN_CELL_EVENTS = 5  # a rhythm at a place with fewer is judged as the place is
AUTOMATIC = ("typing", "fresh_line")
# (useful, kept): skip where P(not wasted) < useful and kept per suggestion < kept × overall
LEVELS: dict[str, tuple[float, float]] = {"more": (0.2, 0.25), "normal": (0.4, 0.5), "less": (0.5, 0.75)}
# the levels at which a skipped cell is held for a long pause instead
HOLD_LEVELS = ("more", "normal")
# the typing rhythm before a request: (name, upper edge of the mean interval between keys, ms)
RHYTHMS: tuple[tuple[str, float], ...] = (("burst", 110.0), ("steady", 220.0), ("slow", math.inf))
UNKNOWN = "unknown"
# the user's pauses before taking a suggestion (``pauses``): per line kind, the QUANTILE of the
# last MAX_SAMPLES (automatic, not held, accepted), given with at least MIN_SAMPLES, clamped to
# MIN_MS-MAX_MS. The client's ``AcceptPauses`` uses the same numbers for the page's own samples
# (tests/usage/test_gate.py reads both).
# the pause a held place waits for before the user's own are known (AcceptPauses.DEFAULT_MS)
PAUSE_DEFAULT_MS = 2000.0
PAUSE_MIN_SAMPLES = 5
PAUSE_MAX_SAMPLES = 50
PAUSE_QUANTILE = 0.25
PAUSE_MIN_MS = 500.0
PAUSE_MAX_MS = 5000.0
PRIOR = 2.0  # the L2 prior's strength, in pseudo-events (a weight's precision)
SMOOTH = 2.0  # pseudo-suggestions at the overall figure added to a place's kept characters per useful one


def value(row: dict[str, Any]) -> int:
    """Characters a suggestion left: kept after 5 min, else 30 s, else when its document closed,
    else accepted."""
    k = row.get("kept_5m")
    if k is None:
        k = row.get("kept_30s")
    if k is None:
        k = row.get("kept_at_close")
    if k is None:
        k = row.get("accepted_chars")
    return int(k or 0)


def rhythm(typing_ms: float | None) -> str:
    """The bin of a mean interval between keystrokes (the client computes the same)."""
    if typing_ms is None:
        return UNKNOWN
    return next(name for name, edge in RHYTHMS if typing_ms < edge)


def pauses(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """How long the user pauses before taking a suggestion, by line kind (ms): the lower quartile
    of the last :data:`PAUSE_MAX_SAMPLES` pauses (by ``shown_at``) before an accept of an
    automatic suggestion that was not held (one asked after a hold could only be taken after it:
    counting it would lengthen the hold each time); only kinds with :data:`PAUSE_MIN_SAMPLES`,
    clamped to :data:`PAUSE_MIN_MS`-:data:`PAUSE_MAX_MS`. The client holds a gated place that
    long until the page has enough pauses of its own (``AcceptPauses`` in ``src/completion/restraint.ts``)."""
    by_kind: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        ms = r.get("accept_pause_ms")
        if ms is None or r.get("held") or r.get("trigger") not in AUTOMATIC or r.get("outcome") != "accepted":
            continue
        kind = str(r.get("line_kind") or "code")
        by_kind.setdefault(kind, []).append((float(r.get("shown_at") or 0), float(ms)))
    out: dict[str, float] = {}
    for kind, seen in sorted(by_kind.items()):
        if len(seen) < PAUSE_MIN_SAMPLES:
            continue
        last = sorted(ms for _, ms in sorted(seen)[-PAUSE_MAX_SAMPLES:])
        q = last[math.floor((len(last) - 1) * PAUSE_QUANTILE)]
        out[kind] = min(PAUSE_MAX_MS, max(PAUSE_MIN_MS, q))
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting (a small, positive-definite ``a``)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        p = m[col][col]
        for r in range(col + 1, n):
            f = m[r][col] / p
            if f:
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def fit(cells: Sequence[tuple[Sequence[int], int, int]], features: int, prior: float = PRIOR) -> list[float]:
    """Logistic regression on counted cells: each ``(active feature indices, n, positives)``;
    feature 0 is the intercept (not penalised). Returns the weights."""
    w = [0.0] * features
    total = sum(n for _, n, _ in cells)
    positives = sum(k for _, _, k in cells)
    if total:
        rate = min(max(positives / total, 1e-3), 1 - 1e-3)
        w[0] = math.log(rate / (1 - rate))
    for _ in range(50):
        grad = [0.0] * features
        hess = [[0.0] * features for _ in range(features)]
        for j in range(1, features):
            grad[j] -= prior * w[j]
            hess[j][j] += prior
        for active, n, k in cells:
            p = 1 / (1 + math.exp(-sum(w[j] for j in active)))
            g = k - n * p
            h = n * p * (1 - p)
            for j in active:
                grad[j] += g
                for i in active:
                    hess[j][i] += h
        hess[0][0] += 1e-9
        step = _solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w


def learn(rows: Sequence[dict[str, Any]], level: Level = "normal") -> dict[str, Any]:
    """The gate for these rows: ``{level, active, events, overall, useful_rate, thresholds,
    rhythms, skip: [{trigger, line_kind, rhythm}], hold, pauses: {line_kind: ms}, after_dismissal,
    places, cells}`` (``overall`` in kept characters per suggestion; ``pauses``: :func:`pauses`)."""
    auto = [r for r in rows if r.get("trigger") in AUTOMATIC]
    n = len(auto)
    overall = sum(value(r) for r in auto) / n if n else 0.0
    # place -> [shown, useful, kept chars]; (place, rhythm) -> [shown, useful]
    places: dict[tuple[str, str], list[int]] = {}
    cells: dict[tuple[tuple[str, str], str], list[int]] = {}
    for r in auto:
        place = (str(r["trigger"]), str(r.get("line_kind") or "code"))
        kept = value(r)
        useful = 1 if kept > 0 else 0
        p = places.setdefault(place, [0, 0, 0])
        p[0] += 1
        p[1] += useful
        p[2] += kept
        c = cells.setdefault((place, rhythm(r.get("typing_ms"))), [0, 0])
        c[0] += 1
        c[1] += useful
    useful_all = sum(p[1] for p in places.values())
    # kept characters of a useful suggestion, overall (the smoothing's centre)
    kept_if_useful = sum(p[2] for p in places.values()) / useful_all if useful_all else 0.0
    place_index = {place: 1 + i for i, place in enumerate(sorted(places))}
    rhythm_names = [name for name, _ in RHYTHMS] + [UNKNOWN]
    rhythm_index = {name: 1 + len(place_index) + i for i, name in enumerate(rhythm_names)}
    weights = fit(
        [((0, place_index[pl], rhythm_index[rh]), c[0], c[1]) for (pl, rh), c in sorted(cells.items())],
        1 + len(place_index) + len(rhythm_names),
    )
    active = level != "off" and n >= MIN_EVENTS
    useful_min, kept_min = LEVELS.get(level, (0.0, 0.0))
    out_places = []
    for place, (shown, useful, kept) in sorted(places.items()):
        out_places.append(
            {
                "trigger": place[0],
                "line_kind": place[1],
                "shown": shown,
                "wasted": shown - useful,
                "wasted_share": (shown - useful) / shown,
                "kept_chars": kept,
                "kept_per_suggestion": kept / shown,
            }
        )
    out_cells = []
    skip = []
    for place, (shown, useful, kept) in sorted(places.items()):
        # a useful suggestion's kept characters here, smoothed towards the overall figure
        per_useful = (kept + SMOOTH * kept_if_useful) / (useful + SMOOTH)
        predicted = {}
        for name in rhythm_names:
            logit = weights[0] + weights[place_index[place]] + weights[rhythm_index[name]]
            predicted[name] = 1 / (1 + math.exp(-logit))
        # the place as a whole: its cells' predictions weighted by their events
        p_place = sum(predicted[name] * cells.get((place, name), [0])[0] for name in rhythm_names) / shown
        place_skipped = p_place < useful_min and p_place * per_useful < kept_min * overall
        for name in rhythm_names:
            p_useful = predicted[name]
            expected = p_useful * per_useful
            seen = cells.get((place, name), [0, 0])[0]
            # a rhythm seen often enough here is judged on its own; else as the place is
            own = p_useful < useful_min and expected < kept_min * overall
            skipped = (
                active and shown >= MIN_PLACE_EVENTS and (own if seen >= MIN_CELL_EVENTS else place_skipped)
            )
            if seen or skipped:
                out_cells.append(
                    {
                        "trigger": place[0],
                        "line_kind": place[1],
                        "rhythm": name,
                        "shown": seen,
                        "useful": round(p_useful, 4),
                        "kept_per_suggestion": round(expected, 2),
                        "skip": skipped,
                    }
                )
            if skipped:
                skip.append({"trigger": place[0], "line_kind": place[1], "rhythm": name})
    return {
        "level": level,
        "active": active,
        "events": n,
        "min_events": MIN_EVENTS,
        "overall": overall,
        "useful_rate": useful_all / n if n else None,
        "thresholds": {"useful": useful_min, "kept": kept_min * overall},
        "rhythms": [{"name": name, "below_ms": None if math.isinf(e) else e} for name, e in RHYTHMS],
        "skip": skip,
        "hold": level in HOLD_LEVELS,
        "pauses": pauses(rows),
        "after_dismissal": level in ("normal", "less") and active,
        "places": out_places,
        "cells": out_cells,
    }
