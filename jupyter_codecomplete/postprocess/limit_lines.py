"""Limit the number of lines: single-line mode ends at the first newline; ``max_lines`` caps a
multi-line suggestion."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter, LineFilter, Verdict
from .context import Setup


class LineLimit(LineFilter):
    """Keep at most ``limit`` lines (1: single-line mode ends at the first newline)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        return Verdict.CUT if index >= self.limit else Verdict.KEEP


def build(setup: Setup) -> Iterator[Filter]:
    cursor, max_lines = setup.cursor, setup.ctx.max_lines
    if not cursor.eol and not cursor.multiline:  # (at the end of a line, ``FirstLines`` decides)
        yield LineLimit(1)
    if max_lines is not None and setup.more_lines:
        yield LineLimit(max(1, max_lines))
