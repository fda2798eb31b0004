"""A request's stream chunks leave at most one frame a display frame (``FRAME_S``): the first at
once, those within the frame merged into one, the last at once with what waited (issue 38).

The outbox alone, on the running loop with its clock held still (``loop.time`` replaced): what is
checked is which messages each write carries, not how long anything takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

from jupyter_codecomplete.protocol import ErrorInfo, InlineCompletionItem, InlineCompletionStreamChunk
from jupyter_codecomplete.web.outbox import FRAME_S, Outbox


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@contextlib.contextmanager
def still_clock() -> Iterator[Clock]:
    loop = asyncio.get_running_loop()
    clock = Clock()
    loop.time = clock  # type: ignore[method-assign]  # the loop's own timers follow it too
    try:
        yield clock
    finally:
        del loop.time  # back to the class's


def recorder(writes: list[list[dict[str, Any]]]) -> Outbox:
    def write(messages: list[bytes]) -> asyncio.Future[None]:
        writes.append([json.loads(m) for m in messages])
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        fut.set_result(None)
        return fut

    return Outbox(write)


def chunk(
    text: str, *, done: bool = False, delta: bool = True, error: ErrorInfo | None = None
) -> InlineCompletionStreamChunk:
    return InlineCompletionStreamChunk(
        reply_to=7,
        response=InlineCompletionItem(insertText=text, isIncomplete=not done),
        done=done,
        delta=delta,
        notes=["a note"] if done else [],
        error=error,
    )


def texts(write: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    return [(m["response"]["insertText"], m["done"]) for m in write]


async def turns(n: int = 3) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_chunks_within_a_frame_leave_as_one_and_the_last_at_once() -> None:
    with still_clock():
        writes: list[list[dict[str, Any]]] = []
        outbox = recorder(writes)
        assert outbox.offer(chunk("def "), 1 << 20)
        assert texts(writes[-1]) == [("def ", False)]  # the first chunk: at once
        assert outbox.offer(chunk("f"), 1 << 20)
        assert outbox.offer(chunk("(x)"), 1 << 20)
        await turns()
        assert len(writes) == 1  # the frame is not over: they wait, merged
        assert outbox.offer(chunk("", done=True), 1 << 20)
        assert len(writes) == 2  # the last chunk: at once, with what waited
        last = writes[-1]
        assert texts(last) == [("f(x)", True)]
        assert last[0]["notes"] == ["a note"] and last[0]["delta"] is True and last[0]["error"] is None
        await turns()
        assert len(writes) == 2  # nothing left to leave


async def test_a_waiting_chunk_leaves_when_its_frame_is_over() -> None:
    with still_clock() as clock:
        writes: list[list[dict[str, Any]]] = []
        outbox = recorder(writes)
        outbox.offer(chunk("a"), 1 << 20)
        outbox.offer(chunk("b"), 1 << 20)
        outbox.offer(chunk("c"), 1 << 20)
        clock.now += FRAME_S
        await turns()
        assert [texts(w) for w in writes] == [[("a", False)], [("bc", False)]]
        clock.now += FRAME_S * 2  # a slow model: the next chunk is past its frame and leaves at once
        outbox.offer(chunk("d"), 1 << 20)
        assert texts(writes[-1]) == [("d", False)]


async def test_whole_text_chunks_merge_to_the_newest() -> None:
    """Protocol 1: each chunk is the whole suggestion so far; the merged one is the newest."""
    with still_clock():
        writes: list[list[dict[str, Any]]] = []
        outbox = recorder(writes)
        outbox.offer(chunk("a", delta=False), 1 << 20)
        outbox.offer(chunk("ab", delta=False), 1 << 20)
        outbox.offer(chunk("abc", delta=False), 1 << 20)
        outbox.offer(chunk("abc", delta=False, done=True), 1 << 20)
        assert [texts(w) for w in writes] == [[("a", False)], [("abc", True)]]


async def test_the_text_before_an_error_leaves_before_it() -> None:
    with still_clock():
        writes: list[list[dict[str, Any]]] = []
        outbox = recorder(writes)
        outbox.offer(chunk("a"), 1 << 20)
        outbox.offer(chunk("b"), 1 << 20)
        error = ErrorInfo(type="timeout", title="Timed out", message="No completion in time.")
        outbox.offer(chunk("", done=True, error=error), 1 << 20)
        assert [texts(w) for w in writes] == [[("a", False)], [("b", False), ("", True)]]
        assert writes[-1][1]["error"]["type"] == "timeout"


async def test_a_forgotten_request_sends_nothing_more() -> None:
    with still_clock() as clock:
        writes: list[list[dict[str, Any]]] = []
        outbox = recorder(writes)
        outbox.offer(chunk("a"), 1 << 20)
        outbox.offer(chunk("b"), 1 << 20)
        outbox.forget(7)  # cancelled: its answer is the canceller's
        clock.now += FRAME_S
        await turns()
        assert [texts(w) for w in writes] == [[("a", False)]]
