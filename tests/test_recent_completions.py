"""Recent completions: a repeated request is answered without a model call (real server and
upstream); cancelled, failed and differently configured requests never answer from it."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_codecomplete.completion.recent import RecentCompletions, fingerprint
from jupyter_codecomplete.testing import OpenAIUpstream, open_socket, request


async def test_repeated_request_is_answered_without_the_model(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "def add(a, b):"))
    [first] = await socket.until_done(1)
    await socket.send(request(2, "def add(a, b):"))
    [second] = await socket.until_done(2)
    assert second["reply_to"] == 2 and second["error"] is None
    assert second["list"]["items"] == first["list"]["items"]
    assert len(upstream.records) == 1


async def test_repeated_stream_is_answered_whole(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "import num", stream=True))
    await socket.until_done(1)
    await socket.send(request(2, "import num", stream=True))
    msgs = await socket.until_done(2)
    assert msgs[-1]["type"] == "stream" and msgs[-1]["done"] is True
    assert msgs[-1]["response"]["insertText"] == "py as np"
    assert len(upstream.records) == 1


async def test_an_empty_answer_is_not_remembered(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    """A sampled model (the demo's) sometimes ends at once on a fresh line: that empty answer was
    remembered, so the same line asked again showed nothing until the user typed on."""
    rules = list(upstream.config.rules)
    upstream.set_rules([{"contains": "def fresh(x):", "completion": ""}, *rules])
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "def fresh(x):\n    "))
    [first] = await socket.until_done(1)
    assert first["list"]["items"] == [] or not first["list"]["items"][0]["insertText"], first
    # the model would now say something: the same request asks it again
    upstream.set_rules([{"contains": "def fresh(x):", "completion": "return x"}, *rules])
    await socket.send(request(2, "def fresh(x):\n    "))
    [second] = await socket.until_done(2)
    assert "answered from recent completions" not in second.get("notes", [])
    assert second["list"]["items"][0]["insertText"] == "return x", second
    assert len(upstream.records) == 2
    # a suggestion with text is remembered as before
    await socket.send(request(3, "def fresh(x):\n    "))
    [third] = await socket.until_done(3)
    assert third["list"]["items"][0]["insertText"] == "return x" and len(upstream.records) == 2


async def test_a_different_request_asks_the_model(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "def add(a, b):"))
    await socket.until_done(1)
    await socket.send(request(2, "def add(a, b):", suffix="\n# end"))
    await socket.until_done(2)
    await socket.send(request(3, "def add(a, b):", language="javascript"))
    await socket.until_done(3)
    assert len(upstream.records) == 3


async def test_cancelled_and_failed_requests_are_not_remembered(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "SLOW", stream=True))
    while (await socket.recv())["type"] != "stream":
        pass
    await socket.cancel(1)
    await socket.until_done(1)
    await socket.send(request(2, "FAIL500"))
    [failed] = await socket.until_done(2)
    assert failed["error"] is not None
    await socket.send(request(3, "FAIL500"))
    await socket.until_done(3)
    await socket.send(request(4, "SLOW", stream=True))
    while (await socket.recv())["type"] != "stream":
        pass
    assert len(upstream.records) == 4


class TestTurnedOff:
    @pytest.fixture
    def codecomplete_config(self, model_config: dict[str, Any]) -> dict[str, Any]:
        return {"completion_model": model_config, "recent_completions": 0}

    async def test_size_zero_turns_it_off(self, jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
        socket = await open_socket(jp_ws_fetch)
        for number in (1, 2):
            await socket.send(request(number, "def add(a, b):"))
            await socket.until_done(number)
        assert len(upstream.records) == 2


def test_lru_is_bounded_and_keeps_the_recent() -> None:
    recent = RecentCompletions(2)
    keys = [RecentCompletions.key("m", "s", str(i)) for i in range(3)]
    recent.put(keys[0], "a")
    recent.put(keys[1], "b")
    assert recent.get(keys[0]) == "a"  # now the most recent
    recent.put(keys[2], "c")
    assert len(recent) == 2
    assert recent.get(keys[1]) is None
    assert recent.get(keys[0]) == "a" and recent.get(keys[2]) == "c"
    recent.forget("m")
    assert len(recent) == 0


def test_changed_model_settings_change_the_key() -> None:
    one = fingerprint({"model": "coder", "temperature": 0.0})
    two = fingerprint({"model": "coder", "temperature": 0.2})
    assert one != two
    assert RecentCompletions.key("m", one, "prompt") != RecentCompletions.key("m", two, "prompt")
    assert RecentCompletions.key("m", one, "prompt") == RecentCompletions.key("m", one, "prompt")
