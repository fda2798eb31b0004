"""Strip the whitespace that token healing moved out of the prompt from the start of the output."""

from __future__ import annotations

from collections.abc import Iterator

from .base import AtStart, Filter
from .context import Setup
from .cursor import normalize_newlines


class Heal(AtStart):
    """Strip the healed whitespace from the start of the output (or the part of it that is there)."""

    def __init__(self, heal: str) -> None:
        super().__init__(decided=not heal)
        self.heal = heal

    def start(self, buf: str) -> str | None:
        if len(buf) < len(self.heal) and self.heal.startswith(buf):
            return None
        return self.end(buf)

    def end(self, buf: str) -> str:
        k = 0
        for a, b in zip(buf, self.heal, strict=False):
            if a != b:
                break
            k += 1
        return buf[k:]


def build(setup: Setup) -> Iterator[Filter]:
    if setup.ctx.heal:
        yield Heal(normalize_newlines(setup.ctx.heal))
