"""Warm-ups (protocol 3, issue 29): the context the next suggestion will be asked for, sent ahead so
the model server has the prompt in its cache. Through a running Jupyter server and the scripted
upstream: what reaches the model, the bounds (one at a time, never beside a suggestion, a
completion request cancels it), and who gets none (paid APIs, ``warm_up = "off"``, older clients).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_codecomplete.testing import CompletionSocket, OpenAIUpstream, open_socket, request


def warm(number: int, prefix: str, **fields: Any) -> dict[str, Any]:
    return {**request(number, prefix, **fields), "type": "warm"}


async def reply_to(socket: CompletionSocket, number: int, kind: str = "warm") -> dict[str, Any]:
    while True:
        msg = await socket.recv(timeout=10)
        if msg.get("reply_to") == number and msg["type"] == kind:
            return msg


async def settle(upstream: OpenAIUpstream, count: int, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while len(upstream.records) < count:
        assert loop.time() < end, "the upstream never got the request"
        await asyncio.sleep(0.01)


async def test_hello_offers_warm_ups_for_a_local_model(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello is not None
    assert 3 in socket.hello["protocols"]
    assert socket.hello["warm"] is True  # the scripted upstream is on loopback


async def test_warm_up_sends_the_prompt_of_the_next_request_with_one_token(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    prefix = "import math\n\ndef add(a, b):"
    await socket.send(warm(1, prefix, cells_above=[{"source": "x = 1"}]))
    answer = await reply_to(socket, 1)
    assert answer["warmed"] is True and answer["reason"] is None and answer["ms"] >= 0
    [warmed] = upstream.records
    assert warmed.body["max_tokens"] == 1
    # the completion asked next has the very same prompt: the server's cache holds it
    msgs = await socket.complete(2, prefix, cells_above=[{"source": "x = 1"}])
    assert msgs[-1]["error"] is None
    asked = upstream.last()
    assert asked is not warmed and asked.body["max_tokens"] > 1
    assert asked.body["prompt"] == warmed.body["prompt"]


async def test_a_completion_request_cancels_the_warm_up(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    await socket.send(warm(1, "HANG"))  # the model never answers it
    await settle(upstream, 1)
    await socket.send(request(2, "import num"))
    answer = await reply_to(socket, 1)
    assert answer == {**answer, "warmed": False, "reason": "superseded"}
    [reply] = [m for m in await socket.until_done(2) if m["type"] == "inline_completion"]
    assert reply["list"]["items"][0]["insertText"] == "py as np"
    hung = upstream.records[0]
    for _ in range(200):
        if hung.client_closed:
            break
        await asyncio.sleep(0.01)
    assert hung.client_closed  # the model stopped evaluating it


async def test_a_newer_warm_up_supersedes_the_older(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    await socket.send(warm(1, "HANG"))
    await settle(upstream, 1)
    await socket.send(warm(2, "import num"))
    assert (await reply_to(socket, 1))["reason"] == "superseded"
    assert (await reply_to(socket, 2))["warmed"] is True
    assert len(upstream.records) == 2


async def test_no_warm_up_while_a_suggestion_streams(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    await socket.send(request(1, "SLOW", stream=True))  # streams for seconds
    await settle(upstream, 1)
    await socket.send(warm(2, "import num"))
    answer = await reply_to(socket, 2)
    assert answer["warmed"] is False and answer["reason"] == "busy"
    await socket.cancel(1)
    await socket.until_done(1)
    assert len(upstream.records) == 1


async def test_an_older_client_gets_no_warm_up(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=2)
    await socket.send(warm(1, "import num"))
    answer = await reply_to(socket, 1)
    assert answer["warmed"] is False and answer["reason"] == "protocol"
    assert upstream.records == []


async def test_a_bad_warm_up_gets_a_clear_error(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    await socket.send({"type": "warm", "number": 1, "suffix": ""})
    msg = await socket.recv(timeout=10)
    assert msg["type"] == "error" and msg["error"]["type"] == "bad_request"
    assert "prefix" in msg["error"]["message"]


class TestOff:
    @pytest.fixture
    def codecomplete_config(self, model_config: dict[str, Any]) -> dict[str, Any]:
        return {"completion_model": model_config, "warm_up": "off"}

    async def test_off_sends_nothing(self, jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
        socket = await open_socket(jp_ws_fetch, protocol=3)
        assert socket.hello is not None and socket.hello["warm"] is False
        await socket.send(warm(1, "import num"))
        assert (await reply_to(socket, 1))["reason"] == "off"
        assert upstream.records == []


class TestPaidApi:
    @pytest.fixture
    def codecomplete_config(self) -> dict[str, Any]:
        # OpenAI's own API (no base_url): never warmed unless warm_up = "on"
        return {"completion_model": {"backend": "openai", "model": "gpt-4o-mini", "api_key": "sk-test"}}

    async def test_a_paid_api_is_not_warmed_by_default(self, jp_ws_fetch: Any) -> None:
        socket = await open_socket(jp_ws_fetch, protocol=3)
        assert socket.hello is not None and socket.hello["warm"] is False
        await socket.send(warm(1, "import num"))
        assert (await reply_to(socket, 1))["reason"] == "off"


async def test_every_warm_up_is_answered_even_one_cancelled_before_it_ran(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    socket.send_nowait(warm(1, "import num"))  # the same loop turn: 1 never starts
    socket.send_nowait(warm(2, "def add(a, b):"))
    answers: dict[int, dict[str, Any]] = {}
    while len(answers) < 2:
        msg = await socket.recv(timeout=10)
        if msg["type"] == "warm":
            answers[msg["reply_to"]] = msg
    assert answers[1]["reason"] == "superseded"
    assert answers[2]["warmed"] is True
    assert [r.body["prompt"] for r in upstream.records] == ["def add(a, b):"]
