"""An unmatched closing bracket ends the suggestion (string- and comment-aware for the language).

Also: in a multi-line completion, closing a bracket or string that the rest of the cursor's line
already closes (an auto-closed ``)`` or quote) ends it; and a statement terminator at depth 0 ends
it for languages that have one (SQL ``;``, kept).
"""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter
from .context import Setup
from .scanner import CLOSE, OPENERS, STATEMENT_END, UNMATCHED, Scanner


class Brackets(Filter):
    def __init__(
        self, scanner: Scanner, protected_from: int, multiline: bool, end_with_string: bool = False
    ) -> None:
        super().__init__()
        # the cursor is in a multi-line string: the suggestion ends with the line that closes it
        self._string_frame = len(scanner.stack) - 1 if end_with_string else -1
        self._end_at_newline = False
        self._s = scanner
        self._floor = len(scanner.stack)  # frames below this index were opened in the prefix
        self._protected_from = protected_from
        self._multiline = multiline
        self._buf = ""
        self._line = 0

    def _run(self, text: str, final: bool) -> str:
        if self.done:
            return ""
        buf = self._buf + text
        s = self._s
        pos, n = 0, len(buf)
        while pos < n:
            top = s.stack[-1] if s.stack else ""
            new, event, payload = s.step(buf, pos, final)
            if new == pos and event == 0:
                break  # needs more text
            if self._end_at_newline:
                nl = buf.find("\n", pos, new)
                if nl >= 0:
                    return self._cut(buf, nl)
            if event:
                size = 1 if event == UNMATCHED or top in OPENERS else len(top)
                tok = new - size
                if event == UNMATCHED:
                    return self._cut(buf, tok)
                if event == STATEMENT_END:
                    return self._cut(buf, new)
                if event == CLOSE and payload < self._floor:
                    line = self._line + buf.count("\n", pos, tok)
                    if payload >= self._protected_from and self._multiline and line >= 1:
                        return self._cut(buf, tok)
                    self._floor = payload
                    if payload == self._string_frame:
                        self._end_at_newline = True
            self._line += buf.count("\n", pos, new)
            pos = new
        self._buf = buf[pos:]
        return buf[:pos]

    def _cut(self, buf: str, at: int) -> str:
        self.done = True
        self._buf = ""
        return buf[:at]

    def feed(self, text: str) -> str:
        return self._run(text, False)

    def finish(self) -> str:
        out = self._run("", True)
        self.done = True
        return out


def build(setup: Setup) -> Iterator[Filter]:
    cursor = setup.cursor
    if cursor.rules.brackets or cursor.rules.statement_end:
        yield Brackets(
            cursor.scanner.copy(),
            cursor.protected_from,
            setup.more_lines,
            end_with_string=cursor.in_block_string,
        )
