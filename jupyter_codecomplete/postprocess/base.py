"""The stream-filter contract and the helpers the filters share.

A :class:`Filter` receives text deltas and returns text deltas that are *final*: what it returns is
never taken back. It holds back whatever it cannot decide yet. ``done`` becomes True when the filter
knows the suggestion has ended (everything it will ever return has been returned).

Helpers: :class:`Held` (a filter that holds a tail it may still change), :class:`AtStart` (one that
decides on the start of the output, then passes text through), :class:`LineFilter` (one that decides
line by line) and :class:`CursorLines` (a line filter whose first line continues the cursor's line).
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


def partial_tail(buf: str, needle: str) -> int:
    """Length of the longest proper prefix of ``needle`` that ``buf`` ends with."""
    k = len(needle) - 1
    if k <= 0 or not buf:
        return 0
    first = needle[0]
    i = buf.find(first, max(0, len(buf) - k))
    while i >= 0:
        if needle.startswith(buf[i:]):
            return len(buf) - i
        i = buf.find(first, i + 1)
    return 0


class Held(Filter):
    """A "text" filter that holds back a tail it may still change (``_buf``: a possible start of a
    token or stop sequence); the end of the stream releases it, unless the filter has ended."""

    stage = "text"

    def __init__(self) -> None:
        super().__init__()
        self._buf = ""

    def finish(self) -> str:
        if self.done:
            return ""
        self.done = True
        out, self._buf = self._buf, ""
        return out


class AtStart(Filter):
    """A "text" filter that decides on the start of the output, holding it while it cannot decide,
    and passes the rest through unchanged.

    Subclasses implement :meth:`start` (the held start so far -> the text to pass on, or None: still
    undecided) and :meth:`end` (the decision on what is held when the stream ends)."""

    stage = "text"

    def __init__(self, decided: bool = False) -> None:
        super().__init__()
        self._buf = ""
        self._decided = decided

    def start(self, buf: str) -> str | None:  # pragma: no cover - interface
        raise NotImplementedError

    def end(self, buf: str) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def feed(self, text: str) -> str:
        if self._decided:
            return text
        buf = self._buf + text
        out = self.start(buf)
        if out is None:
            self._buf = buf
            return ""
        self._decided, self._buf = True, ""
        return out

    def finish(self) -> str:
        self.done = True
        if self._decided:
            return ""
        buf, self._buf, self._decided = self._buf, "", True
        return self.end(buf)


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


class CursorLines(LineFilter):
    """A line filter whose line 0 continues the cursor's line: on a blank cursor line (only
    indentation) line 0 is judged with that indentation in front, else it is kept; a blank line is
    kept once complete. Subclasses implement :meth:`judge_line` for the lines with text."""

    def __init__(self, cursor_line: str, blank_cursor: bool) -> None:
        super().__init__()
        self.cursor_line = cursor_line
        self.blank_cursor = blank_cursor

    def judge_line(self, line: str, stripped: str, index: int, complete: bool) -> Verdict:
        raise NotImplementedError  # pragma: no cover - interface

    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        if index == 0:
            if not self.blank_cursor:
                return Verdict.KEEP
            line = self.cursor_line + line
        stripped = line.strip()
        if not stripped:
            return Verdict.KEEP if complete else Verdict.WAIT
        return self.judge_line(line, stripped, index, complete)
