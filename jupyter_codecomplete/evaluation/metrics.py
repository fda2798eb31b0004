"""Scoring one suggestion against the real text, and summarising many.

* The compared suggestion: for ``next_line`` and ``span`` tasks only its first line (what the
  task asks for); for ``block`` the whole suggestion; for ``member`` (the name or key after
  ``name.`` / ``name[`` / ``name(``) the suggestion's first token of that shape.
* Both sides are normalised the same way: trailing whitespace of each line and blank lines at the
  start and the end are dropped (leading indentation is kept).
* **exact match**: the normalised texts are equal.
* **edit similarity**: ``1 - levenshtein(a, b) / max(len(a), len(b))`` on the normalised texts
  (character-level Levenshtein distance; 1.0 when both are empty).
* **empty**: the normalised suggestion is empty (the editor would show nothing).
* latency: from the request to the end of the suggestion; percentiles by linear interpolation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


def normalize(text: str) -> str:
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


# the first name, string literal or keyword argument of a suggestion (a ``member`` task's answer)
_MEMBER_TOKEN = re.compile(r"\s*('[^'\n]*'|\"[^\"\n]*\"|[A-Za-z_]\w*=?)")


def compared(kind: str, suggestion: str) -> str:
    """The part of a suggestion that is scored for a task kind."""
    if kind == "member":
        m = _MEMBER_TOKEN.match(suggestion)
        return m.group(1) if m else normalize(suggestion.split("\n", 1)[0])
    if kind in ("next_line", "span"):
        suggestion = suggestion.split("\n", 1)[0]
    return normalize(suggestion)


def levenshtein(a: str, b: str) -> int:
    """Character edit distance (insertions, deletions, substitutions, each costing 1)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def edit_similarity(a: str, b: str) -> float:
    """1 - normalised Levenshtein distance: 1.0 for equal texts, 0.0 for nothing in common."""
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest


def score(kind: str, suggestion: str, target: str) -> dict[str, Any]:
    got, want = compared(kind, suggestion), normalize(target)
    return {
        "exact_match": got == want,
        "edit_similarity": edit_similarity(got, want),
        "empty": got == "",
    }


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100) by linear interpolation between the closest ranks."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate per-task results (each with the keys of :func:`score`, ``latency_ms``, ``error``)."""
    n = len(results)
    latencies = [r["latency_ms"] for r in results if r.get("error") is None]
    return {
        "tasks": n,
        "exact_match": sum(r["exact_match"] for r in results) / n if n else None,
        "edit_similarity": sum(r["edit_similarity"] for r in results) / n if n else None,
        "empty_rate": sum(r["empty"] for r in results) / n if n else None,
        "errors": sum(r.get("error") is not None for r in results),
        "latency_p50_ms": percentile(latencies, 50),
        "latency_p90_ms": percentile(latencies, 90),
    }


def markdown_table(rows: Sequence[Sequence[str]], text_columns: int = 1) -> str:
    """``rows`` (the head first) as a Markdown table: the first ``text_columns`` columns aligned
    left, the figures right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "| "
        + " | ".join(
            c.ljust(w) if i < text_columns else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        + " |"
        for r in rows
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
