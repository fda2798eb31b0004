"""``jupyter codecomplete stats [--json]`` in a subprocess, on a store the server would write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupyter_codecomplete.protocol import UsageEvent
from jupyter_codecomplete.usage import UsageStore

ROOT = Path(__file__).resolve().parents[2]


def run_stats(tmp_path: Path, *args: str, config: str = "") -> subprocess.CompletedProcess[str]:
    conf = tmp_path / "config"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "jupyter_server_config.py").write_text(config)
    env = os.environ | {
        "JUPYTER_CONFIG_DIR": str(conf),
        "JUPYTER_CONFIG_PATH": "",
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    cmd = [sys.executable, "-m", "jupyter_codecomplete.cli", "stats", "--config-dir", str(conf), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def fill(path: Path) -> None:
    now = time.time() * 1000
    store = UsageStore(str(path))
    store.record_sync(
        [
            UsageEvent(
                id="a",
                shown_at=now - 60_000,
                model="qwen",
                language="python",
                latency_ms=200,
                length=20,
                outcome="accepted",
                accept_kind="whole",
                accepted_chars=20,
                kept_5m=15,
            ),
            UsageEvent(
                id="b",
                shown_at=now,
                model="qwen",
                language="python",
                latency_ms=300,
                length=8,
                outcome="dismissed",
                trigger="fresh_line",
            ),
        ]
    )
    store.close()


def test_table_and_json(tmp_path: Path) -> None:
    fill(tmp_path / "data" / "codecomplete" / "usage.sqlite3")
    out = run_stats(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "2 suggestions shown, 1 accepted (50%)" in out.stdout
    assert "20 characters accepted, 15 kept (75%)" in out.stdout
    lines = out.stdout.splitlines()
    assert any(line.split()[:3] == ["qwen", "2", "1"] for line in lines)
    assert any(line.split()[:2] == ["fresh_line", "1"] for line in lines)
    # per model and day (the day of the events, local time; both a minute apart)
    day = time.strftime("%Y-%m-%d", time.localtime(time.time() - 30))
    assert any(line.startswith("DAY, MODEL") for line in lines)
    assert any(line.split()[:4] == [day, "qwen", "2", "1"] for line in lines)
    assert "Your pause" not in out.stdout  # no pauses learned from these two
    out = run_stats(tmp_path, "--json")
    summary = json.loads(out.stdout)
    assert summary["total"]["kept_chars"] == 15
    assert summary["accept_pauses"] == {}
    assert summary["path"] == str(tmp_path / "data" / "codecomplete" / "usage.sqlite3")


def test_configured_path_and_empty_store(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.sqlite3"
    fill(other)
    out = run_stats(tmp_path, config=f"c.CodeCompleteApp.usage_path = {str(other)!r}\n")
    assert "2 suggestions shown" in out.stdout
    out = run_stats(tmp_path / "fresh")
    assert out.returncode == 0 and "No suggestions recorded yet." in out.stdout


def test_learned_pauses_in_the_table_and_json(tmp_path: Path) -> None:
    now = time.time() * 1000
    store = UsageStore(str(tmp_path / "data" / "codecomplete" / "usage.sqlite3"))
    store.record_sync(
        [
            UsageEvent(id=f"p{i}", shown_at=now - 1000 * (10 - i), model="qwen", language="python",
                       line_kind="comment", latency_ms=200, length=20, outcome="accepted",
                       accept_kind="whole", accepted_chars=20, accept_pause_ms=ms)
            for i, ms in enumerate([3000.0, 1200.0, 2400.0, 1800.0, 2000.0])
        ]
    )  # fmt: skip
    store.close()
    out = run_stats(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Your pause before taking a suggestion (held places wait so long): comment 1.8 s" in out.stdout
    summary = json.loads(run_stats(tmp_path, "--json").stdout)
    assert summary["accept_pauses"] == {"comment": 1800.0}


def _automatic(n: int) -> list[UsageEvent]:
    start = time.time() * 1000 - n * 60_000
    return [
        UsageEvent(id=f"r{i}", shown_at=start + i * 60_000, model="qwen", language="python",
                   trigger="typing" if i % 4 else "fresh_line",
                   line_kind=("code", "comment", "mid_line", "empty")[i % 4], latency_ms=200 + i,
                   length=20, outcome="accepted" if i % 3 == 0 else "ignored",
                   accept_kind="whole" if i % 3 == 0 else None, accepted_chars=20 if i % 3 == 0 else 0,
                   kept_30s=15 if i % 3 == 0 else None, accept_pause_ms=900.0 if i % 3 == 0 else None)
        for i in range(n)
    ]  # fmt: skip


def run_in_a_terminal(tmp_path: Path) -> str:
    """``stats`` with stdout and stderr both on one pseudo-terminal, as a user's shell has them."""
    import pty
    import select

    conf = tmp_path / "config"
    conf.mkdir(parents=True, exist_ok=True)
    env = os.environ | {
        "JUPYTER_CONFIG_DIR": str(conf),
        "JUPYTER_CONFIG_PATH": "",
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "COLUMNS": "100",
    }
    main, tty = pty.openpty()
    cmd = [sys.executable, "-m", "jupyter_codecomplete.cli", "stats", "--config-dir", str(conf)]
    proc = subprocess.Popen(cmd, stdin=tty, stdout=tty, stderr=tty, env=env, cwd=ROOT)
    os.close(tty)
    out = b""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and len(out) < 1_000_000:
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the terminal closed: the command ended
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
    finally:
        os.close(main)
        proc.wait(timeout=30)
    assert proc.returncode == 0, out[-2000:]
    return out.decode("utf-8", "replace")


@pytest.mark.parametrize(
    ("events", "line"), [(30, "Restraint learns from"), (80, "Restraint on your last 80")]
)
def test_the_restraint_line_once_in_a_terminal(tmp_path: Path, events: int, line: str) -> None:
    """Reported: the restraint line printed twice in a terminal (stdout and stderr). Fewer than the
    50 events it learns from, and more: once each, on one terminal for both streams."""
    store = UsageStore(str(tmp_path / "data" / "codecomplete" / "usage.sqlite3"))
    for i in range(0, events, 50):
        store.record_sync(_automatic(events)[i : i + 50])
    store.close()
    text = run_in_a_terminal(tmp_path)
    assert text.count(line) == 1, text
    assert text.count("Restraint") == 1, text
