"""When the websocket's work runs: the gates that spread a burst over loop iterations, and the one
warm-up slot of the server. Shared by every socket of the server (one instance each, below)."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable


class StartGate:
    """Admits at most ``per_iteration`` request starts per event-loop iteration, in order.

    Starting a request (prompt, cleaning pipeline, model call) is the costly synchronous part of
    serving it. Under a burst (200 sockets typing at once) every socket's newest request would
    start in the same iteration and hold the loop for hundreds of milliseconds; through the gate
    they start a few per iteration, and a request superseded while it waits costs nothing.
    With no queue (the normal case) a request starts at once."""

    def __init__(self, per_iteration: int = 4) -> None:
        self.per_iteration = per_iteration
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._admitted = 0
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None

    async def enter(self) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new event loop (tests): nothing of the old one carries over
            self._loop, self._waiters, self._admitted, self._scheduled = loop, collections.deque(), 0, False
        if not self._waiters and self._admitted < self.per_iteration:
            self._admit(loop)
            return
        fut: asyncio.Future[None] = loop.create_future()
        self._waiters.append(fut)
        self._schedule(loop)
        await fut

    def _admit(self, loop: asyncio.AbstractEventLoop) -> None:
        self._admitted += 1
        self._schedule(loop)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._next_iteration, loop)

    def _next_iteration(self, loop: asyncio.AbstractEventLoop) -> None:
        self._scheduled = False
        self._admitted = 0
        while self._waiters and self._admitted < self.per_iteration:
            fut = self._waiters.popleft()
            if not fut.done():  # a waiter cancelled meanwhile is skipped
                fut.set_result(None)
                self._admitted += 1
        if self._waiters or self._admitted:
            self._schedule(loop)


class WarmSlot:
    """At most one warm-up in flight in the server (the model server has one cache to warm), and
    none while a suggestion streams: a completion request cancels the warm-up in flight; a warm-up
    that comes while one streams is refused (``busy``); a newer warm-up supersedes the older. The
    canceller answers the cancelled warm-up (it may not have started) through the ``answer`` its
    holder gave."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self._answer: Callable[[], object] | None = None
        self._streaming = 0  # completion requests being served, on every socket
        self._loop: asyncio.AbstractEventLoop | None = None

    def _here(self) -> None:
        """A new event loop (tests): nothing of the old one carries over."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self.task, self._answer, self._streaming = loop, None, None, 0

    @property
    def streaming(self) -> int:
        self._here()
        return self._streaming

    def serving(self, delta: int) -> None:
        self._here()
        self._streaming = max(0, self._streaming + delta)

    def hold(self, task: asyncio.Task[None], answer: Callable[[], object]) -> None:
        """``task`` is the warm-up now; ``answer`` answers it when it is cancelled."""
        self.cancel()
        self.task, self._answer = task, answer

    def release(self, task: asyncio.Task[None] | None) -> None:
        if task is not None and self.task is task:
            self.task, self._answer = None, None

    def cancel(self) -> None:
        self._here()
        task, answer = self.task, self._answer
        self.task, self._answer = None, None
        if task is not None and not task.done():
            task.cancel()
            if answer is not None:
                answer()


START_GATE = StartGate()
WARM_SLOT = WarmSlot()
# Incoming messages (parse, validate, supersede) go through a wider gate of their own: a burst
# from hundreds of sockets is handled over several loop iterations, each socket's in order
# (tornado reads a socket's next frame only when on_message is done with the previous one).
MESSAGE_GATE = StartGate(per_iteration=16)
