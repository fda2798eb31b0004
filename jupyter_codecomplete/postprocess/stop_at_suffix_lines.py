"""Stop before a line the document already has below the cursor (the suffix's next line, its closers)."""

from __future__ import annotations

from collections.abc import Iterator

from .base import CursorLines, Filter, Verdict
from .context import Setup
from .cursor import WORD, Cursor, indent_width
from .scanner import CLOSERS


class SuffixLines(CursorLines):
    """Multi-line: end before a line the document already has below the cursor: the next line of
    the suffix (exactly, or differing only in indentation or a trailing ``;``; where indentation
    matters, a different one only where it cannot be code of its own: deeper than the line before,
    which opens no block), a closing line the next
    line already holds (``}`` before ``} else {``, at the same indentation), a closing line that
    closes the block the suffix is still in (``}`` before ``\n  console.log(x);\n}``: the suffix's
    own ``}`` closes it), or the rest of the cursor's line (an auto-closed ``}``, ``};``) at the
    cursor line's indentation."""

    # how many suffix lines are looked at for the line that closes the next line's block
    SUFFIX_LINES = 200

    def __init__(self, cursor: Cursor) -> None:
        super().__init__(cursor.line, cursor.blank_line)
        self.exact = cursor.next_line.rstrip() if cursor.next_line.strip() else ""
        self.exact_norm = _norm(self.exact)
        self.exact_indent = indent_width(self.exact)
        self.loose = cursor.rest.strip()
        self.loose_indent = indent_width(cursor.line)
        self.indent_matters = cursor.rules.indent_matters
        self.closer_words = cursor.rules.closer_words
        self.opener_re = cursor.rules.opener_re
        self.block_closer_indent = self._suffix_block_closer(cursor.suffix)
        self._previous = cursor.line  # the last complete line (the cursor's, at first)

    def _suffix_block_closer(self, suffix: str) -> int | None:
        """The indentation of the closing line (``}``) that ends the block the suffix's next line is
        in, when the suffix has one before anything else leaves that block; else None."""
        if not self.exact or self.exact.lstrip()[:1] in CLOSERS:
            return None
        lines = suffix.split("\n", self.SUFFIX_LINES + 1)[1 : self.SUFFIX_LINES + 1]
        seen = False
        for line in lines:
            stripped = line.strip()
            if not stripped:
                continue
            if not seen:
                seen = line.rstrip() == self.exact
                continue
            width = indent_width(line)
            if width < self.exact_indent:
                return width if stripped[0] in CLOSERS else None
        return None

    def line_done(self, line: str, index: int) -> None:
        self._previous = (self.cursor_line + line) if index == 0 else line

    def _opens_block(self, line: str) -> bool:
        code = line.strip()
        return bool(self.opener_re and code and self.opener_re.search(code))

    def _repeats(self, r: str, s: str, index: int) -> bool:
        width = indent_width(r)
        if self.exact:
            if r == self.exact:
                return True
            n = _norm(s)
            if s[0] in CLOSERS or _first_word(s) in self.closer_words:
                # a closer repeats only the same closer at the same indentation (class: unclosed
                # blocks: an inner block's ``}`` is not the suffix's)
                if width == self.exact_indent and n and self.exact_norm.startswith(n):
                    return True
                # it closes the block the suffix goes on in (and closes itself further down)
                if s[0] in CLOSERS and width == self.block_closer_indent and width < self.exact_indent:
                    return True
            elif n == self.exact_norm:
                if width == self.exact_indent or not self.indent_matters:
                    return True
                previous = self._previous
                if width > indent_width(previous) and not self._opens_block(previous):
                    # deeper than the line before, which opens no block: not code of a block of
                    # its own, but the suffix's line again, indented anew
                    return True
        first = index > 0 or self.blank_cursor
        return bool(self.loose and first and _norm(s) == _norm(self.loose) and width == self.loose_indent)

    def judge_line(self, line: str, stripped: str, index: int, complete: bool) -> Verdict:
        r, s = line.rstrip(), stripped
        if complete:
            return Verdict.CUT if self._repeats(r, s, index) else Verdict.KEEP
        possible = bool(self.exact_norm) and self.exact_norm.startswith(_norm(s))
        possible = possible or (bool(self.loose) and self.loose.startswith(s))
        possible = possible or (self.block_closer_indent is not None and s[0] in CLOSERS)
        return Verdict.WAIT if possible else Verdict.KEEP


def _first_word(line: str) -> str:
    m = WORD.match(line)
    return m.group(0) if m else ""


def _norm(line: str) -> str:
    """A line compared without indentation and without a trailing ``;``."""
    return line.strip().rstrip(";").rstrip()


def build(setup: Setup) -> Iterator[Filter]:
    if setup.more_lines:
        yield SuffixLines(setup.cursor)
