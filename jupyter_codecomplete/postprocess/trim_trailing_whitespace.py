"""Trim trailing whitespace: held while the output streams, dropped at the end."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter
from .context import Setup

# a mid-line suggestion keeps its trailing space unless the rest of the line starts with one of these
NO_SPACE_BEFORE = frozenset(" \t)]},;:.")


class TrailingWhitespace(Filter):
    """Hold trailing whitespace; drop it at the end (so a whitespace-only suggestion is empty).

    ``keep_space``: a mid-line insertion before more text (``error, `` before ``message);``) keeps
    its trailing spaces (not newlines)."""

    def __init__(self, keep_space: bool = False) -> None:
        super().__init__()
        self._ws = ""
        self._keep_space = keep_space
        self._text = False

    def feed(self, text: str) -> str:
        buf = self._ws + text
        stripped = buf.rstrip()
        self._ws = buf[len(stripped) :]
        if stripped:
            self._text = True
        return stripped

    def finish(self) -> str:
        self.done = True
        ws, self._ws = self._ws, ""
        if self._keep_space and self._text and ws and not ws.strip(" \t"):
            return ws
        return ""


def build(setup: Setup) -> Iterator[Filter]:
    rest = setup.cursor.rest
    yield TrailingWhitespace(keep_space=bool(rest) and rest[0] not in NO_SPACE_BEFORE)
