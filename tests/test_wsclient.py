"""The shared websocket test client (``testing/wsclient.py``): final messages, rebuilt suggestions, and
a connection by URL and token (the way benchmarks connect) to a running server."""

from __future__ import annotations

from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.testing import CompletionSocket, Message, error_type, is_final, suggestion


def chunk(text: str, done: bool = False, delta: bool = False) -> Message:
    return {"type": "stream", "reply_to": 1, "response": {"insertText": text}, "done": done, "delta": delta}


def reply(*texts: str, incomplete: bool = False) -> Message:
    items = [{"insertText": t, "isIncomplete": incomplete} for t in texts]
    return {"type": "inline_completion", "reply_to": 1, "list": {"items": items}, "error": None}


ERROR: Message = {
    "type": "error",
    "reply_to": 1,
    "error": {"type": "bad_request", "title": "", "message": ""},
}


@pytest.mark.parametrize(
    ("msg", "final"),
    [
        (ERROR, True),
        (chunk("a", done=True), True),
        (chunk("a"), False),
        (reply("a"), True),
        (reply(), True),
        (reply("", incomplete=True), False),  # the placeholder before a stream
        ({"type": "hello", "protocol": 1}, False),
    ],
)
def test_is_final(msg: Message, final: bool) -> None:
    assert is_final(msg) is final


@pytest.mark.parametrize(
    ("messages", "text"),
    [
        ([reply("", incomplete=True), chunk("a"), chunk("ab"), chunk("abc", done=True)], "abc"),  # protocol 1
        ([chunk("a", delta=True), chunk("b", delta=True), chunk("c", done=True, delta=True)], "abc"),  # 2
        ([reply("x = 1", "y")], "x = 1"),
        ([ERROR], ""),
    ],
)
def test_suggestion(messages: list[Message], text: str) -> None:
    assert suggestion(messages) == text


def test_error_type() -> None:
    assert error_type(ERROR) == "bad_request"
    assert error_type(reply("a")) is None


async def test_connect_by_url_and_token(
    http_server_client: Any, jp_auth_header: dict[str, str], jp_http_port: int, jp_base_url: str
) -> None:
    url = f"ws://localhost:{jp_http_port}{jp_base_url}api/codecomplete/inline"
    with pytest.raises(HTTPClientError) as refused:
        await CompletionSocket.connect(url, token="not-the-token")
    assert refused.value.code == 403
    token = jp_auth_header["Authorization"].split()[-1]
    socket = await CompletionSocket.connect(url, token=token, protocol=2)
    async with socket:
        assert socket.hello is not None and socket.hello["type"] == "hello"
        messages = await socket.complete(1, "import num", stream=True)
        assert suggestion(messages) == "py as np"
        assert all(m["delta"] for m in messages if m["type"] == "stream")
    assert socket.close_code is None or socket.close_code >= 1000
