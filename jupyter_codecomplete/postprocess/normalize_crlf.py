"""Normalize ``\r\n`` to ``\n`` for the filters after it (also when a pair is split across chunks)."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter
from .context import Setup


class CrlfNormalize(Filter):
    """``\\r\\n`` -> ``\\n`` (the other filters work on ``\\n``; :class:`LineEnding` restores it)."""

    stage = "text"

    def __init__(self) -> None:
        super().__init__()
        self._cr = False

    def feed(self, text: str) -> str:
        if self._cr:
            text = "\r" + text
            self._cr = False
        if text.endswith("\r"):
            self._cr = True
            text = text[:-1]
        return text.replace("\r\n", "\n")

    def finish(self) -> str:
        self.done = True
        out = "\r" if self._cr else ""
        self._cr = False
        return out


def build(setup: Setup) -> Iterator[Filter]:
    yield CrlfNormalize()
