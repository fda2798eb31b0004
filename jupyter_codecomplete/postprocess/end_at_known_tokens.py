"""End at every model family's end tokens and remove their pad tokens, whatever style serves the model
(the tables are in :mod:`.tokens`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from .base import Filter, Held
from .context import Setup
from .tokens import END_TOKENS, PAD_TOKENS


@functools.lru_cache(maxsize=32)
def _compiled(
    ends: tuple[str, ...], pads: tuple[str, ...]
) -> tuple[re.Pattern[str], frozenset[str], frozenset[str], int]:
    tokens = sorted({*ends, *pads}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(t) for t in tokens))
    partials = frozenset(t[:k] for t in tokens for k in range(1, len(t)))
    return pattern, frozenset(ends), partials, max(len(t) for t in tokens)


class KnownTokens(Held):
    """End at the first end token; remove pad tokens. Cheap when the text has no ``<``."""

    def __init__(self, ends: tuple[str, ...] = END_TOKENS, pads: tuple[str, ...] = PAD_TOKENS) -> None:
        super().__init__()
        self._re, self._ends, self._partials, self._longest = _compiled(ends, pads)

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        buf = self._buf + text
        self._buf = ""
        if "<" not in buf:
            return buf
        out: list[str] = []
        pos = 0
        for m in self._re.finditer(buf):
            out.append(buf[pos : m.start()])
            if m.group() in self._ends:
                self.done = True
                return "".join(out)
            pos = m.end()
        rest = buf[pos:]
        i = rest.rfind("<", max(0, len(rest) - self._longest))
        if i >= 0 and rest[i:] in self._partials:
            self._buf = rest[i:]
            rest = rest[:i]
        out.append(rest)
        return "".join(out)


def build(setup: Setup) -> Iterator[Filter]:
    # a token the style names as a leftover is removed, not an end
    tokens = setup.tokens
    yield KnownTokens(
        tuple(t for t in END_TOKENS if t not in tokens), tuple(t for t in PAD_TOKENS if t not in tokens)
    )
