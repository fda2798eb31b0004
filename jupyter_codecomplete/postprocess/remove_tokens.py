"""Remove the leftover tokens a prompt style names (``<|file_sep|>``, ``<EOT>``) wherever they appear."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter, Held, partial_tail
from .context import Setup


class LeftoverTokens(Held):
    """Remove model-specific leftover tokens (``<|file_sep|>``, ``<EOT>``) wherever they appear."""

    def __init__(self, tokens: list[str]) -> None:
        super().__init__()
        self.tokens = sorted((t for t in dict.fromkeys(tokens) if t), key=len, reverse=True)

    def feed(self, text: str) -> str:
        buf = self._buf + text
        for t in self.tokens:
            if t in buf:
                buf = buf.replace(t, "")
        hold = 0
        for t in self.tokens:
            hold = max(hold, partial_tail(buf, t))
        self._buf = buf[len(buf) - hold :] if hold else ""
        return buf[: len(buf) - hold]


def build(setup: Setup) -> Iterator[Filter]:
    if setup.tokens:
        yield LeftoverTokens(setup.tokens)
