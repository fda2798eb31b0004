"""Back-off for a model server that says it is saturated: one state per server, per process.

A shared model service answers ``429`` (a gateway's rate limit: the LiteLLM proxy's per-key
``rpm_limit``, OpenAI's limits) or ``503`` (every replica busy) with ``Retry-After`` and often the
OpenAI-style rate-limit headers (``x-ratelimit-remaining-requests``,
``x-ratelimit-reset-requests``; LiteLLM's proxy sends the same names). Sending the next keystroke's
request anyway only adds to the queue and gets the same answer, once per keystroke per tab.

:data:`PRESSURE` is the one record in the server process of which servers asked for a pause and
until when; every backend, every socket and every tab of the user reads it
(``HttpTransport.events``): while a server's pause runs, a request to it is answered at once with a
``model_busy`` error carrying the seconds left, and nothing is sent upstream. The pause is
bounded (:data:`MAX_PAUSE`), and without a header that says how long it grows from
:data:`FIRST_PAUSE` by doubling while the server keeps refusing, and is forgotten after an answer.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..errors import parse_retry_after

# Statuses that mean "saturated, ask again later" (not: this request is wrong).
BUSY_STATUSES = frozenset({429, 503})
# Seconds of the first pause when the server does not say how long; it doubles up to MAX_PAUSE.
FIRST_PAUSE = 1.0
# The longest pause honoured (a header asking for an hour is read as this).
MAX_PAUSE = 120.0
# How many servers are remembered at most (the oldest pause goes first).
MAX_SERVERS = 256

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_reset(value: str | None, now: float | None = None) -> float | None:
    """Seconds until a rate limit resets, from ``x-ratelimit-reset-*``: OpenAI's durations
    (``1s``, ``6m0s``, ``20ms``), plain seconds, or a Unix time (LiteLLM sends seconds or a time)."""
    if not value:
        return None
    value = value.strip()
    try:
        number = float(value)
    except ValueError:
        parts = _DURATION.findall(value)
        if not parts or "".join(n + u for n, u in parts) != value:
            return None
        return sum(float(n) * _UNIT[u] for n, u in parts)
    if number > 1e9:  # a Unix time
        return max(0.0, number - (time.time() if now is None else now))
    return max(0.0, number)


def pause_from(headers: Mapping[str, str], status: int) -> float | None:
    """How long the server asks to wait: ``Retry-After`` (seconds or a date), ``retry-after-ms``,
    else, when the request budget is spent (a busy status, or ``x-ratelimit-remaining-requests:
    0``), the reset of the requests' (or the tokens') limit. None: it does not say."""
    found = parse_retry_after(headers.get("retry-after"))
    if found is not None:
        return found
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    spent = status in BUSY_STATUSES
    for budget, reset in (
        ("x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"),
        ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
    ):
        remaining = (headers.get(budget) or "").strip()
        if spent or remaining in ("0", "0.0"):
            seconds = parse_reset(headers.get(reset))
            if seconds is not None:
                return seconds
    return None


@dataclass
class _Pause:
    until: float
    length: float
    status: int


class ServerPressure:
    """Which model servers asked for a pause, until when (monotonic clock); thread-safe (the
    sync faces of the engine run on a loop of their own)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._pauses: dict[str, _Pause] = {}
        self._lock = threading.Lock()

    def held(self, server: str) -> float | None:
        """Seconds left of ``server``'s pause (None: none runs)."""
        with self._lock:
            pause = self._pauses.get(server)
            if pause is None:
                return None
            left = pause.until - self._clock()
            return left if left > 0 else None

    def refused(self, server: str, status: int, headers: Mapping[str, str]) -> float | None:
        """``server`` answered a busy ``status`` with ``headers``: start (or lengthen) its pause;
        the seconds it lasts. A ``503`` that does not say when to ask again is a server that is
        down, not saturated: no pause (None; the engine reports the model not ready)."""
        asked = pause_from(headers, status)
        if asked is None and status != 429:
            return None
        with self._lock:
            before = self._pauses.get(server)
            if asked is None:
                asked = FIRST_PAUSE if before is None else before.length * 2
            length = min(MAX_PAUSE, max(0.0, asked))
            until = self._clock() + length
            if before is not None and before.until > until:
                until, length = before.until, max(length, before.length)
            self._pauses[server] = _Pause(until, length, status)
            while len(self._pauses) > MAX_SERVERS:
                self._pauses.pop(next(iter(self._pauses)))
            return length

    def answered(self, server: str, headers: Mapping[str, str]) -> None:
        """``server`` answered: its pause is over, unless the answer says the budget is spent
        (``x-ratelimit-remaining-requests: 0`` with a reset), which starts one."""
        asked = pause_from(headers, 200)
        with self._lock:
            if asked is None or asked <= 0:
                self._pauses.pop(server, None)
                return
            length = min(MAX_PAUSE, asked)
            self._pauses[server] = _Pause(self._clock() + length, length, 200)

    def clear(self) -> None:
        """Forget every pause (tests)."""
        with self._lock:
            self._pauses.clear()


# The one record of the server process.
PRESSURE = ServerPressure()
