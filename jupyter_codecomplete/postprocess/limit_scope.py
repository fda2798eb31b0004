"""Limit a multi-line suggestion to the block it started in (indentation, closing lines, cell markers)."""

from __future__ import annotations

from collections.abc import Iterator

from .base import CursorLines, Filter, Verdict
from .context import Setup
from .cursor import WORD, Cursor, indent_width
from .languages import LanguageRules
from .scanner import CLOSERS


class Scope(CursorLines):
    """Multi-line: end where the indentation returns to (or above) the block the completion started
    in. A closing line at the opener's indentation (``}``, ``)``, ``end``) is kept and ends it; a line
    that continues the statement (``else:``, ``} catch``) goes on. At column 0, after an indented
    block, a new top-level definition ends it; a notebook cell marker always ends it."""

    def __init__(self, cursor: Cursor, opener: int | None = -1) -> None:
        super().__init__(cursor.line, cursor.blank_line)
        self.rules: LanguageRules = cursor.rules
        self.opener = cursor.opener_indent if opener == -1 else opener
        self._words = (*self.rules.continuation_words, *self.rules.closer_words)
        self._seen_block = False
        # string state at the start of each line: a line inside a multi-line string is text (only
        # lines with a multi-line string's delimiter can change it)
        self._scanner = cursor.scanner.copy()
        self._ml_delims = tuple(d.delim for d in self.rules.strings if d.multiline)
        self._brace_seen = False
        self.bracket_indent = cursor.bracket_indent

    def _maybe_marker(self, stripped: str) -> bool:
        return any(stripped.startswith(c) or c.startswith(stripped) for c in self.rules.line_comments)

    def judge_line(self, line: str, stripped: str, index: int, complete: bool) -> Verdict:
        width = indent_width(line)
        marker = self.rules.stop_line_re
        if marker is not None and width == 0 and self._maybe_marker(stripped):
            if not complete:
                return Verdict.WAIT
            if marker.search(stripped):
                return Verdict.CUT
        if index == 0 or self._scanner.in_string:
            return Verdict.KEEP
        if self.opener is not None and width <= self.opener:
            return self._at_opener_level(stripped, width, complete)
        top = self.rules.top_level_re
        if top is not None and width == 0 and self._seen_block:
            if not complete:
                return Verdict.WAIT
            return Verdict.CUT if top.search(stripped) else Verdict.KEEP
        return Verdict.KEEP

    def _at_opener_level(self, stripped: str, width: int, complete: bool) -> Verdict:
        same = width == self.opener
        if same and self.rules.brace_lines and stripped.startswith("{") and not self._brace_seen:
            # Allman style: the body's opening brace on a line of its own
            if not complete:
                return Verdict.WAIT
            if stripped.rstrip() == "{":
                self._brace_seen = True
                return Verdict.KEEP
        if stripped[0] in CLOSERS:
            if not complete:
                return Verdict.WAIT
            if not same and width == self.bracket_indent:
                return Verdict.KEEP_END  # closes the bracket the cursor is in
            if not same:
                return Verdict.CUT
            m = WORD.match(stripped.lstrip(CLOSERS).lstrip())
            if m and m.group(0) in self.rules.continuation_words:
                return Verdict.KEEP
            return Verdict.KEEP_END
        if not same or not self._words:
            return Verdict.CUT
        m = WORD.match(stripped)
        if m is None:
            return Verdict.CUT
        word = m.group(0)
        if m.end() == len(stripped) and not complete:
            return Verdict.WAIT if any(w.startswith(word) for w in self._words) else Verdict.CUT
        if word in self.rules.continuation_words:
            return Verdict.KEEP
        if word in self.rules.closer_words:
            return Verdict.KEEP_END
        return Verdict.CUT

    def line_done(self, line: str, index: int) -> None:
        if self._scanner.in_string or self._scanner.comment_end or any(d in line for d in self._ml_delims):
            self._scanner.scan(line + "\n")
        if index == 0:
            line = self.cursor_line + line if self.blank_cursor else self.cursor_line
        if line.strip() and indent_width(line) > 0:
            self._seen_block = True


def build(setup: Setup) -> Iterator[Filter]:
    if setup.cursor.multiline:
        yield Scope(setup.cursor)
