"""When Python's garbage collector walks the whole heap: not in the middle of a burst.

A full (generation 2) collection walks every object the collector tracks and holds the event
loop meanwhile. In a Jupyter server two things make that long:

- the heap of the server and its extensions, loaded at start-up: :func:`freeze_heap` moves it out
  of the collector's view once everything has loaded (``gc.freeze``);
- what is alive while many requests are in flight (sockets, prompts, model streams): under
  200 sockets each full pass took 47-120 ms and freed almost nothing (0-55 objects, measured in
  ``docs/performance.md``), since what a request leaves is freed by reference counting.

:class:`FullCollections` keeps the young generations automatic (short passes) and runs the full
passes itself, as often as Python would ask for them, but only once the event loop has been calm
for a while, when the live heap is small and the pass short; a loop that is never calm still gets
one every ``max_defer`` seconds, so garbage cycles cannot pile up. It watches the loop only while
a pass is due (told by the collector itself, ``gc.callbacks``, after the young pass that makes one
due): an idle server is not woken ten times a second for nothing (that was ~3 ms of CPU a second,
the whole of an idle server's). Python 3.14's incremental collector has no long full passes, and
is left alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import time

# A threshold for generation 2 that automatic collection never reaches.
_NEVER = 1 << 30


def freeze_heap() -> None:
    """Collect, then move every object alive now out of the collector's view."""
    gc.collect()
    gc.freeze()


def defers_by_default() -> bool:
    """Whether full passes are long enough here to be worth deferring (not on 3.14's collector)."""
    return sys.version_info < (3, 14)


class FullCollections:
    """Runs generation-2 collections while the event loop is calm (see the module's docstring).

    ``calm_for``: seconds without a late wake-up (one later than ``calm_lag``) before a due full
    pass runs; ``max_defer``: seconds after which a due pass runs anyway."""

    def __init__(
        self,
        *,
        check_every: float = 0.1,
        calm_lag: float = 0.005,
        calm_for: float = 0.5,
        max_defer: float = 60.0,
    ) -> None:
        self.check_every = check_every
        self.calm_lag = calm_lag
        self.calm_for = calm_for
        self.max_defer = max_defer
        self.passes = 0  # full passes run here
        self.forced = 0  # of which run on a busy loop, after max_defer
        self.longest = 0.0  # seconds, the longest full pass run here
        self._saved: tuple[int, int, int] | None = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._due = asyncio.Event()
        self._watching = False  # told that a pass is due, and watching the loop for calm

    @property
    def running(self) -> bool:
        return self._task is not None

    @property
    def watching(self) -> bool:
        """Whether a pass is due and the loop is being watched (else no wake-up of its own)."""
        return self._watching

    def start(self) -> None:
        """Take over the full passes (call on the running loop)."""
        if self._task is not None:
            return
        self._saved = gc.get_threshold()
        gc.set_threshold(self._saved[0], self._saved[1], _NEVER)
        self._loop = asyncio.get_running_loop()
        gc.callbacks.append(self._collected)
        self._task = self._loop.create_task(self._run(), name="codecomplete:collector")
        self._collected("stop", {"generation": 1})  # perhaps due already

    def stop(self) -> None:
        """Give the full passes back to Python."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._collected)
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def due(self) -> bool:
        """Whether Python would have run a full pass by now: as many generation-1 passes since the
        last one as its own threshold says."""
        threshold = self._saved[2] if self._saved is not None else gc.get_threshold()[2]
        return gc.get_count()[2] >= max(1, threshold)

    def stats(self) -> dict[str, float]:
        """Full passes run here, of which forced on a busy loop, and the longest (ms)."""
        return {"passes": self.passes, "forced": self.forced, "longest_ms": self.longest * 1000}

    def collect(self, forced: bool = False) -> None:
        started = time.perf_counter()
        gc.collect(2)
        self.longest = max(self.longest, time.perf_counter() - started)
        self.passes += 1
        self.forced += int(forced)

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        """``gc.callbacks``: after a generation-1 pass (any thread), whether a full pass is due
        now; if so the loop is watched for calm (:meth:`_run`)."""
        if phase != "stop" or info.get("generation") != 1 or self._watching or not self.due():
            return
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        self._watching = True
        with contextlib.suppress(RuntimeError):  # the loop closing meanwhile
            loop.call_soon_threadsafe(self._due.set)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                await self._due.wait()  # nothing due: no wake-up
                self._due.clear()
                try:
                    await self._watch(loop)
                finally:
                    self._watching = False

    async def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Until the due pass ran: here once the loop has been calm for ``calm_for``, or after
        ``max_defer`` anyway (or elsewhere: ``gc.collect()`` called by someone)."""
        calm_since = due_since = loop.time()
        while self.due():
            before = loop.time()
            await asyncio.sleep(self.check_every)
            now = loop.time()
            if now - before - self.check_every > self.calm_lag:
                calm_since = now
            calm = now - calm_since >= self.calm_for
            if calm or now - due_since >= self.max_defer:
                if self.due():
                    self.collect(forced=not calm)
                return
