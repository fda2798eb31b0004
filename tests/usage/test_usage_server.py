"""Usage events through a running server: the websocket message, the store, the REST aggregates."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from typing import Any

import pytest

from jupyter_codecomplete.testing import error_type, open_socket, suggestion


def ev(i: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"tab1-{i}",
        "shown_at": time.time() * 1000,
        "model": "test-coder",
        "language": "python",
        "trigger": "typing",
        "latency_ms": 180.0,
        "length": 12,
        "outcome": "accepted",
        "accept_kind": "word",
        "accepted_chars": 4,
    } | fields


async def usage(jp_fetch: Any, *path: str, **params: str) -> Any:
    r = await jp_fetch("api", "codecomplete", "usage", *path, params=params, raise_error=False)
    return r.code, json.loads(r.body)


async def wait_shown(jp_fetch: Any, n: int) -> dict[str, Any]:
    for _ in range(200):
        code, body = await usage(jp_fetch)
        assert code == 200
        if body["total"]["shown"] >= n:
            return body  # type: ignore[no-any-return]
        await asyncio.sleep(0.02)
    raise AssertionError(f"never {n} events: {body['total']}")


def data_file(jp_data_dir: Any) -> str:
    return os.path.join(str(jp_data_dir), "codecomplete", "usage.sqlite3")


def written(jp_data_dir: Any) -> list[str]:
    """The database files in the data directory (WAL side files aside)."""
    folder = os.path.dirname(data_file(jp_data_dir))
    if not os.path.isdir(folder):
        return []
    return sorted(n for n in os.listdir(folder) if n.endswith(".sqlite3"))


async def test_events_are_recorded_and_summarised(jp_ws_fetch: Any, jp_fetch: Any, jp_data_dir: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello is not None and socket.hello["usage"] is True
    await socket.send(
        {
            "type": "usage",
            "events": [
                ev(1),
                ev(2, outcome="dismissed", accept_kind=None, accepted_chars=0, trigger="fresh_line"),
                ev(3, outcome="typed_through", accept_kind=None, accepted_chars=0, typed_chars=12),
            ],
        }
    )
    body = await wait_shown(jp_fetch, 3)
    # the kept figures arrive later for the same id: one row, updated
    await socket.send({"type": "usage", "events": [ev(1, kept_30s=4)]})
    await socket.send({"type": "usage", "events": [ev(1, kept_5m=3)]})
    for _ in range(200):
        _, body = await usage(jp_fetch)
        if body["total"]["kept_5m_chars"] == 3:
            break
        await asyncio.sleep(0.02)
    total = body["total"]
    assert (total["shown"], total["accepted"], total["dismissed"], total["typed_through"]) == (3, 1, 1, 1)
    assert total["kept_chars"] == 3 and total["kept_30s_chars"] == 4
    assert {t["trigger"]: t["shown"] for t in body["by_trigger"]} == {"typing": 2, "fresh_line": 1}
    assert body["recording"] is True and body["path"] == data_file(jp_data_dir)
    assert written(jp_data_dir) == ["usage.sqlite3"]
    # the socket still serves completions
    assert suggestion(await socket.complete(5, "def add(a, b):")) == "\n    return a + b"


async def test_a_bad_event_is_an_error_reply_and_the_socket_stays(jp_ws_fetch: Any, jp_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send({"type": "usage", "events": [ev(1, outcome="loved")]})
    msg = await socket.recv(5)
    assert error_type(msg) == "bad_request" and "outcome" in msg["error"]["message"]
    await socket.send({"type": "usage", "events": [ev(i) for i in range(65)]})
    msg = await socket.recv(5)
    assert error_type(msg) == "bad_request" and "64" in msg["error"]["message"]
    await socket.send({"type": "usage", "events": [ev(1, code="print(secret)")]})
    assert error_type(await socket.recv(5)) == "bad_request"
    assert suggestion(await socket.complete(2, "def add(a, b):")) == "\n    return a + b"
    _, body = await usage(jp_fetch)
    assert body["total"]["shown"] == 0


async def test_days_argument(jp_fetch: Any) -> None:
    code, body = await usage(jp_fetch, days="nope")
    assert code == 400 and "days" in body["error"]["message"]
    code, body = await usage(jp_fetch, days="7")
    assert code == 200 and body["total"]["shown"] == 0


async def test_gate_route(jp_ws_fetch: Any, jp_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    t0 = time.time() * 1000
    events = [ev(i, shown_at=t0 + i, line_kind="code", accepted_chars=5, kept_30s=5) for i in range(40)]
    events += [
        ev(
            100 + i,
            shown_at=t0 + 100 + i,
            line_kind="comment",
            outcome="ignored",
            accept_kind=None,
            accepted_chars=0,
        )
        for i in range(30)
    ]
    for start in range(0, len(events), 64):
        await socket.send({"type": "usage", "events": events[start : start + 64]})
    await wait_shown(jp_fetch, 70)
    code, gate = await usage(jp_fetch, "gate")
    assert code == 200 and gate["active"] is True
    # every rhythm of the wasted place (the rhythm is unknown in these events: the others predicted)
    assert {(s["trigger"], s["line_kind"]) for s in gate["skip"]} == {("typing", "comment")}
    assert {s["rhythm"] for s in gate["skip"]} == {"burst", "steady", "slow", "unknown"}
    code, gate = await usage(jp_fetch, "gate", level="off")
    assert gate["active"] is False and gate["skip"] == []
    code, body = await usage(jp_fetch, "gate", level="loud")
    assert code == 400 and "level" in body["error"]["message"]


async def test_accept_pauses_are_stored_and_learned(jp_ws_fetch: Any, jp_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    t0 = time.time() * 1000
    # comments: five pauses of the user's own before taking one (lower quartile 1.8 s), and ten
    # taken after a hold (4.5 s each: not the user's pause); strings: only four; code: manual
    events = [
        ev(i, shown_at=t0 + i, line_kind="comment", accept_pause_ms=ms)
        for i, ms in enumerate([3000.0, 1200.0, 2400.0, 1800.0, 2000.0])
    ]
    events += [ev(10 + i, shown_at=t0 + 10 + i, line_kind="comment", accept_pause_ms=4500.0, held=True)
               for i in range(10)]  # fmt: skip
    events += [ev(30 + i, shown_at=t0 + 30 + i, line_kind="string", accept_pause_ms=900.0) for i in range(4)]
    events += [ev(40 + i, shown_at=t0 + 40 + i, trigger="manual", accept_pause_ms=700.0) for i in range(6)]
    await socket.send({"type": "usage", "events": events})
    body = await wait_shown(jp_fetch, len(events))
    assert body["accept_pauses"] == {"comment": 1800.0}
    code, gate = await usage(jp_fetch, "gate")
    assert code == 200 and gate["pauses"] == {"comment": 1800.0}
    assert gate["active"] is False  # 25 events: the gate is not on yet, the pauses are known anyway
    # bad values are a clear error naming the field; nothing of that message is stored
    for bad in ({"accept_pause_ms": -1}, {"accept_pause_ms": 700_000}, {"held": "yes"}, {"held": 1}):
        await socket.send({"type": "usage", "events": [ev(99, **bad)]})
        msg = await socket.recv(5)
        field = next(iter(bad))
        assert error_type(msg) == "bad_request" and field in msg["error"]["message"], (bad, msg)
    assert suggestion(await socket.complete(7, "def add(a, b):")) == "\n    return a + b"
    _, body = await usage(jp_fetch)
    assert body["total"]["shown"] == len(events)


class TestOff:
    @pytest.fixture
    def codecomplete_config(self, model_config: dict[str, Any]) -> dict[str, Any]:
        return {"completion_model": model_config, "record_usage": False}

    async def test_nothing_is_written(self, jp_ws_fetch: Any, jp_fetch: Any, jp_data_dir: Any) -> None:
        socket = await open_socket(jp_ws_fetch)
        assert socket.hello is not None and socket.hello["usage"] is False
        await socket.send({"type": "usage", "events": [ev(1)]})
        msg = await socket.recv(5)
        assert error_type(msg) == "usage_off" and "record_usage" in msg["error"]["message"]
        code, body = await usage(jp_fetch)
        assert code == 200 and body["recording"] is False and body["total"]["shown"] == 0
        assert written(jp_data_dir) == []


class TestCorrupt:
    @pytest.fixture
    def codecomplete_config(self, model_config: dict[str, Any], tmp_path: Any) -> dict[str, Any]:
        path = tmp_path / "broken.sqlite3"
        path.write_bytes(b"garbage" * 1000)
        return {"completion_model": model_config, "usage_path": str(path)}

    async def test_the_editor_keeps_working_with_one_warning(
        self, jp_ws_fetch: Any, jp_fetch: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        socket = await open_socket(jp_ws_fetch)
        with caplog.at_level(logging.WARNING):
            for i in range(3):
                await socket.send({"type": "usage", "events": [ev(i)]})
                assert suggestion(await socket.complete(10 + i, "def add(a, b):")) == "\n    return a + b"
            code, body = await usage(jp_fetch)
        assert code == 200 and body["total"]["shown"] == 0
        assert body["problem"] and "not a usable SQLite database" in body["problem"]
        warnings = [r for r in caplog.records if "not a usable SQLite database" in r.getMessage()]
        assert len(warnings) == 1
