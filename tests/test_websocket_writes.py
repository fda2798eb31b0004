"""The websocket's write path: answers to superseded requests leave batched with the next
message (several frames in one write), each exactly once and in order, through a running server."""

from __future__ import annotations

from typing import Any

from jupyter_codecomplete.testing import open_socket, request


async def test_superseded_answers_arrive_once_and_in_order(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    for n in range(1, 31):  # a typing burst: each request supersedes the one before
        await socket.send(request(n, f"# HANG {n}\n", stream=True))
    superseded: list[int] = []
    while True:
        msg = await socket.recv()
        if msg["type"] == "error":
            assert msg["error"]["type"] == "superseded", msg
            assert msg["error"]["message"] == f"Request {msg['reply_to']} was superseded."
            superseded.append(msg["reply_to"])
        elif msg["reply_to"] == 30:
            break
    # every older request was answered, once, in order, before the newest one's first reply
    assert superseded == list(range(1, 30))
    # and the socket goes on serving
    await socket.send({"type": "cancel", "number": 30})
    msg = await socket.recv()
    assert (msg["reply_to"], msg["error"]["type"]) == (30, "cancelled")
    await socket.send(request(31, "def add(a, b):"))
    [reply] = await socket.until_done(31)
    assert reply["list"]["items"][0]["insertText"] == "\n    return a + b"
