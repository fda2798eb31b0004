"""Multi-line: hold the line being written while the token limit may still cut it, so that a last line cut
off by the limit is dropped, never shown half.
"""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter
from .context import Setup


class LastLine(Filter):
    """Multi-line: hold the line being written (after the first) until it is complete, so that a last
    line cut off by the token limit (``finish(truncated=True)``) is dropped, never shown half.

    Only while the limit may still cut it: the pipeline sets :attr:`budget_left` (the model pieces
    the token limit still allows, None: unknown) before each feed, and a line that starts with more
    budget left than it can take (:meth:`margin`) streams as it comes. Holding every line cost one
    line's writing time on every line after the first (issue 29)."""

    # a line is assumed to take at most this many pieces, or as many as the longest line so far
    # has characters (a code token is 3-4 characters: a generous bound)
    MIN_MARGIN = 24

    def __init__(self) -> None:
        super().__init__()
        self._held = ""
        self._first = True
        self._passing = False  # the line being written streams (decided when it started)
        self._current = 0  # characters of the line being written
        self._longest = 0
        self.truncated = False
        self.budget_left: int | None = None

    def margin(self) -> int:
        return max(self.MIN_MARGIN, self._longest)

    def feed(self, text: str) -> str:
        out: list[str] = []
        pos = 0
        if self._first:
            nl = text.find("\n")
            if nl < 0:
                return text
            self._first = False
            self._longest = nl
            out.append(text[: nl + 1])
            pos = nl + 1
            self._begin()
        while True:
            nl = text.find("\n", pos)
            if nl < 0:
                break
            self._longest = max(self._longest, self._current + nl - pos)
            out.append(self._held)
            out.append(text[pos : nl + 1])
            self._held = ""
            pos = nl + 1
            self._begin()
        rest = text[pos:]
        self._current += len(rest)
        if self._passing:
            out.append(rest)
        else:
            self._held += rest
        return "".join(out)

    def _begin(self) -> None:
        """A new line starts: it streams when the limit cannot cut it, else it is held."""
        self._current = 0
        left = self.budget_left
        self._passing = left is not None and left > self.margin()

    def finish(self) -> str:
        self.done = True
        held, self._held = self._held, ""
        return "" if self.truncated else held


def build(setup: Setup) -> Iterator[Filter]:
    if setup.more_lines:
        yield LastLine()
