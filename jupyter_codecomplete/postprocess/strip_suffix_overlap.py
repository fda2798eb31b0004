"""Strip the end of the first line where it repeats the rest of the cursor's line (an auto-closed
``)``); the suggestion ends there."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter
from .context import Setup
from .scanner import Scanner


class SuffixOverlap(Filter):
    """Within the cursor's line: when the first line ends with (the start of) the text after the
    cursor, e.g. a ``)`` the editor already auto-closed, strip that part; the suggestion ends there.

    An overlap counts when it is the whole rest of the line, or holds at least two non-space
    characters, and only if the text before it leaves the brackets/strings as they were at the cursor.
    """

    def __init__(self, rest: str, scanner: Scanner) -> None:
        super().__init__()
        self.rest = rest.rstrip()
        self._scanner = scanner
        self._sig = scanner.signature()
        self._line = ""
        self._emitted = 0
        self._active = bool(self.rest)

    def _longest_tail(self, c0: str) -> int:
        for k in range(min(len(self.rest), len(c0)), 0, -1):
            if c0.endswith(self.rest[:k]):
                return k
        return 0

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        if not self._active:
            return text
        nl = text.find("\n")
        if nl < 0:
            self._line += text
            c0 = self._line.rstrip()
            hold_start = max(self._emitted, len(c0) - self._longest_tail(c0))
            out = self._line[self._emitted : hold_start]
            self._emitted = hold_start
            return out
        self._line += text[:nl]
        out = self._close_line()
        return out if self.done else out + text[nl:]

    def _valid(self, c0: str, k: int) -> bool:
        part = self.rest[:k]
        if k < len(self.rest) and sum(not c.isspace() for c in part) < 2:
            return False
        probe = self._scanner.copy()
        probe.scan(c0[: len(c0) - k])
        return probe.signature() == self._sig

    def _close_line(self) -> str:
        self._active = False
        c0 = self._line.rstrip()
        for k in range(min(len(self.rest), len(c0)), 0, -1):
            if c0.endswith(self.rest[:k]) and self._valid(c0, k):
                self.done = True
                return c0[self._emitted : len(c0) - k]
        return self._line[self._emitted :]

    def finish(self) -> str:
        if self.done:
            return ""
        out = self._close_line() if self._active else ""
        self.done = True
        return out


def build(setup: Setup) -> Iterator[Filter]:
    cursor = setup.cursor
    if cursor.rest.strip():
        yield SuffixOverlap(cursor.rest, cursor.scanner.copy())
