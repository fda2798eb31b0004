"""Strip the prefix that the model echoed back at the start of its output (all of it or its last lines)."""

from __future__ import annotations

from collections.abc import Iterator

from .base import AtStart, Filter
from .context import Setup


class Echo(AtStart):
    """Strip the prefix echoed back at the start of the output: all of it or its last lines (the
    echo starts at the start of a prefix line and runs to the cursor)."""

    MAX_LINES = 200
    MAX_CHARS = 8000  # longer echoes (of a whole long file) are not looked for

    def __init__(self, prefix: str) -> None:
        cands: list[str] = []
        end = len(prefix)
        start = prefix.rfind("\n", 0, end) + 1
        while len(cands) < self.MAX_LINES and len(prefix) - start <= self.MAX_CHARS:
            tail = prefix[start:]
            if tail.strip():
                cands.append(tail)
            if start == 0:
                break
            start = prefix.rfind("\n", 0, start - 1) + 1
        super().__init__(decided=not cands)
        self._cands = cands

    def start(self, buf: str) -> str | None:
        self._cands = [c for c in self._cands if c.startswith(buf) or buf.startswith(c)]
        if any(len(c) > len(buf) for c in self._cands):
            return None
        return self.end(buf)

    def end(self, buf: str) -> str:
        k = max((len(c) for c in self._cands if buf.startswith(c)), default=0)
        self._cands = []
        return buf[k:]


def build(setup: Setup) -> Iterator[Filter]:
    if setup.prefix.strip():
        yield Echo(setup.prefix)
