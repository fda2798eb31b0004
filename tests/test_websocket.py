"""Round trips through a running Jupyter server and a real scripted OpenAI-format upstream."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.testing import OpenAIUpstream, open_socket, request


async def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


async def test_hello_names_the_model(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello is not None
    assert socket.hello["type"] == "hello"
    assert socket.hello["model"]["name"] == "test-coder"
    assert socket.hello["model"]["backend"] == "openai"
    assert socket.hello["max_message_bytes"] > 0


async def test_normal_reply(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "def add(a, b):"))
    [reply] = await socket.until_done(1)
    assert reply["type"] == "inline_completion"
    assert reply["reply_to"] == 1
    assert reply["error"] is None
    assert [i["insertText"] for i in reply["list"]["items"]] == ["\n    return a + b"]
    assert reply["model"]["name"] == "test-coder"
    # the prompt reached the model, with our max_tokens
    body = upstream.last().body
    assert body["prompt"] == "def add(a, b):"
    assert body["max_tokens"] > 0


async def test_stream(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(2, "import num", stream=True))
    msgs = await socket.until_done(2)
    first, *chunks = msgs
    assert first["type"] == "inline_completion"
    assert first["list"]["items"][0]["isIncomplete"] is True
    assert first["list"]["items"][0]["token"]
    assert chunks and all(c["type"] == "stream" for c in chunks)
    assert chunks[-1]["done"] is True and chunks[-1]["error"] is None
    assert chunks[-1]["response"]["insertText"] == "py as np"
    texts = [c["response"]["insertText"] for c in chunks]
    # every update extends the previous one: the text is cumulative
    assert all(b.startswith(a) for a, b in itertools.pairwise(texts))


async def test_stream_streams_progressively(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(3, "SLOW", stream=True))
    msgs = await socket.until_done(3)
    updates = [m for m in msgs if m["type"] == "stream" and not m["done"]]
    assert len(updates) > 5


async def test_cancel_closes_upstream(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(4, "SLOW", stream=True))
    msgs = []
    while len([m for m in msgs if m["type"] == "stream"]) < 3:
        msgs.append(await socket.recv())
    await socket.cancel(4)
    while True:
        msg = await socket.recv()
        if msg["type"] == "error":
            break
    assert msg["reply_to"] == 4
    assert msg["error"]["type"] == "cancelled"
    record = upstream.last()
    await wait_for(lambda: record.client_closed)
    assert not record.finished or record.tokens_sent < 400
    # the socket keeps working
    await socket.send(request(5, "def add(a, b):"))
    [reply] = await socket.until_done(5)
    assert reply["list"]["items"][0]["insertText"] == "\n    return a + b"


async def test_superseded_request_is_cancelled_upstream(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(10, "SLOW", stream=True))
    while True:
        msg = await socket.recv()
        if msg["type"] == "stream":
            break
    slow = upstream.last()
    await socket.send(request(11, "def add(a, b):"))
    got: dict[int, dict[str, Any]] = {}
    while 10 not in got or 11 not in got:
        msg = await socket.recv()
        if msg["type"] == "error" and msg["reply_to"] == 10:
            got[10] = msg
        if msg["type"] == "inline_completion" and msg["reply_to"] == 11:
            got[11] = msg
    assert got[10]["error"]["type"] == "superseded"
    assert got[11]["list"]["items"][0]["insertText"] == "\n    return a + b"
    await wait_for(lambda: slow.client_closed)
    assert slow.tokens_sent < 400


async def test_malformed_json(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send("{not json")
    msg = await socket.recv()
    assert msg == {"type": "error", "reply_to": -1, "error": msg["error"]}
    assert msg["error"]["type"] == "bad_json"
    await socket.send(request(1, "import num"))
    [reply] = await socket.until_done(1)
    assert reply["list"]["items"][0]["insertText"] == "py as np"


async def test_missing_field_names_it_and_the_number(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send({"type": "inline_completion", "number": 7})
    msg = await socket.recv()
    assert msg["type"] == "error" and msg["reply_to"] == 7
    assert msg["error"]["type"] == "bad_request"
    assert "prefix" in msg["error"]["message"]


async def test_unknown_field_and_wrong_type(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send({**request(8, "x"), "prefx": "typo"})
    msg = await socket.recv()
    assert msg["reply_to"] == 8 and "prefx" in msg["error"]["message"]
    await socket.send({**request(9, "x"), "stream": "yes please"})
    msg = await socket.recv()
    assert msg["reply_to"] == 9 and "stream" in msg["error"]["message"]


async def test_binary_frame_is_refused(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(b"\x00\x01")
    msg = await socket.recv()
    assert msg["error"]["type"] == "bad_message"


async def test_upstream_http_error(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(12, "FAIL500"))
    [reply] = await socket.until_done(12)
    assert reply["list"]["items"] == []
    assert reply["error"]["type"] == "backend_error"
    assert "500" in reply["error"]["title"]


@pytest.fixture
def model_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    return upstream.model_config(timeout=1.0, first_request_timeout=1.0)


async def test_timeout_gives_error_and_socket_survives(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(13, "HANG", stream=True))
    msgs = await socket.until_done(13)
    assert msgs[-1]["error"]["type"] == "timeout"
    hang = upstream.last()
    await wait_for(lambda: hang.client_closed)
    await socket.send(request(14, "import num"))
    [reply] = await socket.until_done(14)
    assert reply["list"]["items"][0]["insertText"] == "py as np"


async def test_backend_down(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    upstream.stop()
    s = await open_socket(jp_ws_fetch)
    await s.send(request(1, "def add(a, b):"))
    [reply] = await s.until_done(1)
    assert reply["error"]["type"] == "backend_unreachable"
    await s.send(request(2, "def add(a, b):", stream=True))
    msgs = await s.until_done(2)
    assert msgs[-1]["error"]["type"] == "backend_unreachable"
    assert msgs[-1]["done"] is True


async def test_unauthenticated_upgrade_is_403(jp_ws_fetch: Any) -> None:
    with pytest.raises(HTTPClientError) as err:
        await jp_ws_fetch("api", "codecomplete", "inline", headers={"Authorization": ""})
    assert err.value.code == 403
