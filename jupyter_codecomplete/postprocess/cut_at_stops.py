"""Cut the output at the first stop sequence (the prompt style's and the request's), matched across chunks."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter, Held, partial_tail
from .context import Setup
from .cursor import normalize_newlines


class StopSequences(Held):
    """Cut at the first occurrence of any stop sequence, matched across chunk boundaries."""

    def __init__(self, stops: list[str]) -> None:
        super().__init__()
        self.stops = [s for s in dict.fromkeys(stops) if s]

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        buf = self._buf + text
        cut = -1
        for s in self.stops:
            i = buf.find(s)
            if i >= 0 and (cut < 0 or i < cut):
                cut = i
        if cut >= 0:
            self.done = True
            self._buf = ""
            return buf[:cut]
        hold = 0
        for s in self.stops:
            k = partial_tail(buf, s)
            if k > hold:
                hold = k
        self._buf = buf[len(buf) - hold :] if hold else ""
        return buf[: len(buf) - hold]


def build(setup: Setup) -> Iterator[Filter]:
    stops = [normalize_newlines(s) for s in setup.ctx.stop if s]
    if stops:
        yield StopSequences(stops)
