"""The websocket's frames, on tornado's internals (``WebSocketProtocol13``): the one module that
touches them.

:class:`FrameProtocol` is tornado's protocol, but a text frame that is not UTF-8 gets the 1007 close
frame, a frame over tornado's hard limit the 1009 close frame with a reason that names the limit
(and time to reach the client), and a flush of several messages is one write to the stream.
"""

from __future__ import annotations

import asyncio
import struct
from typing import Any

from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError, WebSocketHandler, WebSocketProtocol13

# How long a connection closed for a too-big frame waits for its close frame to reach the client.
LINGER_S = 2.0
_LINGERING: set[asyncio.Future[None]] = set()


class FrameProtocol(WebSocketProtocol13):
    """Tornado's protocol, but a text frame that is not UTF-8 gets the 1007 close frame (RFC 6455
    §7.4.1) instead of a dropped TCP connection, and a frame over tornado's hard limit
    (``max_message_size``) gets the 1009 close frame with a reason that names the limit: tornado
    writes the frame and then tears the connection down at once, so the client saw a reset. Here the
    connection lingers until the close frame is out (what the client still sends is read and
    dropped, for at most :data:`LINGER_S`), then closes."""

    _too_big = False
    _lingering = False

    def close(self, code: int | None = None, reason: str | None = None) -> None:
        if code == 1009 and not self.server_terminated:
            self._too_big = True
            limit = getattr(self.handler, "max_message_size", None)
            reason = (
                f"Message too big: over {limit} bytes (see c.CodeCompleteApp.max_message_bytes)."
                if isinstance(limit, int)
                else "Message too big."
            )[:123]
        super().close(code, reason)

    def _abort(self) -> None:
        if not self._too_big or self._lingering or self.stream is None or self.stream.closed():
            super()._abort()
            return
        self._lingering = True
        self.client_terminated = True  # the frame loop stops reading frames
        task = asyncio.ensure_future(self._linger())
        _LINGERING.add(task)
        task.add_done_callback(_LINGERING.discard)

    async def _linger(self) -> None:
        stream = self.stream
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LINGER_S
        try:
            await asyncio.wait_for(stream.write(b""), LINGER_S)  # the close frame is written
            while (left := deadline - loop.time()) > 0:
                await asyncio.wait_for(stream.read_bytes(256 * 1024, partial=True), left)
        except (StreamClosedError, asyncio.TimeoutError, OSError):
            pass
        finally:
            super()._abort()

    def _handle_message(self, opcode: int, data: bytes) -> Any:
        if opcode == 0x1 and not self._frame_compressed and not self.client_terminated:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                self.close(1007, "A text frame that is not UTF-8.")
                return None
        return super()._handle_message(opcode, data)

    def write_texts(self, messages: list[bytes]) -> asyncio.Future[None]:
        """Text messages, one frame each, in one write to the stream (one system call, no task per
        message as :meth:`write_message` makes). Raises :class:`WebSocketClosedError`."""
        if self.mask_outgoing:  # a client's protocol: not ours to batch
            futures = [self.write_message(m) for m in messages]
            return futures[-1]
        parts: list[bytes] = []
        for data in messages:
            self._message_bytes_out += len(data)
            flags = 0
            if self._compressor:
                data = self._compressor.compress(data)
                flags |= self.RSV1
            first = self.FIN | 0x1 | flags
            n = len(data)
            if n < 126:
                parts.append(struct.pack("BB", first, n))
            elif n <= 0xFFFF:
                parts.append(struct.pack("!BBH", first, 126, n))
            else:
                parts.append(struct.pack("!BBQ", first, 127, n))
            parts.append(data)
        frames = b"".join(parts)
        self._wire_bytes_out += len(frames)
        try:
            return self.stream.write(frames)
        except StreamClosedError:
            raise WebSocketClosedError() from None


def adopt(protocol: Any) -> Any:
    """``protocol`` (a handler's ``get_websocket_protocol()``) as a :class:`FrameProtocol` when it is
    tornado's plain one."""
    if type(protocol) is WebSocketProtocol13:
        protocol.__class__ = FrameProtocol
    return protocol


def _retrieve(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled():
        fut.exception()  # a socket closed under a write is not an error to log


def write_texts(handler: WebSocketHandler, messages: list[bytes]) -> asyncio.Future[None]:
    """Write ``messages`` (UTF-8 JSON, at least one) on ``handler``'s socket: one write with a
    :class:`FrameProtocol`, else one :meth:`~WebSocketHandler.write_message` each. The future is the
    last write's; raises :class:`WebSocketClosedError` when the socket is closed or closing."""
    connection = handler.ws_connection
    if connection is None or connection.is_closing():
        raise WebSocketClosedError()
    if isinstance(connection, FrameProtocol):
        return connection.write_texts(messages)
    for message in messages[:-1]:
        handler.write_message(message).add_done_callback(_retrieve)
    return handler.write_message(messages[-1])
