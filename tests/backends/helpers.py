"""Helpers for backend tests: read a backend's stream, cancel one, wait for the server to notice."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from jupyter_codecomplete.backends import Backend


async def collect(backend: Backend, prompt: Any, **bind: Any) -> str:
    model = backend.llm.bind(**bind) if bind else backend.llm
    parts = []
    async for piece in model.astream(prompt):
        parts.append(piece if isinstance(piece, str) else str(piece.content))
    return "".join(parts)


async def wait_for(pred: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll until ``pred()`` (a wait, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if pred():
            return True
        await asyncio.sleep(0.02)
    return pred()


async def cancel_after_first_chunk(backend: Backend, prompt: str, **bind: Any) -> str:
    """Start a stream, take one chunk, cancel the consuming task; returns what arrived."""
    got: list[str] = []
    first = asyncio.Event()

    async def consume() -> None:
        model = backend.llm.bind(**bind) if bind else backend.llm
        async for piece in model.astream(prompt):
            got.append(piece)
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 10)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return "".join(got)


async def aclose_backend(backend: Backend) -> None:
    await backend.aclose()
