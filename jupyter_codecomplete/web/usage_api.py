"""``GET api/codecomplete/usage``: what became of the suggestions (the store's aggregates), and
``GET api/codecomplete/usage/gate``: the restraint learned from them.

(``api/codecomplete/stats`` is the server's own health: event-loop lag, tasks, memory.)
Query: ``days`` (only events of the last N days), ``level`` (the gate's: off, more, normal, less).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..usage import gate, summarize
from .base import CodeCompleteHandler, refusal
from .replies import GateModel, UsageSummary, reply

LEVELS = ("off", "more", "normal", "less")


class _UsageBase(CodeCompleteHandler):
    def since_ms(self) -> float | None:
        """The ``days`` argument as a start time (ms); 400 when it is not a number of days."""
        days = self.get_argument("days", "")
        if not days:
            return None
        try:
            value = float(days)
            if not 0 < value <= 100_000:
                raise ValueError
        except ValueError:
            raise refusal(
                400, "bad_request", f"days must be a number of days above 0, not {days[:40]!r}."
            ) from None
        return (time.time() - value * 86400) * 1000

    async def query(self, fn: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> dict[str, Any]:
        """``fn`` of the stored rows, computed on the store's thread."""
        since = self.since_ms()
        store = self.app.usage_store
        if store is None:
            return fn([])
        return await store.query(fn, since)

    def recording(self) -> dict[str, Any]:
        store = self.app.usage_store
        return {
            "recording": store is not None,
            "path": None if store is None else store.path,
            "problem": None if store is None else store.problem,
        }


class UsageHandler(_UsageBase):
    route = "usage"

    async def get(self) -> None:
        summary = await self.query(summarize)  # first: the query may find the store broken
        self.finish(reply(UsageSummary, {**self.recording(), **summary}))


class GateHandler(_UsageBase):
    route = "usage/gate"

    async def get(self) -> None:
        level = self.get_argument("level", "normal")
        if level not in LEVELS:
            raise refusal(
                400, "bad_request", f"level must be one of {', '.join(LEVELS)}, not {level[:40]!r}."
            )
        self.finish(reply(GateModel, await self.query(lambda rows: gate.learn(rows, level))))  # type: ignore[arg-type]  # in LEVELS
