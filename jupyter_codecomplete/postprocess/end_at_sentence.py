"""Prose (Markdown): end after the first sentence."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter
from .context import Setup


class Sentence(Filter):
    """Prose: end after the first sentence (``.``, ``!`` or ``?`` followed by whitespace)."""

    ENDS = ".!?"

    def __init__(self) -> None:
        super().__init__()
        self._last = ""

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        prev = self._last
        for i, c in enumerate(text):
            if c.isspace() and prev in self.ENDS and prev:
                self.done = True
                return text[:i]
            prev = c
        if text:
            self._last = text[-1]
        return text


def build(setup: Setup) -> Iterator[Filter]:
    if setup.cursor.rules.prose:
        yield Sentence()
