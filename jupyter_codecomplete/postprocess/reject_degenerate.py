"""Degenerate output becomes no suggestion (used while the bundled demo model serves).

A tiny model loops: the same name over and over, runs of numbers or hex, lines of punctuation.
Accepting that with one Tab fills a cell with garbage, so :class:`Degenerate` holds the suggestion
back until it is complete (the demo model answers in milliseconds, and its suggestions are one line)
and lets it through only when :func:`is_degenerate` says no. It is a whole-text judgement, so it
never takes anything back: what it returns is final.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from .base import Filter
from .context import Setup

# identifiers (a letter or underscore first), numbers (decimal, hex, floats), any other symbol
_TOKEN = re.compile(r"[A-Za-z_]\w*|0[xX][0-9a-fA-F]+|\d[\d_.eE]*|[^\w\s]")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|\d[\d_.eE]*")
# a long run of hex digits or digits inside one token (``deadbeefdeadbeef``, ``0000000000000``)
_LONG_RUN = re.compile(r"\b(?:0[xX])?[0-9a-fA-F]{16,}\b")
# the longest text judged whole; past it the suggestion is judged on this much
_MAX_JUDGED = 4096


def is_degenerate(text: str) -> bool:
    """True for output no one would accept: the same identifier repeated, runs of numbers or hex
    digits, or nothing but punctuation. Short closers (``)``, ``):``, ``]``) are not degenerate."""
    text = text[:_MAX_JUDGED]
    stripped = text.strip()
    if not stripped:
        return False
    tokens = _TOKEN.findall(stripped)
    if not any(ch.isalnum() for ch in stripped):
        # nothing but punctuation: a closer or two is fine, a line of it is not
        return len(stripped.replace(" ", "")) > 3
    names = [t for t in tokens if t[0].isalpha() or t[0] == "_"]
    if len(names) >= 3:
        _, top = Counter(names).most_common(1)[0]
        if top >= 3 and top * 2 >= len(names) + 1:
            return True
    numbers = [t for t in tokens if _NUMBER.fullmatch(t)]
    words = [t for t in tokens if t[0].isalnum() or t[0] == "_"]
    if len(numbers) >= 4 and len(numbers) * 10 >= len(words) * 6:
        return True
    return bool(_LONG_RUN.search(stripped)) and not stripped.startswith(("#", '"', "'"))


class Degenerate(Filter):
    """Hold the whole suggestion; at its end, return it unless it is degenerate."""

    def __init__(self) -> None:
        super().__init__()
        self._held: list[str] = []

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        self._held.append(text)
        return ""

    def finish(self) -> str:
        if self.done:
            return ""
        self.done = True
        text = "".join(self._held)
        self._held = []
        return "" if is_degenerate(text) else text


def build(setup: Setup) -> Iterator[Filter]:
    if setup.ctx.reject_degenerate:
        yield Degenerate()
