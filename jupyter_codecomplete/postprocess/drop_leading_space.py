"""Drop the output's leading spaces when the prefix already ends with one (no double space)."""

from __future__ import annotations

from collections.abc import Iterator

from .base import AtStart, Filter
from .context import Setup


class LeadingSpace(AtStart):
    """The prefix ends with a space: drop the spaces the output starts with (no double space)."""

    def start(self, buf: str) -> str | None:
        return buf.lstrip(" \t") or None

    def end(self, buf: str) -> str:
        return ""  # only spaces were held


def build(setup: Setup) -> Iterator[Filter]:
    line = setup.cursor.line
    if line.strip() and line[-1:] in (" ", "\t") and not setup.cursor.scanner.in_string:
        yield LeadingSpace()
