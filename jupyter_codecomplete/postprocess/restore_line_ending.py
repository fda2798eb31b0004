"""Restore the document's line ending (``\n`` -> ``\r\n``) after the other filters."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter
from .context import Setup


class LineEnding(Filter):
    """``\\n`` -> the document's line ending."""

    stage = "post"

    def __init__(self, ending: str) -> None:
        super().__init__()
        self.ending = ending

    def feed(self, text: str) -> str:
        return text.replace("\n", self.ending)


def build(setup: Setup) -> Iterator[Filter]:
    ctx = setup.ctx
    ending = ctx.line_ending
    if ending is None:
        ending = "\r\n" if "\r\n" in ctx.prefix or "\r\n" in ctx.suffix else "\n"
    if ending != "\n":
        yield LineEnding(ending)
