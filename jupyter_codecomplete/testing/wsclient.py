"""One websocket client for the completion socket (``api/codecomplete/inline``), for tests and benchmarks.

A thin, typed wrapper around tornado's websocket client that speaks the wire protocol of
:mod:`jupyter_codecomplete.protocol`: it reads the server's ``hello`` on connect (and can ask for
another protocol version), sends numbered requests, reads the replies of one request until its final
message (an ``error``, the ``done`` stream chunk or a complete ``inline_completion``), cancels, and
rebuilds the suggestion from stream chunks of either protocol (cumulative or delta). Messages stay
plain dicts: tests also send malformed ones and assert on the raw shape of the answers.

Two ways in:

* in pytest-jupyter tests, ``await CompletionSocket.open(jp_ws_fetch)`` (the fixture adds the
  server's URL and token);
* anywhere else (benchmarks, scripts), ``await CompletionSocket.connect(ws_url, token=...)``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

Message = dict[str, Any]
# the socket's route below the server's base URL (``extension.py`` registers it)
WS_PATH = ("api", "codecomplete", "inline")
# what ``jp_ws_fetch`` is: ``(*path parts, headers=..., ...) -> a connected tornado client``
WsFetch = Callable[..., Awaitable[WebSocketClientConnection]]

# Large enough for the hostile tests' floods (a protocol-1 client gets the whole suggestion each time).
MAX_MESSAGE_SIZE = 256 * 1024 * 1024


class SocketClosed(ConnectionError):
    """The server closed the socket while a message was expected."""


def request(number: int, prefix: str, suffix: str = "", **fields: Any) -> Message:
    """An ``inline_completion`` request (python, in ``test.ipynb``); ``fields`` add or replace keys."""
    return {
        "type": "inline_completion",
        "number": number,
        "prefix": prefix,
        "suffix": suffix,
        "language": "python",
        "path": "test.ipynb",
        **fields,
    }


def is_final(msg: Message) -> bool:
    """Whether ``msg`` is the last message of its request: an error, the done chunk, a whole reply."""
    kind = msg.get("type")
    if kind in ("error", "edit_prediction"):
        return True
    if kind == "stream":
        return bool(msg.get("done"))
    if kind == "inline_completion":
        return not any(item.get("isIncomplete") for item in msg["list"]["items"])
    return False


def error_type(msg: Message) -> str | None:
    """The ``error.type`` of a message (an error reply, or a reply/chunk that carries one), or None."""
    error = msg.get("error")
    return str(error["type"]) if isinstance(error, dict) else None


def suggestion(messages: Iterable[Message]) -> str:
    """The suggestion the client shows after these messages of one request.

    Protocol 1 chunks carry the whole text so far, protocol 2 chunks (``delta``) only what is new; a
    non-streamed reply carries its first item."""
    text = ""
    for msg in messages:
        if msg.get("type") == "stream":
            piece = str(msg["response"]["insertText"])
            text = text + piece if msg.get("delta") else piece
        elif msg.get("type") == "inline_completion" and msg["list"]["items"]:
            text = str(msg["list"]["items"][0]["insertText"])
    return text


class CompletionSocket:
    """A connected completion websocket; ``hello`` is the server's first message."""

    def __init__(self, ws: WebSocketClientConnection, hello: Message | None = None) -> None:
        self.ws = ws
        self.hello = hello

    # -- connecting
    @classmethod
    async def open(cls, ws_fetch: WsFetch, *, protocol: int | None = None, **kwargs: Any) -> CompletionSocket:
        """Connect through pytest-jupyter's ``jp_ws_fetch`` (``kwargs``: its ``headers`` etc.)."""
        ws = await ws_fetch(*WS_PATH, **kwargs)
        return await cls._start(ws, protocol)

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        token: str | None = None,
        protocol: int | None = None,
        max_message_size: int = MAX_MESSAGE_SIZE,
    ) -> CompletionSocket:
        """Connect to ``url`` (``ws://host:port/<base>/api/codecomplete/inline``), with a server token."""
        headers = {"Authorization": f"token {token}"} if token else {}
        ws = await websocket_connect(HTTPRequest(url, headers=headers), max_message_size=max_message_size)
        return await cls._start(ws, protocol)

    @classmethod
    async def _start(cls, ws: WebSocketClientConnection, protocol: int | None) -> CompletionSocket:
        socket = cls(ws)
        hello = await socket.recv()
        if hello.get("type") != "hello":
            raise AssertionError(f"the first message is not a hello: {hello}")
        socket.hello = hello
        if protocol is not None:
            await socket.use_protocol(protocol)
        return socket

    # -- writing
    async def send(self, msg: Message | str | bytes) -> None:
        """Send a message: a dict as JSON text, a str as it is, bytes as a binary frame."""
        data = json.dumps(msg) if isinstance(msg, dict) else msg
        await self.ws.write_message(data, binary=isinstance(data, bytes))

    def send_nowait(self, msg: Message | str) -> None:
        """Queue a message without waiting for it to be written (a burst from a timed client)."""
        self.ws.write_message(json.dumps(msg) if isinstance(msg, dict) else msg)

    async def use_protocol(self, version: int) -> None:
        """Ask for protocol ``version`` (one of the hello's ``protocols``) on this socket."""
        await self.send({"type": "hello", "protocol": version})

    async def cancel(self, number: int) -> None:
        """Cancel request ``number`` (the server answers it with a ``cancelled`` end)."""
        await self.send({"type": "cancel", "number": number})

    # -- reading
    async def recv_raw(self, timeout: float | None = None) -> str | bytes | None:
        """The next frame as it came (None: the socket is closed); ``timeout`` raises TimeoutError."""
        return await asyncio.wait_for(self.ws.read_message(), timeout)

    async def recv(self, timeout: float | None = None) -> Message:
        """The next message, parsed; raises :class:`SocketClosed` when the socket closes."""
        raw = await self.recv_raw(timeout)
        if raw is None:
            raise SocketClosed(f"socket closed (code {self.ws.close_code})")
        msg: Message = json.loads(raw)
        return msg

    async def until_done(self, number: int) -> list[Message]:
        """The messages for request ``number`` up to and including its final one (others are skipped)."""
        out: list[Message] = []
        while True:
            msg = await self.recv()
            if msg.get("reply_to") != number:
                continue
            out.append(msg)
            if is_final(msg):
                return out

    async def complete(self, number: int, prefix: str, suffix: str = "", **fields: Any) -> list[Message]:
        """Send a request and read its messages until its final one."""
        await self.send(request(number, prefix, suffix, **fields))
        return await self.until_done(number)

    # -- closing
    def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.ws.close(code, reason)

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code

    async def __aenter__(self) -> CompletionSocket:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


async def open_socket(ws_fetch: WsFetch, *, protocol: int | None = None, **kwargs: Any) -> CompletionSocket:
    """Connect through ``jp_ws_fetch`` and read the hello (see :meth:`CompletionSocket.open`)."""
    return await CompletionSocket.open(ws_fetch, protocol=protocol, **kwargs)
