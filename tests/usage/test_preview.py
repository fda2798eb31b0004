"""The restraint preview (``usage/preview.py``): what each level would have changed on the user's
own events, learned walking forward; and ``jupyter codecomplete stats`` showing it from a real store."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.protocol import UsageEvent
from jupyter_codecomplete.usage import UsageStore
from jupyter_codecomplete.usage.gate import MIN_EVENTS
from jupyter_codecomplete.usage.preview import MAX_EVENTS, preview

from .test_usage_cli import run_stats


def session(n: int, start: float = 0.0) -> list[dict[str, Any]]:
    """``n`` automatic suggestions, in turn: code (every second keeps 20 characters) and a comment
    (one in ten keeps 4): the gate learns to hold or skip the comments."""
    out = []
    for i in range(n):
        comment = i % 2 == 1
        kept = (4 if (i // 2) % 10 == 0 else 0) if comment else (20 if (i // 2) % 2 == 0 else 0)
        row = {"kept_5m": kept, "kept_30s": kept, "accepted_chars": kept, "typing_ms": 170.0}
        row |= {
            "shown_at": start + i * 1000.0,
            "trigger": "typing",
            "line_kind": "comment" if comment else "code",
        }
        out.append(row)
    return out


def by_level(result: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(p["level"]): p for p in result}


def test_nothing_is_affected_before_the_gate_has_enough_events() -> None:
    for p in preview(session(MIN_EVENTS)):
        assert p["events"] == MIN_EVENTS
        assert (p["affected_shown"], p["affected_kept_chars"]) == (0, 0)
        assert (p["shown_ratio"], p["kept_ratio"]) == (1.0, 1.0)


def test_only_what_comes_after_the_learning_is_counted() -> None:
    rows = session(400)
    less = by_level(preview(rows))["less"]
    assert less["verb"] == "skips"
    comments = [r for r in rows[MIN_EVENTS:] if r["line_kind"] == "comment"]
    # the comments after the first blocks (the gate needs its events first), never the code
    assert 0 < less["affected_shown"] <= len(comments)
    assert less["affected_kept_chars"] <= sum(r["kept_5m"] for r in comments)
    assert less["shown_ratio"] == pytest.approx((400 - less["affected_shown"]) / 400)
    total = sum(r["kept_5m"] for r in rows)
    assert less["kept_ratio"] == pytest.approx((total - less["affected_kept_chars"]) / total)
    normal = by_level(preview(rows))["normal"]
    assert normal["verb"] == "holds" and normal["affected_shown"] == less["affected_shown"]
    more = by_level(preview(rows))["more"]
    assert more["verb"] == "holds" and more["affected_shown"] <= normal["affected_shown"]


def test_a_history_is_learned_from_and_not_counted() -> None:
    history = session(300)
    rows = session(100, start=1e6)
    less = by_level(preview(rows, history=history))["less"]
    assert less["events"] == 100
    # learned from the history, so from the first of these: all 50 comments
    assert less["affected_shown"] == 50


def test_a_hold_costs_what_was_taken_sooner_than_the_pause() -> None:
    history = session(300)
    rows = session(100, start=1e6)
    # the comments that kept something (one in ten): taken after 0.5 s or 3 s, in turn
    taken = [r for r in rows if r["line_kind"] == "comment" and r["kept_5m"]]
    assert len(taken) == 5
    for i, r in enumerate(taken):
        r["accept_pause_ms"] = 500.0 if i % 2 == 0 else 3000.0
    levels = by_level(preview(rows, history=history))
    normal, less = levels["normal"], levels["less"]
    assert normal["affected_kept_chars"] == less["affected_kept_chars"] == 5 * 4
    # held for the 2 s default (the history has no pauses): the three taken after 0.5 s are lost
    assert normal["lost_kept_chars"] == 3 * 4
    assert less["lost_kept_chars"] == 5 * 4
    total = sum(r["kept_5m"] for r in rows)
    assert normal["kept_ratio"] == pytest.approx((total - 12) / total)
    # with the user's own pause learned (0.5 s: the lower quartile of theirs), none are lost
    quick = [
        dict(r, line_kind="comment", outcome="accepted", accept_pause_ms=500.0, shown_at=9e5 + i)
        for i, r in enumerate(history[:5])
    ]
    assert by_level(preview(rows, history=history + quick))["normal"]["lost_kept_chars"] == 0


def test_manual_requests_are_neither_counted_nor_learned_from() -> None:
    rows = session(200) + [dict(r, trigger="manual") for r in session(200, start=1e6)]
    assert by_level(preview(rows))["less"]["events"] == 200


def test_bounded_to_the_last_events() -> None:
    rows = session(MAX_EVENTS + 500)
    result = preview(rows)
    assert all(p["events"] == MAX_EVENTS for p in result)
    # the earlier ones are learned from: the comments of the first block are already skipped
    assert by_level(result)["less"]["affected_shown"] == MAX_EVENTS // 2


def test_stats_shows_the_preview(tmp_path: Path) -> None:
    now = time.time() * 1000
    path = tmp_path / "data" / "codecomplete" / "usage.sqlite3"
    store = UsageStore(str(path))
    store.record_sync(
        [UsageEvent(id=f"e{i}", shown_at=now - 400_000 + r["shown_at"], model="qwen", language="python",
                    latency_ms=200, length=20, outcome="accepted" if r["kept_5m"] else "ignored",
                    accept_kind="whole" if r["kept_5m"] else None, accepted_chars=r["kept_5m"],
                    kept_30s=r["kept_5m"], kept_5m=r["kept_5m"], trigger="typing",
                    line_kind=r["line_kind"], typing_ms=170.0)
         for i, r in enumerate(session(300))]
    )  # fmt: skip
    store.close()
    out = run_stats(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Restraint on your last 300 automatic suggestions" in out.stdout
    lines = {
        line.split()[0]: line
        for line in out.stdout.splitlines()
        if line.split()[:1] in (["less"], ["normal"])
    }
    assert lines["less"].split()[1] == "skips" and lines["normal"].split()[1] == "holds"
    summary = json.loads(run_stats(tmp_path, "--json").stdout)
    less = by_level(summary["restraint"])["less"]
    assert less["affected_shown"] > 0 and less["kept_ratio"] < 1


def test_stats_says_when_the_gate_has_too_few_events(tmp_path: Path) -> None:
    now = time.time() * 1000
    path = tmp_path / "data" / "codecomplete" / "usage.sqlite3"
    store = UsageStore(str(path))
    store.record_sync(
        [
            UsageEvent(id=f"e{i}", shown_at=now - 1000 + i, latency_ms=100, length=5, outcome="ignored")
            for i in range(7)
        ]
    )
    store.close()
    out = run_stats(tmp_path)
    assert f"Restraint learns from your automatic suggestions once there are {MIN_EVENTS} (7 so far)." in (
        out.stdout
    )
    assert "LEVEL" not in out.stdout
