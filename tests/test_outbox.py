"""The socket's outbox paces a stream (``web/outbox.py``): the first piece leaves at once, the pieces
that follow within ``PACE_S`` leave merged in one frame, the last (``done``) at once with what
waited; nothing is lost, nothing is sent after the request is forgotten."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from jupyter_codecomplete.protocol import InlineCompletionItem, InlineCompletionStreamChunk, ServingModel
from jupyter_codecomplete.web.outbox import PACE_S, Outbox


class Frames:
    """What the outbox wrote: one list of decoded messages per write."""

    def __init__(self) -> None:
        self.writes: list[list[dict[str, Any]]] = []

    def write(self, messages: list[bytes]) -> asyncio.Future[None]:
        self.writes.append([json.loads(m) for m in messages])
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        fut.set_result(None)
        return fut

    @property
    def texts(self) -> list[str]:
        return [m["response"]["insertText"] for w in self.writes for m in w]


def chunk(text: str, *, done: bool = False, number: int = 7, **more: Any) -> InlineCompletionStreamChunk:
    return InlineCompletionStreamChunk(
        reply_to=number, response=InlineCompletionItem(insertText=text), done=done, delta=True, **more
    )


LIMIT = 1 << 20


async def test_the_first_piece_leaves_at_once_and_the_rest_merged_with_the_last() -> None:
    frames = Frames()
    box = Outbox(frames.write)
    model = ServingModel(name="m", backend="openai")
    assert box.offer(chunk("def ", model=model), LIMIT)
    assert frames.texts == ["def "]  # no waiting for the first piece
    for piece in ("f", "(x", ")", ":"):
        assert box.offer(chunk(piece, notes=["syntax"] if piece == ")" else []), LIMIT)
    assert frames.texts == ["def "]  # within PACE_S of the first: merged, waiting
    assert box.offer(chunk("\n", done=True), LIMIT)
    assert frames.texts == ["def ", "f(x):\n"]
    last = frames.writes[-1][0]
    assert last["done"] is True and last["notes"] == ["syntax"]  # a merged piece's note kept
    assert frames.writes[0][0]["model"]["name"] == "m"  # said with the first piece


async def test_a_piece_that_waits_leaves_on_its_own_when_no_more_come() -> None:
    frames = Frames()
    box = Outbox(frames.write)
    box.offer(chunk("a"), LIMIT)
    box.offer(chunk("b"), LIMIT)
    box.offer(chunk("c"), LIMIT)
    await asyncio.sleep(PACE_S * 3)  # a wait for the paced frame, not a timing assertion
    assert frames.texts == ["a", "bc"]
    box.offer(chunk("", done=True), LIMIT)
    assert frames.texts == ["a", "bc", ""]


async def test_requests_are_paced_apart_and_a_forgotten_one_sends_nothing_more() -> None:
    frames = Frames()
    box = Outbox(frames.write)
    box.offer(chunk("x", number=1), LIMIT)
    box.offer(chunk("y", number=2), LIMIT)  # another request's first piece: at once too
    box.offer(chunk("x2", number=1), LIMIT)
    box.offer(chunk("y2", number=2), LIMIT)
    box.forget(1)  # request 1 was superseded
    await asyncio.sleep(PACE_S * 3)
    assert frames.texts == ["x", "y", "y2"]


async def test_an_empty_first_chunk_does_not_start_the_pace() -> None:
    frames = Frames()
    box = Outbox(frames.write)
    box.offer(chunk(""), LIMIT)
    box.offer(chunk("first text"), LIMIT)
    assert frames.texts == ["", "first text"]  # the first text is never held back


async def test_the_model_is_read_when_the_next_frame_may_leave_and_what_it_brings_leaves_at_once() -> None:
    frames = Frames()
    box = Outbox(frames.write)
    assert box.read_hold(7) == 0.0  # before the first piece: read as it comes
    box.offer(chunk("a"), LIMIT)
    hold = box.read_hold(7)
    assert 0 < hold <= PACE_S  # the frame after "a" is due at PACE_S
    await asyncio.sleep(hold)  # the hold: then one read brings what the model sent meanwhile
    assert box.read_hold(7) <= 0
    box.offer(chunk("bcd"), LIMIT)
    assert frames.texts == ["a", "bcd"]  # at once: no timer of the outbox's, no second read
    assert box.read_hold(8) == 0.0  # another request's own pace
