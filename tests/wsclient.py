"""Test helpers: a small websocket client for the completion socket."""

from __future__ import annotations

import json
from typing import Any


class Socket:
    """A small client for the completion websocket used by the tests."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.hello: dict[str, Any] | None = None

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        if isinstance(msg, dict):
            msg = json.dumps(msg)
        await self.ws.write_message(msg, binary=isinstance(msg, bytes))

    async def recv(self) -> dict[str, Any]:
        raw = await self.ws.read_message()
        assert raw is not None, "socket closed"
        return json.loads(raw)

    async def until_done(self, number: int) -> list[dict[str, Any]]:
        """Messages for ``number`` until its final one (reply, done chunk or error)."""
        out = []
        while True:
            msg = await self.recv()
            if msg.get("reply_to") != number:
                continue
            out.append(msg)
            if msg["type"] == "error":
                return out
            if msg["type"] == "stream" and msg["done"]:
                return out
            if msg["type"] == "inline_completion" and not any(
                i.get("isIncomplete") for i in msg["list"]["items"]
            ):
                return out


async def open_socket(jp_ws_fetch: Any) -> Socket:
    """Connect to the completion websocket and read its hello message."""
    ws = await jp_ws_fetch("api", "codecomplete", "inline")
    s = Socket(ws)
    s.hello = await s.recv()
    assert s.hello["type"] == "hello"
    return s


def request(number: int, prefix: str, suffix: str = "", **kw: Any) -> dict[str, Any]:
    return {
        "type": "inline_completion",
        "number": number,
        "prefix": prefix,
        "suffix": suffix,
        "language": "python",
        "path": "test.ipynb",
        **kw,
    }
