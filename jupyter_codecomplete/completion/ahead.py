"""How many requests made ahead of the user (warm-ups, prefetches) may reach a shared model.

A model on this machine spends only this user's time on a warm-up; a shared one (a team's
service behind a router or gateway: ``Backend.shared``) spends accelerators everyone waits on.
:class:`AheadBudget` is the cap (``c.CodeCompleteApp.shared_ahead_per_minute``): at most so many
in any 60 seconds, per model, in this server process (one user's).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW = 60.0


class AheadBudget:
    """At most ``per_minute`` spends in any :data:`WINDOW` seconds per key (0: none; < 0: no cap)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._spent: dict[str, deque[float]] = {}

    @property
    def allows_any(self) -> bool:
        return self.per_minute != 0

    def spend(self, key: str) -> bool:
        """Spend one for ``key`` if the cap allows it now."""
        if self.per_minute < 0:
            return True
        if self.per_minute == 0:
            return False
        now = self._clock()
        times = self._spent.setdefault(key, deque())
        while times and now - times[0] >= WINDOW:
            times.popleft()
        if len(times) >= self.per_minute:
            return False
        times.append(now)
        return True
