"""The event-loop lag monitor behind ``api/codecomplete/stats``: percentiles, the worst sample's CPU,
and the garbage collector's passes."""

from __future__ import annotations

import asyncio
import gc

from jupyter_codecomplete.web.stats import LoopLagMonitor


def test_percentiles_of_the_kept_lags() -> None:
    monitor = LoopLagMonitor(keep=100)
    assert monitor.percentile(0.5) is None
    monitor.lags.extend(i / 1000 for i in range(1, 101))  # 1..100 ms
    assert monitor.percentile(0.5) == 0.051
    assert monitor.percentile(0.99) == 0.1
    monitor.lags.extend([0.0] * 100)  # only the newest ``keep`` count
    assert monitor.percentile(0.99) == 0.0
    monitor.reset()
    assert monitor.percentile(0.5) is None and monitor.max_lag == 0.0


async def test_samples_the_loop_and_times_collections() -> None:
    monitor = LoopLagMonitor(interval=0.001)
    monitor.start()
    try:
        await asyncio.sleep(0.05)  # the monitor's 1 ms timer is due first: at least one sample
        assert monitor.samples >= 1
        assert len(monitor.lags) == monitor.samples
        assert monitor.max_lag == max(monitor.lags)
        gc.collect()
        assert monitor.max_gc_pause > 0.0
    finally:
        monitor.stop()
    assert monitor._on_gc not in gc.callbacks


async def test_counts_passes_by_generation() -> None:
    monitor = LoopLagMonitor(interval=1.0)
    monitor.start()
    try:
        monitor.reset()
        gc.collect(0)
        gc.collect(2)
        gc.collect(2)
        assert monitor.gc_passes[0] >= 1 and monitor.gc_passes[2] == 2
        assert monitor.gc_max_pause[2] > 0.0
        assert monitor.max_gc_pause == max(monitor.gc_max_pause)
    finally:
        monitor.stop()
