"""The stream-filter contract and a helper for filters that decide per line.

A :class:`Filter` receives text deltas and returns text deltas that are *final*: what it returns is
never taken back. It holds back whatever it cannot decide yet. ``done`` becomes True when the filter
knows the suggestion has ended (everything it will ever return has been returned).
"""

from __future__ import annotations

import enum


class Filter:
    """Base class: ``feed(text) -> str`` (final text), ``finish() -> str`` (end of stream), ``done``.

    ``stage``: ``"text"`` filters clean the model's text (tokens, stops, fences, echo): their output
    is the code the model wrote; ``"shape"`` filters decide where the suggestion ends; ``"post"``
    filters rewrite the result (line endings). The syntax guard works between them.
    """

    stage = "shape"

    def __init__(self) -> None:
        self.done = False
        # ended for good: what the model wrote after the end is not wanted, even where the cut
        # leaves the code unfinished (a runaway): the syntax guard does not extend through it
        self.final = False

    def feed(self, text: str) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def finish(self) -> str:
        self.done = True
        return ""


class Verdict(enum.Enum):
    WAIT = 0  # undecided: hold the line
    KEEP = 1  # the line belongs to the suggestion: stream it
    CUT = 2  # the suggestion ends before this line
    KEEP_END = 3  # keep this line, then end (a block's closing line)


class LineFilter(Filter):
    """A filter that decides line by line.

    Subclasses implement :meth:`judge`, called with the current line (without its newline) as it
    grows (``complete=False``) and once more when it is complete, until it returns something other
    than WAIT. Line 0 is the text before the first newline (it continues the cursor's line).
    """

    def __init__(self) -> None:
        super().__init__()
        self._line = ""
        self._index = 0
        self._state = Verdict.WAIT
        self._started = False

    def judge(self, line: str, index: int, complete: bool) -> Verdict:  # pragma: no cover
        raise NotImplementedError

    def line_done(self, line: str, index: int) -> None:
        """Hook: a kept line is complete."""

    def _decide(self, complete: bool, out: list[str]) -> bool:
        """Judge the current line; returns False when the suggestion ends here."""
        v = self.judge(self._line, self._index, complete)
        if v is Verdict.WAIT and complete:
            v = Verdict.KEEP
        if v is Verdict.CUT:
            self.done = True
            return False
        if v is not Verdict.WAIT:
            self._state = v
            out.append(self._line)
        return True

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        out: list[str] = []
        if not self._started:
            self._started = True
            if not self._decide(False, out):
                return ""
        pos, n = 0, len(text)
        while pos < n:
            nl = text.find("\n", pos)
            end = n if nl < 0 else nl
            piece = text[pos:end]
            self._line += piece
            if self._state is Verdict.WAIT:
                if piece and not self._decide(False, out):
                    return "".join(out)
            else:
                out.append(piece)
            if nl < 0:
                break
            pos = nl + 1
            if self._state is Verdict.WAIT and not self._decide(True, out):
                return "".join(out)
            if self._state is Verdict.KEEP_END:
                self.done = True
                return "".join(out)
            out.append("\n")
            self.line_done(self._line, self._index)
            self._line = ""
            self._index += 1
            self._state = Verdict.WAIT
            if not self._decide(False, out):
                return "".join(out)
        return "".join(out)

    def finish(self) -> str:
        if self.done:
            return ""
        out: list[str] = []
        if self._state is Verdict.WAIT and (self._line or self._index > 0):
            self._decide(True, out)
        self.done = True
        return "".join(out)
