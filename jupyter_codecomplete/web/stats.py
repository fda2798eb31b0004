"""``GET api/codecomplete/stats``: event-loop lag, tasks and open sockets, for benchmarks and ops."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import resource
import sys
import time
from typing import Any

from .base import CodeCompleteHandler
from .replies import ServerStats, reply


class LoopLagMonitor:
    """Measures how late a periodic wake-up runs: the event loop's lag.

    Besides the worst lag it keeps the recent ones (for percentiles) and, for the worst, how much
    CPU the loop's thread used meanwhile: a late wake-up with little CPU used means the thread was
    not running (the OS ran something else, or another thread held the GIL), not a long callback.
    It also times the garbage collector's passes (``gc.callbacks``)."""

    def __init__(self, interval: float = 0.02, keep: int = 20_000) -> None:
        self.interval = interval
        self.max_lag = 0.0
        self.worst_cpu = 0.0  # the loop thread's CPU during the worst sample's window
        self.samples = 0
        self.lags: collections.deque[float] = collections.deque(maxlen=keep)
        self.max_gc_pause = 0.0
        self.gc_passes = [0, 0, 0]  # passes of each generation since the last reset
        self.gc_max_pause = [0.0, 0.0, 0.0]  # the longest pass of each generation
        self.gc_max_collected = [0, 0, 0]  # what that pass freed (objects)
        self._gc_started: float | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="codecomplete:lag-monitor")
            gc.callbacks.append(self._on_gc)

    def reset(self) -> None:
        self.max_lag = self.worst_cpu = self.max_gc_pause = 0.0
        self.gc_passes = [0, 0, 0]
        self.gc_max_pause = [0.0, 0.0, 0.0]
        self.gc_max_collected = [0, 0, 0]
        self.samples = 0
        self.lags.clear()

    def percentile(self, q: float) -> float | None:
        """The ``q`` quantile (0..1) of the kept lags, in seconds; None before any."""
        if not self.lags:
            return None
        ordered = sorted(self.lags)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started is not None:
            pause = time.perf_counter() - self._gc_started
            self._gc_started = None
            self.max_gc_pause = max(self.max_gc_pause, pause)
            generation = min(2, max(0, int(info.get("generation", 0))))
            self.gc_passes[generation] += 1
            if pause > self.gc_max_pause[generation]:
                self.gc_max_pause[generation] = pause
                self.gc_max_collected[generation] = int(info.get("collected", 0))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before, cpu = loop.time(), time.thread_time()
            await asyncio.sleep(self.interval)
            lag = loop.time() - before - self.interval
            self.samples += 1
            self.lags.append(lag)
            if lag > self.max_lag:
                self.max_lag, self.worst_cpu = lag, time.thread_time() - cpu

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
            with contextlib.suppress(ValueError):
                gc.callbacks.remove(self._on_gc)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000


class StatsHandler(CodeCompleteHandler):
    route = "stats"

    async def get(self) -> None:
        monitor: LoopLagMonitor | None = self.app.lag_monitor
        collector = self.app.full_collections
        if monitor is not None and self.get_argument("reset", "") == "1":
            monitor.reset()
        if self.get_argument("gc", "") == "1":
            gc.collect()
        rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        current_rss = None
        try:
            with open("/proc/self/statm") as f:  # noqa: ASYNC230 - a procfs read, never blocks
                current_rss = int(f.read().split()[1]) * resource.getpagesize()
        except OSError:
            pass
        tasks = asyncio.all_tasks()
        self.finish(
            reply(
                ServerStats,
                {
                    "tasks": len(tasks),
                    "codecomplete_tasks": sum(1 for t in tasks if t.get_name().startswith("codecomplete:")),
                    "max_loop_lag_ms": monitor.max_lag * 1000 if monitor else None,
                    "p50_loop_lag_ms": _ms(monitor.percentile(0.5)) if monitor else None,
                    "p99_loop_lag_ms": _ms(monitor.percentile(0.99)) if monitor else None,
                    # CPU the loop's thread used during the worst lag's window (interval + lag)
                    "worst_lag_cpu_ms": monitor.worst_cpu * 1000 if monitor else None,
                    "max_gc_pause_ms": monitor.max_gc_pause * 1000 if monitor else None,
                    # per generation (0, 1, 2): passes and the longest, since the last reset
                    "gc_passes": list(monitor.gc_passes) if monitor else None,
                    "gc_max_pause_ms": [p * 1000 for p in monitor.gc_max_pause] if monitor else None,
                    "gc_max_pause_collected": list(monitor.gc_max_collected) if monitor else None,
                    # what the collector tracks outside the frozen start-up heap (?objects=1: a full walk)
                    "gc_tracked_objects": len(gc.get_objects())
                    if self.get_argument("objects", "") == "1"
                    else None,
                    "lag_samples": monitor.samples if monitor else 0,
                    # the full passes run while the loop was calm (c.CodeCompleteApp.defer_full_collections)
                    "deferred_full_collections": None if collector is None else collector.stats(),
                    "rss_bytes": current_rss,
                    "max_rss_bytes": rss_kb * 1024 if sys.platform != "darwin" else rss_kb,
                },
            )
        )
