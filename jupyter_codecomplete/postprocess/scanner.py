"""A small string- and comment-aware bracket scanner driven by :class:`LanguageRules`.

It keeps a stack of open frames: brackets ``( [ {`` and the delimiter of the string the text is in.
It is incremental: :meth:`Scanner.step` consumes one token of a growing buffer and says when it needs
more text to decide (a ``"`` that may be the start of ``\"\"\"``, a ``-`` that may start ``--``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .languages import LanguageRules

OPENERS = "([{"
CLOSERS = ")]}"
MATCH = {")": "(", "]": "[", "}": "{"}

# events
CLOSE = 1  # a frame was closed; payload: its stack index
UNMATCHED = 2  # a closing bracket with no matching open frame (state unchanged)
STATEMENT_END = 3  # the language's statement terminator at depth 0


@dataclass
class Scanner:
    rules: LanguageRules
    stack: list[str] = field(default_factory=list)
    opened_at: list[int] = field(default_factory=list)  # buffer offset where each frame was opened
    comment_end: str | None = None  # "\n" in a line comment, the end marker in a block comment
    comment_start: int = -1
    line_start: bool = True
    _code_re: re.Pattern[str] = field(init=False, repr=False)
    _string_res: dict[str, re.Pattern[str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        r = self.rules
        chars = set("()[]{}\n")
        for tok in (*r.line_comments, *(o for o, _ in r.block_comments), *(s.delim for s in r.strings)):
            chars.add(tok[0])
        for tok in r.opaque_line_starts:
            chars.add(tok[0])
        if r.statement_end:
            chars.add(r.statement_end[0])
        self._code_re = re.compile("[" + re.escape("".join(sorted(chars))) + "]")
        self._string_res = {}
        for s in r.strings:
            stops = s.delim[0] + r.escape + ("" if s.multiline else "\n")
            self._string_res[s.delim] = re.compile("[" + re.escape(stops) + "]")
        self._multiline = {s.delim: s.multiline for s in r.strings}
        toks: list[tuple[str, str, str]] = [("c", o, e) for o, e in r.block_comments]
        toks += [("c", t, "\n") for t in r.line_comments]
        toks += [("s", s.delim, s.delim) for s in r.strings]
        # longest first: a longer token wins, and a partial longer token waits for more text
        self._tokens = sorted(toks, key=lambda t: len(t[1]), reverse=True)

    def copy(self) -> Scanner:
        c = Scanner(self.rules)
        c.stack = list(self.stack)
        c.opened_at = list(self.opened_at)
        c.comment_end = self.comment_end
        c.comment_start = self.comment_start
        c.line_start = self.line_start
        return c

    @property
    def in_string(self) -> bool:
        return bool(self.stack) and self.stack[-1] not in OPENERS

    def signature(self) -> tuple[int, str | None, bool]:
        """What must match for two positions to be 'at the same place' in the bracket structure."""
        return (len(self.stack), self.comment_end, self.in_string)

    def _push(self, frame: str, at: int) -> None:
        self.stack.append(frame)
        self.opened_at.append(at)

    def _pop(self) -> int:
        self.opened_at.pop()
        self.stack.pop()
        return len(self.stack)

    def step(self, buf: str, pos: int, final: bool) -> tuple[int, int, int]:
        """Consume one token of ``buf`` at ``pos``: ``(new_pos, event, payload)``.

        ``new_pos == pos`` (and event 0) means: more text is needed to decide (only when not ``final``).
        On UNMATCHED the token is consumed but the state is unchanged.
        """
        n = len(buf)
        if self.comment_end is not None:
            end = self.comment_end
            if end == "\n":
                i = buf.find("\n", pos)
                if i < 0:
                    return n, 0, 0
                self.comment_end = None
                return i, 0, 0  # the newline itself is code
            i = buf.find(end, pos)
            if i >= 0:
                self.comment_end = None
                return i + len(end), 0, 0
            keep = 0 if final else len(end) - 1
            return max(pos, n - keep), 0, 0
        if self.in_string:
            delim = self.stack[-1]
            m = self._string_res[delim].search(buf, pos)
            if m is None:
                return n, 0, 0
            i = m.start()
            c = buf[i]
            if c == "\n" and not self._multiline[delim]:
                self._pop()  # unterminated single-line string
                return i, 0, 0
            if self.rules.escape and c == self.rules.escape:
                if i + 1 < n:
                    return i + 2, 0, 0
                return (n, 0, 0) if final else (i if i > pos else pos, 0, 0)
            if buf.startswith(delim, i):
                return i + len(delim), CLOSE, self._pop()
            if not final and delim.startswith(buf[i:]):
                return i, 0, 0
            return i + 1, 0, 0
        m = self._code_re.search(buf, pos)
        if m is None:
            if self.line_start and not buf[pos:].isspace():
                self.line_start = False
            return n, 0, 0
        i = m.start()
        if i > pos:
            if self.line_start and not buf[pos:i].isspace():
                self.line_start = False
            return i, 0, 0
        c = buf[i]
        if c == "\n":
            self.line_start = True
            return i + 1, 0, 0
        r = self.rules
        if self.line_start:
            for tok in r.opaque_line_starts:
                if buf.startswith(tok, i):
                    self.comment_end = "\n"
                    self.comment_start = i
                    return i + len(tok), 0, 0
        self.line_start = False
        if c in OPENERS:
            self._push(c, i)
            return i + 1, 0, 0
        if c in CLOSERS:
            if self.stack and self.stack[-1] == MATCH[c]:
                return i + 1, CLOSE, self._pop()
            return i + 1, UNMATCHED, 0
        for kind, tok, close in self._tokens:
            if buf.startswith(tok, i):
                if kind == "s":
                    self._push(tok, i)
                else:
                    self.comment_end = close
                    self.comment_start = i
                return i + len(tok), 0, 0
            if not final and tok.startswith(buf[i:]):
                return pos, 0, 0  # e.g. '"' at the end of the buffer may start '"""'
        if r.statement_end and buf.startswith(r.statement_end, i) and not self.stack:
            return i + len(r.statement_end), STATEMENT_END, 0
        return i + 1, 0, 0

    def scan(self, buf: str, pos: int = 0) -> None:
        """Consume all of ``buf`` from ``pos`` (final: no more text follows)."""
        n = len(buf)
        while pos < n:
            pos, _, _ = self.step(buf, pos, True)


def scan_text(rules: LanguageRules, text: str) -> Scanner:
    s = Scanner(rules)
    s.scan(text)
    return s
