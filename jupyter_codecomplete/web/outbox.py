"""One socket's messages on their way out: when they leave, and what waits for the client.

Cheap writes: a deferred message (no one waits for it: the answer to a superseded or cancelled
request) waits at most :data:`DEFER_S` for the socket's next message and leaves with it; every
message of a flush goes in one write. A message someone waits for (a reply, a stream's first piece
and its last chunk) is never held back.

Paced: after the first piece of a suggestion (which leaves at once), its stream chunks leave at
most one frame per :data:`PACE_S` for each request, the pieces that came meanwhile merged into one;
the last chunk (``done``) leaves at once with what waited. Each frame is a send system call and a
wake-up of the browser's socket: on loopback at one user they were the largest single cost of a
suggestion in the server (``IOStream.write_to_fd``, ``docs/performance.md``), and ghost text that
grows 25 times a second looks no different from 60. The model's stream is read at the same pace
(:meth:`Outbox.read_hold`): what it sent since the last frame is read in one go when the next
one may leave, and leaves in that frame at once (no timer of the outbox's own, no second read).

Bounded: :attr:`Outbox.queued` counts the bytes handed to the socket and not yet written. While
the client is behind (more than :data:`COALESCE_BYTES` queued), the stream chunks of a request are
merged into one, written when the client catches up; past the socket's limit
(``max_queued_bytes``) :meth:`Outbox.offer` says the request must end.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from pydantic import BaseModel
from tornado.websocket import WebSocketClosedError

from ..protocol import ErrorInfo, ErrorReply, InlineCompletionStreamChunk

# Past this many bytes queued for the client, stream chunks of a request are merged, not queued.
COALESCE_BYTES = 64 * 1024
# How long the answer to a superseded or cancelled request may wait for the socket's next message
# (no one waits for it; under a typing burst it leaves with the next request's reply). Writing
# every such answer at once was a fifth of the server's CPU under 200 sockets x 20 requests.
DEFER_S = 0.05
# At most one stream frame per request this often, after the first piece (see the module's doc).
PACE_S = 0.04


def payload(message: BaseModel) -> bytes:
    """A wire message as the socket sends it (UTF-8 JSON, every field)."""
    return message.model_dump_json(exclude_none=False).encode()


_SENTINEL = 987_654_321_987


@functools.lru_cache(maxsize=4)
def _stopped_template(why: str) -> bytes:
    title = "Request superseded" if why == "superseded" else "Request cancelled"
    info = ErrorInfo(type=why, title=title, message=f"Request {_SENTINEL} was {why}.")
    return payload(ErrorReply(reply_to=_SENTINEL, error=info))


def stopped_reply(number: int, why: str) -> bytes:
    """The answer to a superseded or cancelled request (the same bytes as the :class:`ErrorReply`,
    without building and serialising a model for each of the many a typing burst makes)."""
    return _stopped_template(why).replace(b"%d" % _SENTINEL, b"%d" % number)


class _Held:
    """Stream chunks of one request merged while the client is behind."""

    def __init__(self, chunk: InlineCompletionStreamChunk) -> None:
        self.chunk = chunk
        self.parts = [chunk.response.insertText]

    def merge(self, chunk: InlineCompletionStreamChunk) -> None:
        if chunk.delta:
            self.parts.append(chunk.response.insertText)
        else:
            self.parts = [chunk.response.insertText]
        # what an earlier chunk said stays said: its notes and the model that answered
        notes = [n for n in self.chunk.notes if n not in chunk.notes]
        if notes:
            chunk.notes = [*notes, *chunk.notes]
        if chunk.model is None:
            chunk.model = self.chunk.model
        self.chunk = chunk

    def message(self) -> InlineCompletionStreamChunk:
        self.chunk.response.insertText = "".join(self.parts)
        return self.chunk


class Outbox:
    """The messages of one socket on their way out.

    ``write`` writes serialised messages (at least one) in one go and returns the write's future;
    it raises :class:`WebSocketClosedError` when the socket is closed or closing."""

    def __init__(self, write: Callable[[list[bytes]], asyncio.Future[None]]) -> None:
        self._write = write
        self.queued = 0  # bytes handed to the socket (or waiting here), not yet written
        self._messages: list[bytes] = []  # deferred messages, written with the next one
        self._held: dict[int, _Held] = {}
        self._timer: asyncio.TimerHandle | None = None
        # per request: when its last frame with text left (loop time), and the timer of its
        # paced chunks waiting for their turn
        self._last_frame: dict[int, float] = {}
        self._paced: dict[int, asyncio.TimerHandle] = {}

    def put(self, data: bytes, *, defer: bool = False) -> bool:
        """Queue one serialised message; False when the socket is closed.

        ``defer``: no one waits for it; it may wait up to :data:`DEFER_S` for the next message."""
        self._messages.append(data)
        self.queued += len(data)
        if not defer:
            return self.flush()
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(DEFER_S, self.flush)
        return True

    def flush(self) -> bool:
        """Write every queued message in one write. False when the socket is closed."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        messages, self._messages = self._messages, []
        if not messages:
            return True
        size = sum(len(m) for m in messages)
        try:
            fut = self._write(messages)
        except WebSocketClosedError:
            self.queued -= size
            return False
        fut.add_done_callback(functools.partial(self._written, size=size))
        return True

    def _written(self, fut: asyncio.Future[None], size: int) -> None:
        self.queued -= size
        if not fut.cancelled():
            fut.exception()  # retrieved: a socket closed under a write is not an error to log
        if self._held and self.queued <= COALESCE_BYTES:
            held, self._held = self._held, {}
            for item in held.values():
                self.put(payload(item.message()))

    def offer(self, chunk: InlineCompletionStreamChunk, limit: int) -> bool:
        """Send a stream chunk, or merge it with the unsent ones while the client is behind.

        False when more than ``limit`` bytes wait for the client: the request must end."""
        number = chunk.reply_to
        held = self._held.pop(number, None)
        if held is not None:
            held.merge(chunk)
        else:
            held = _Held(chunk)
        if self.queued > limit:
            return False
        if not chunk.done and self.queued > COALESCE_BYTES:
            self._held[number] = held
            return True
        if not chunk.done and number in self._last_frame:
            # paced: the next frame of this request leaves PACE_S after its last one
            due = self._last_frame[number] + PACE_S
            loop = asyncio.get_running_loop()
            if loop.time() < due:
                self._held[number] = held
                if number not in self._paced:
                    self._paced[number] = loop.call_at(due, self._send_paced, number)
                return True
        self._send(number, held)
        return True

    def _send(self, number: int, held: _Held) -> None:
        timer = self._paced.pop(number, None)
        if timer is not None:
            timer.cancel()
        message = held.message()
        if message.done:
            self._last_frame.pop(number, None)
        elif message.response.insertText:
            self._last_frame[number] = asyncio.get_running_loop().time()
        self.put(payload(message))

    def _send_paced(self, number: int) -> None:
        self._paced.pop(number, None)
        held = self._held.pop(number, None)
        if held is None:
            return
        if self.queued > COALESCE_BYTES:  # the client fell behind meanwhile: held until it reads
            self._held[number] = held
            return
        self._send(number, held)

    def read_hold(self, number: int) -> float:
        """How long request ``number``'s model stream need not be read (seconds): until its next
        frame may leave; 0 before its first piece (``backends.aio.READ_HOLD``)."""
        last = self._last_frame.get(number)
        if last is None:
            return 0.0
        return last + PACE_S - asyncio.get_running_loop().time()

    def forget(self, number: int) -> None:
        """Drop the merged chunks of request ``number`` (it ended)."""
        self._held.pop(number, None)
        self._last_frame.pop(number, None)
        timer = self._paced.pop(number, None)
        if timer is not None:
            timer.cancel()

    def close(self) -> None:
        """The socket closed: nothing more leaves."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._messages = []
        self._held = {}
        for timer in self._paced.values():
            timer.cancel()
        self._paced = {}
        self._last_frame = {}
