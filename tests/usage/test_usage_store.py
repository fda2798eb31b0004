"""The usage store on real SQLite files: two writers, corrupt and locked files, bounds, upgrades."""

from __future__ import annotations

import logging
import multiprocessing
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.cli import format_stats
from jupyter_codecomplete.protocol import UsageEvent
from jupyter_codecomplete.usage import SCHEMA_VERSION, UsageStore, summarize
from jupyter_codecomplete.usage.store import MIGRATIONS
from jupyter_codecomplete.usage.summary import latency_histogram


def event(i: int | str, **fields: Any) -> UsageEvent:
    base: dict[str, Any] = {
        "id": f"t-{i}",
        "shown_at": time.time() * 1000,
        "model": "m",
        "language": "python",
        "trigger": "typing",
        "latency_ms": 120.0,
        "length": 10,
        "outcome": "accepted",
        "accept_kind": "whole",
        "accepted_chars": 10,
    }
    return UsageEvent.model_validate(base | fields)


def store(tmp_path: Path, **kwargs: Any) -> UsageStore:
    return UsageStore(str(tmp_path / "usage.sqlite3"), **kwargs)


def test_round_trip_and_upsert_keeps_kept_figures(tmp_path: Path) -> None:
    s = store(tmp_path)
    assert s.record_sync([event(1)]) == 1
    assert s.record_sync([event(1, kept_30s=8)]) == 1
    # a later report without the 30 s figure does not erase it
    assert s.record_sync([event(1, kept_5m=6)]) == 1
    [row] = s.rows_sync()
    assert (row["kept_30s"], row["kept_5m"]) == (8, 6)
    assert s.schema_version() == SCHEMA_VERSION
    conn = sqlite3.connect(s.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    s.close()


def _writer(path: str, who: str, n: int) -> None:
    s = UsageStore(path, busy_timeout=10.0)
    for i in range(n):
        assert s.record_sync([event(f"{who}-{i}")]) == 1
    s.close()


def test_two_writers_in_two_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "usage.sqlite3")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, w, 60)) for w in ("a", "b")]
    for p in procs:
        p.start()
    _writer(path, "c", 60)  # and this process too, at the same time
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    rows = UsageStore(path).rows_sync()
    assert len(rows) == 180
    assert {r["id"].split("-")[1] for r in rows} == {"a", "b", "c"}


def test_two_stores_in_threads(tmp_path: Path) -> None:
    path = str(tmp_path / "usage.sqlite3")
    threads = [threading.Thread(target=_writer, args=(path, w, 50)) for w in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(UsageStore(path).rows_sync()) == 100


def test_corrupt_file_warns_once_and_records_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "usage.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    s = UsageStore(str(path))
    with caplog.at_level(logging.DEBUG, logger="jupyter_codecomplete.usage"):
        assert s.record_sync([event(1)]) == 0
        assert s.record_sync([event(2)]) == 0
        assert s.rows_sync() == []
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "not a usable SQLite database" in warnings[0].getMessage()
    assert str(path) in warnings[0].getMessage()
    assert s.problem and "moved away or deleted" in s.problem
    assert path.read_bytes().startswith(b"this is not")  # the user's file is left alone


def test_locked_database_loses_the_batch_then_recovers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    s = store(tmp_path, busy_timeout=0.2)
    assert s.record_sync([event(1)]) == 1
    other = sqlite3.connect(s.path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    with caplog.at_level(logging.DEBUG, logger="jupyter_codecomplete.usage"):
        started = time.monotonic()
        assert s.record_sync([event(2)]) == 0
        assert s.record_sync([event(3)]) == 0
        assert time.monotonic() - started < 5  # the busy timeout bounds the wait
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "locked" in warnings[0].getMessage()
    other.execute("ROLLBACK")
    other.close()
    assert s.record_sync([event(4)]) == 1
    assert [r["id"] for r in s.rows_sync()] == ["t-1", "t-4"]


def test_size_bound_drops_the_oldest(tmp_path: Path) -> None:
    s = store(tmp_path, max_bytes=64 * 1024)
    t0 = time.time() * 1000
    for batch in range(40):
        s.record_sync(
            [event(f"{batch}-{i}", shown_at=t0 + batch * 100 + i, text_hash="h" * 64) for i in range(50)]
        )
    s.prune_sync()
    assert s.size_bytes() <= 64 * 1024
    rows = s.rows_sync()
    assert 0 < len(rows) < 2000
    # the newest survive
    assert rows[-1]["id"] == "t-39-49"
    ids = {r["id"] for r in rows}
    assert "t-0-0" not in ids


def test_age_bound(tmp_path: Path) -> None:
    now = time.time()
    s = store(tmp_path, max_age_days=1, clock=lambda: now)
    s.record_sync([event("old", shown_at=(now - 2 * 86400) * 1000), event("new", shown_at=now * 1000)])
    s.prune_sync()
    assert [r["id"] for r in s.rows_sync()] == ["t-new"]


def test_schema_upgrade_from_version_1(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute(
        "INSERT INTO events (id, shown_at, model, trigger, latency_ms, length, outcome, accepted_chars, "
        "updated_at) VALUES ('v1', ?, 'old-model', 'typing', 90, 5, 'accepted', 5, 0)",
        (time.time() * 1000,),
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    s = UsageStore(str(path))
    [row] = s.rows_sync()
    assert row["id"] == "v1" and row["line_kind"] == "code" and row["model"] == "old-model"
    assert row["typing_ms"] is None  # version 3's rhythm: unknown for older rows
    assert s.schema_version() == SCHEMA_VERSION == 5
    assert s.record_sync([event(2, line_kind="comment", typing_ms=95.0)]) == 1
    assert [r["typing_ms"] for r in s.rows_sync()] == [None, 95.0]
    assert summarize(s.rows_sync())["total"]["shown"] == 2


def test_schema_upgrade_from_version_3(tmp_path: Path) -> None:
    # a file as version 3 made it: its DDL, its columns, one row with a rhythm
    path = tmp_path / "usage.sqlite3"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS[:3]:
        conn.executescript(step)
    conn.execute(
        "INSERT INTO events (id, shown_at, model, trigger, line_kind, typing_ms, latency_ms, length, "
        "outcome, accept_kind, accepted_chars, kept_5m, updated_at) "
        "VALUES ('v3', ?, 'old-model', 'typing', 'comment', 140, 90, 5, 'accepted', 'whole', 5, 5, 0)",
        (time.time() * 1000,),
    )
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    s = UsageStore(str(path))
    [row] = s.rows_sync()
    assert (row["id"], row["line_kind"], row["typing_ms"], row["kept_5m"]) == ("v3", "comment", 140.0, 5)
    # version 4's fields: unknown pause, not held, for older rows
    assert row["accept_pause_ms"] is None and row["held"] is False
    assert s.schema_version() == SCHEMA_VERSION == 5
    assert s.record_sync([event(2, line_kind="comment", accept_pause_ms=1800.0, held=True)]) == 1
    assert [(r["accept_pause_ms"], r["held"]) for r in s.rows_sync()] == [(None, False), (1800.0, True)]
    s.close()
    # another server opening it later finds it upgraded and migrates nothing twice
    again = UsageStore(str(path))
    assert again.schema_version() == SCHEMA_VERSION and len(again.rows_sync()) == 2
    again.close()


def test_version_4_fields_round_trip(tmp_path: Path) -> None:
    s = store(tmp_path)
    s.record_sync(
        [
            event(1, accept_pause_ms=2350.5, held=False),
            event(2, accept_pause_ms=0.0, held=True, accept_kind="word"),
            event(3, outcome="ignored", accept_kind=None, accepted_chars=0),  # defaults: none, not held
        ]
    )
    # a later report of the same suggestion (its kept figure) carries them again
    s.record_sync([event(1, accept_pause_ms=2350.5, kept_30s=10)])
    got = {r["id"]: (r["accept_pause_ms"], r["held"]) for r in s.rows_sync()}
    assert got == {"t-1": (2350.5, False), "t-2": (0.0, True), "t-3": (None, False)}
    assert all(type(r["held"]) is bool for r in s.rows_sync())
    s.close()


def test_kept_at_close_counts_when_no_window_was_measured(tmp_path: Path) -> None:
    # version 4's file: rows without the column read as not measured at close
    path = tmp_path / "usage.sqlite3"
    conn = sqlite3.connect(path)
    for step in MIGRATIONS[:4]:
        conn.executescript(step)
    conn.execute(
        "INSERT INTO events (id, shown_at, trigger, latency_ms, length, outcome, accepted_chars, "
        "kept_30s, updated_at) VALUES ('v4', ?, 'typing', 90, 5, 'accepted', 5, 5, 0)",
        (time.time() * 1000,),
    )
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    s = UsageStore(str(path))
    assert s.schema_version() == SCHEMA_VERSION
    # accepted, then its tab closed 10 s later with 9 of its 12 characters still there
    s.record_sync([event(1, accepted_chars=12)])
    s.record_sync([event(1, accepted_chars=12, kept_at_close=9)])
    # a later report without it does not erase it
    s.record_sync([event(1, accepted_chars=12)])
    rows = {r["id"]: r for r in s.rows_sync()}
    assert rows["v4"]["kept_at_close"] is None and rows["t-1"]["kept_at_close"] == 9
    total = summarize(list(rows.values()))["total"]
    # kept: 5 (its 30 s figure) + 9 (at close), not 5 + 0
    assert total["kept_chars"] == 14
    assert (total["kept_at_close"], total["kept_at_close_chars"]) == (1, 9)
    # a window measured wins over the figure at close
    assert summarize([{**rows["t-1"], "kept_30s": 3}])["total"]["kept_chars"] == 3
    s.close()


def test_newer_schema_is_read_not_written(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    s = store(tmp_path)
    s.record_sync([event(1)])
    s.close()
    conn = sqlite3.connect(s.path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    s2 = store(tmp_path)
    with caplog.at_level(logging.WARNING, logger="jupyter_codecomplete.usage"):
        assert s2.record_sync([event(2)]) == 0
    assert [r["id"] for r in s2.rows_sync()] == ["t-1"]
    assert "newer than this version" in caplog.text


def test_edit_predictions_are_summarized_per_format() -> None:
    t0 = 1_700_000_000_000.0
    rows = [
        dict(event(1, shown_at=t0, trigger="edit", style="zeta1")),
        dict(event(2, shown_at=t0 + 1, trigger="edit", style="zeta1", outcome="dismissed", accept_kind=None)),
        dict(event(3, shown_at=t0 + 2, trigger="edit", style="instinct")),
        dict(event(4, shown_at=t0 + 3, style="qwen2.5-coder")),  # a completion: not an edit format
    ]
    for r in rows:
        r["col"] = r.pop("column")
        r.pop("sample")
    summary = summarize(rows)
    groups = {g["style"]: (g["shown"], g["accepted"]) for g in summary["by_edit_format"]}
    assert groups == {"instinct": (1, 1), "zeta1": (2, 1)}
    # and `jupyter codecomplete stats` shows them in a table of their own
    lines = format_stats(summary).splitlines()
    assert any(line.startswith("EDIT FORMAT") for line in lines)
    assert any(line.split()[:3] == ["zeta1", "2", "1"] for line in lines)
    assert any(line.split()[:3] == ["instinct", "1", "1"] for line in lines)


def test_summary_figures(tmp_path: Path) -> None:
    t0 = 1_700_000_000_000.0
    rows = [
        dict(event(1, shown_at=t0, kept_30s=10, kept_5m=7, latency_ms=150)),
        dict(event(2, shown_at=t0 + 60_000, outcome="dismissed", accept_kind=None, accepted_chars=0)),
        dict(event(3, shown_at=t0 + 120_000, kept_30s=4, latency_ms=2500, model="other")),
    ]
    for r in rows:
        r["col"] = r.pop("column")
        r.pop("sample")
    out = summarize(rows)
    total = out["total"]
    assert (total["shown"], total["accepted"], total["dismissed"]) == (3, 2, 1)
    assert total["kept_chars"] == 7 + 4  # 5 min when known, else 30 s
    assert total["accept_rate"] == pytest.approx(2 / 3)
    # two one-minute gaps plus one typical gap (at least 30 s)
    assert total["editing_hours"] == pytest.approx((120 + 40) / 3600)
    assert {m["model"]: m["shown"] for m in out["by_model"]} == {"m": 2, "other": 1}
    assert out["by_edit_format"] == []  # no edit predictions among them
    bins = {(h["model"], h["bin"]): h["count"] for h in out["latency_histogram"]}
    assert bins[("m", "100-200 ms")] == 2 and bins[("other", "2000-3000 ms")] == 1


def test_the_latency_histogram_comes_in_the_bins_order() -> None:
    """Whatever the models' names: a chart that keeps the data's order shows the bins rising."""
    rows = [dict(event(i, latency_ms=ms, model=model)) for i, (ms, model) in enumerate(
        [(5000.0, "aaa"), (150.0, "m"), (2500.0, "other"), (400.0, "aaa")]
    )]  # fmt: skip
    out = latency_histogram(rows)
    assert [h["order"] for h in out] == sorted(h["order"] for h in out)
    assert [h["bin"] for h in out] == ["100-200 ms", "300-500 ms", "2000-3000 ms", ">= 5000 ms"]
