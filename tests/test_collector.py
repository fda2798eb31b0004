"""Full garbage collections deferred to a calm event loop (``jupyter_codecomplete.collector``), and
the server's switch for it."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_codecomplete.collector import FullCollections


def busy(seconds: float) -> None:
    """Hold the event loop, as a long callback does."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    saved = gc.get_threshold()
    yield saved
    gc.set_threshold(*saved)


async def test_takes_over_full_passes_and_gives_them_back(thresholds: tuple[int, int, int]) -> None:
    full = FullCollections()
    full.start()
    try:
        assert gc.get_threshold()[:2] == thresholds[:2]
        assert gc.get_threshold()[2] > 1_000_000  # automatic full passes never come
    finally:
        full.stop()
    assert gc.get_threshold() == thresholds


async def test_a_due_pass_runs_once_the_loop_is_calm(thresholds: tuple[int, int, int]) -> None:
    full = FullCollections(check_every=0.01, calm_for=0.05, max_defer=60.0)
    full.start()
    try:
        gc.collect()  # nothing due
        for _ in range(thresholds[2]):
            gc.collect(1)
        assert full.due()
        for _ in range(100):
            await asyncio.sleep(0.01)
            if full.passes:
                break
        assert full.passes >= 1 and full.forced == 0
        assert gc.get_count()[2] < thresholds[2]
    finally:
        full.stop()


async def test_the_loop_is_watched_only_while_a_pass_is_due(thresholds: tuple[int, int, int]) -> None:
    full = FullCollections(check_every=0.01, calm_for=0.05, max_defer=60.0)
    full.start()
    try:
        gc.collect()
        await asyncio.sleep(0.05)
        assert not full.watching  # an idle server: nothing of the collector's wakes the loop
        for _ in range(thresholds[2]):
            gc.collect(1)
        assert full.watching  # told by the collector itself
        for _ in range(100):
            await asyncio.sleep(0.01)
            if full.passes and not full.watching:
                break
        assert full.passes == 1 and not full.watching
    finally:
        full.stop()


async def test_a_busy_loop_defers_then_forces(thresholds: tuple[int, int, int]) -> None:
    full = FullCollections(check_every=0.01, calm_lag=0.001, calm_for=10.0, max_defer=0.6)
    full.start()
    try:
        gc.collect()
        for _ in range(thresholds[2]):
            gc.collect(1)
        assert full.due()
        # keep the loop busy: every wake-up of the check is late, so the loop is never calm
        for _ in range(40):
            busy(0.005)
            await asyncio.sleep(0)
        assert full.passes == 0  # deferred while busy, max_defer not yet reached
        for _ in range(200):
            busy(0.005)
            await asyncio.sleep(0)
            if full.passes:
                break
        assert full.passes == 1 and full.forced == 1
    finally:
        full.stop()


@pytest.fixture
def codecomplete_config() -> dict[str, Any]:
    return {"defer_full_collections": True, "monitor_event_loop": True}


async def test_the_server_reports_its_deferred_passes(jp_fetch: Any) -> None:
    import json

    r = await jp_fetch("api", "codecomplete", "stats", params={"objects": "1"})
    data = json.loads(r.body)
    assert set(data["deferred_full_collections"]) == {"passes", "forced", "longest_ms"}
    assert len(data["gc_passes"]) == 3 and len(data["gc_max_pause_ms"]) == 3
    assert data["gc_tracked_objects"] > 0
