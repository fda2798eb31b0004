"""Strip markdown code fences: an opening fence is dropped, a closing fence ends the suggestion."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter, LineFilter, Verdict
from .context import Setup

FENCE = "```"


class _ClosingFence(LineFilter):
    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        s = line.lstrip()
        if s.startswith(FENCE):
            return Verdict.CUT
        if FENCE.startswith(s) and not complete:
            return Verdict.WAIT
        return Verdict.KEEP


class Fences(Filter):
    """Drop an opening markdown fence (with or without a language) before the code, with the blank
    lines before it; a closing fence ends the suggestion (and drops whatever follows it)."""

    stage = "text"

    def __init__(self) -> None:
        super().__init__()
        self._buf = ""
        self._opening = True
        self._body = _ClosingFence()

    def feed(self, text: str) -> str:
        if not self._opening:
            out = self._body.feed(text)
            self.done = self._body.done
            return out
        buf = self._buf + text
        s = buf.lstrip()
        if s.startswith(FENCE):
            nl = s.find("\n")
            if nl < 0:
                self._buf = buf
                return ""
            self._opening = False
            self._buf = ""
            return self.feed(s[nl + 1 :])
        if not s or FENCE.startswith(s):
            self._buf = buf
            return ""
        self._opening = False
        self._buf = ""
        return self.feed(buf)

    def finish(self) -> str:
        if self.done:
            return ""
        out = ""
        if self._opening:
            self._opening = False
            if not self._buf.lstrip().startswith(FENCE):
                out = self._body.feed(self._buf)
        out += self._body.finish()
        self.done = True
        return out


def build(setup: Setup) -> Iterator[Filter]:
    if setup.cursor.rules.fences:
        yield Fences()
