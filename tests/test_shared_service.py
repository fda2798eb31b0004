"""A model service shared by many users, through a running server against the scripted upstream:
session affinity (a stable key per user and document on every model request) and back-off when
the service is saturated (429/503, a gateway's rate-limit headers), shared by every socket."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.backends import Affinity
from jupyter_codecomplete.backends.affinity import load_secret
from jupyter_codecomplete.backends.pressure import ServerPressure, parse_reset, pause_from
from jupyter_codecomplete.config import CodeCompleteConfig
from jupyter_codecomplete.testing import OpenAIUpstream, open_socket, request

USER = "alice.smith@example.org"

RULES: list[dict[str, Any]] = [
    {"contains": "RATE", "status": 429, "retry_after": 2, "body": {"error": {"message": "rpm limit"}}},
    {
        "contains": "GATEWAY",
        "status": 429,
        "headers": {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s"},
        "body": {"error": {"message": "limit"}},
    },
    {
        "contains": "SPENT",
        "completion": "spent = 1\n",
        "headers": {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1"},
    },
    {"contains": "FULL", "status": 503, "retry_after": 1, "body": {"error": {"message": "all busy"}}},
    {"contains": "import num", "completion": "py as np\n"},
]


@pytest.fixture
def session_settings() -> dict[str, Any]:
    return {}


@pytest.fixture
def codecomplete_config(
    upstream: OpenAIUpstream, session_settings: dict[str, Any], tmp_path: Path
) -> dict[str, Any]:
    upstream.set_rules([dict(r) for r in RULES], default="x = 1\n")
    return {
        "completion_model": upstream.model_config(timeout=5.0, first_request_timeout=5.0),
        "session_user": USER,
        "session_secret_path": str(tmp_path / "session-secret"),
        **session_settings,
    }


async def ask(socket: Any, number: int, prefix: str, path: str) -> dict[str, Any]:
    await socket.send(request(number, prefix, path=path))
    [reply] = await socket.until_done(number)
    assert isinstance(reply, dict)
    return reply


def completions(upstream: OpenAIUpstream) -> list[Any]:
    return [r for r in upstream.records if r.path.endswith("/completions")]


# -- session affinity -------------------------------------------------------------------------------


async def test_one_key_per_user_and_document_hashed(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    other = await open_socket(jp_ws_fetch)  # another tab: the same keys
    await ask(socket, 1, "x = ", "work/a.py")
    await ask(other, 1, "y = ", "work/a.py")
    await ask(socket, 2, "z = ", "work/b.ipynb")
    a1, a2, b = completions(upstream)
    key_a, key_b = a1.headers["x-session-id"], b.headers["x-session-id"]
    assert a2.headers["x-session-id"] == key_a  # same user and document: same replica
    assert key_b != key_a  # another document: another key
    assert a1.body["user"] == key_a and b.body["user"] == key_b  # OpenAI's end-user field
    assert len(key_a) == 32 and all(c in "0123456789abcdef" for c in key_a)
    # the names never leave in the key
    for record in (a1, a2, b):
        sent = json.dumps(record.headers) + record.body["user"]
        for name in ("alice", "example.org", "work/", "a.py", "b.ipynb"):
            assert name not in sent


@pytest.mark.parametrize(
    "session_settings", [{"session_key": "names", "session_header": "x-user-id"}], indirect=False
)
async def test_names_when_the_administrator_wants_them(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await ask(socket, 1, "x = ", "work/a b.py")
    [record] = completions(upstream)
    assert "x-session-id" not in record.headers
    assert record.headers["x-user-id"] == "alice.smith@example.org/work/a%20b.py"


@pytest.mark.parametrize("session_settings", [{"session_key": "off"}])
async def test_off_sends_nothing(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await ask(socket, 1, "x = ", "a.py")
    [record] = completions(upstream)
    assert "x-session-id" not in record.headers and "user" not in record.body


@pytest.mark.parametrize("session_settings", [{"session_user_field": False}])
async def test_header_only(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await ask(socket, 1, "x = ", "a.py")
    [record] = completions(upstream)
    assert record.headers["x-session-id"] and "user" not in record.body


def test_keys_stable_across_restarts_and_distinct_per_user(tmp_path: Path) -> None:
    path = tmp_path / "data" / "codecomplete" / "session-secret"
    first = load_secret(path)
    assert path.stat().st_mode & 0o777 == 0o600
    again = load_secret(path)  # the next start of the same user's server
    assert again == first
    alice = Affinity(user="alice", secret=first)
    assert Affinity(user="alice", secret=again).key("a.py") == alice.key("a.py")
    assert Affinity(user="bob", secret=first).key("a.py") != alice.key("a.py")
    assert alice.key(None) == alice.key("")  # no document: the user's key


def test_the_configuration_makes_the_affinity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTERHUB_USER", "hubuser")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))
    made = CodeCompleteConfig().affinity()
    assert made.user == "hubuser" and made.mode == "hashed" and made.header == "x-session-id"
    assert (tmp_path / "codecomplete" / "session-secret").exists()
    assert CodeCompleteConfig().affinity().key("a.py") == made.key("a.py")


# -- back-off -----------------------------------------------------------------------------------------


async def test_a_429_pauses_every_socket_then_suggestions_come_again(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    first, second = await open_socket(jp_ws_fetch), await open_socket(jp_ws_fetch)
    reply = await ask(first, 1, "RATE", "a.py")
    assert reply["error"]["type"] == "rate_limited" and reply["error"]["retry_after"] == 2.0
    sent = len(upstream.records)
    # during the pause, in this tab and another: answered at once, quietly typed, nothing sent
    start = time.monotonic()
    for n, socket in enumerate((first, second, first), start=2):
        held = await ask(socket, n, "import num", "b.py")
        assert held["error"]["type"] == "model_busy"
        assert 0 < held["error"]["retry_after"] <= 2.0
        assert held["error"]["message"].startswith("model busy, retrying in")
    assert time.monotonic() - start < 0.5
    assert len(upstream.records) == sent
    await asyncio.sleep(2.1)
    reply = await ask(second, 9, "import num", "b.py")
    assert reply["error"] is None
    assert reply["list"]["items"][0]["insertText"] == "py as np"


async def test_the_gateway_headers_say_how_long(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    reply = await ask(socket, 1, "GATEWAY", "a.py")
    assert reply["error"]["type"] == "rate_limited" and reply["error"]["retry_after"] == 1.0
    assert (await ask(socket, 2, "import num", "a.py"))["error"]["type"] == "model_busy"
    await asyncio.sleep(1.1)
    assert (await ask(socket, 3, "import num", "a.py"))["error"] is None


async def test_a_spent_budget_pauses_after_the_answer(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    reply = await ask(socket, 1, "SPENT", "a.py")
    assert reply["error"] is None  # this one was served
    assert (await ask(socket, 2, "import num", "a.py"))["error"]["type"] == "model_busy"


async def test_a_503_with_retry_after_is_a_pause_not_a_problem(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    reply = await ask(socket, 1, "FULL", "a.py")
    assert reply["error"]["type"] == "backend_unavailable" and reply["error"]["retry_after"] == 1.0
    held = await ask(socket, 2, "import num", "a.py")
    assert held["error"]["type"] == "model_busy"
    assert not (held.get("model") or {}).get("problem")
    await asyncio.sleep(1.1)
    assert (await ask(socket, 3, "import num", "a.py"))["error"] is None


# -- the pieces -----------------------------------------------------------------------------------------


def test_reset_formats() -> None:
    assert parse_reset("1s") == 1.0
    assert parse_reset("6m0s") == 360.0
    assert parse_reset("20ms") == pytest.approx(0.02)
    assert parse_reset("2.5") == 2.5
    assert parse_reset(str(1_000_000_100), now=1_000_000_000) == pytest.approx(100.0)
    assert parse_reset("soon") is None and parse_reset(None) is None
    assert pause_from({"retry-after-ms": "1500"}, 429) == 1.5
    assert pause_from({"x-ratelimit-reset-requests": "3s"}, 200) is None  # budget not spent
    assert pause_from({}, 429) is None


def test_pauses_grow_without_a_header_and_are_bounded() -> None:
    now = [0.0]
    pressure = ServerPressure(clock=lambda: now[0])
    assert pressure.refused("s", 503, {}) is None  # down, not saturated: no pause
    assert pressure.refused("s", 429, {}) == 1.0
    assert pressure.refused("s", 429, {}) == 2.0
    assert pressure.refused("s", 429, {}) == 4.0
    assert pressure.refused("t", 429, {"retry-after": "86400"}) == 120.0
    assert pressure.held("s") == 4.0 and pressure.held("other") is None
    now[0] = 4.5
    assert pressure.held("s") is None
    pressure.answered("s", {})
    assert pressure.refused("s", 429, {}) == 1.0  # an answer forgets the growth
