"""``GET api/codecomplete/stats``: event-loop lag, tasks and open sockets, for benchmarks and ops."""

from __future__ import annotations

import asyncio
import gc
import resource
import sys
from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from .rest import _Base


class LoopLagMonitor:
    """Measures how late a periodic wake-up runs: the event loop's lag."""

    def __init__(self, interval: float = 0.02) -> None:
        self.interval = interval
        self.max_lag = 0.0
        self.samples = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="codecomplete:lag-monitor")

    def reset(self) -> None:
        self.max_lag = 0.0
        self.samples = 0

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.interval)
            lag = loop.time() - before - self.interval
            self.samples += 1
            self.max_lag = max(self.max_lag, lag)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None


class StatsHandler(_Base):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        app: Any = self.extensionapp
        monitor: LoopLagMonitor | None = getattr(app, "lag_monitor", None)
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
            {
                "tasks": len(tasks),
                "codecomplete_tasks": sum(1 for t in tasks if t.get_name().startswith("codecomplete:")),
                "max_loop_lag_ms": monitor.max_lag * 1000 if monitor else None,
                "lag_samples": monitor.samples if monitor else 0,
                "rss_bytes": current_rss,
                "max_rss_bytes": rss_kb * 1024 if sys.platform != "darwin" else rss_kb,
            }
        )
