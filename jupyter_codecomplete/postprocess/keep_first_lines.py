"""The shape of a suggestion at the end of an ordinary line: one line, unless that line opens a block.

At the end of a line that does not open a block, the suggestion is single-line: the rest of the
cursor's line, or, when the output starts with a newline (Go, YAML, C, Scala, F#), the next line.
When that line opens a block (``{``, Python ``:``, ``do``, ``then``, ``begin``, or a ``{`` on the
next line in Allman style), a dangling opener is useless: the suggestion is the block, ended by
:class:`~.limit_scope.Scope` rules at the indentation of the line that opened it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from .base import Filter, LineFilter, Verdict
from .context import Setup
from .cursor import Cursor, indent_width, opens_block
from .limit_scope import Scope


class FirstLines(LineFilter):
    """Single line at the end of an ordinary line; the whole block when that line opens one."""

    def __init__(self, cursor: Cursor) -> None:
        super().__init__()
        self.cursor = cursor
        self.rules = cursor.rules
        self._scanner = cursor.scanner.copy()
        self._depth = cursor.line_depth
        self._mode = "lead"  # lead: no content yet; after: one line, no block; block: a block
        self._first_indent = 0
        self._scope: Scope | None = None

    def _open(self, indent: int) -> None:
        self._mode = "block"
        self._scope = Scope(replace(self.cursor, blank_line=False, scanner=self._scanner), opener=indent)

    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        if self._mode == "lead":
            if index == 0 or not line.strip():
                return Verdict.KEEP if complete or index == 0 else Verdict.WAIT
            return Verdict.KEEP  # the first line of content: decided when it is complete
        if self._mode == "block":
            assert self._scope is not None
            return self._scope.judge(line, index, complete)
        # one line was given and it does not open a block: only an Allman brace continues
        stripped = line.strip()
        if self.rules.brace_lines and indent_width(line) == self._first_indent and stripped in ("", "{"):
            if not complete:
                return Verdict.WAIT
            if stripped == "{":
                self._open(self._first_indent)
                assert self._scope is not None
                return self._scope.judge(line, index, complete)
        return Verdict.CUT

    def line_done(self, line: str, index: int) -> None:
        if self._mode == "block":
            assert self._scope is not None
            self._scope.line_done(line, index)
            return
        depth = self._depth if index == 0 else len(self._scanner.stack)
        self._scanner.scan(line)
        opened = False
        if self._mode == "lead":
            full = self.cursor.line + line if index == 0 else line
            if full.strip() and (index > 0 or line.strip()):
                self._first_indent = indent_width(full)
                opened = opens_block(self.rules, full, depth, self._scanner)
                self._mode = "after"
        self._scanner.scan("\n")
        if opened:
            self._open(self._first_indent)


def build(setup: Setup) -> Iterator[Filter]:
    if setup.cursor.eol:
        yield FirstLines(setup.cursor)
