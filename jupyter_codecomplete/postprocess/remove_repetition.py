"""End where the output starts repeating itself: repeated lines and blocks, near-repetitions that count on,
and runaway lines that repeat a piece of themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Filter
from .context import Setup

# identifiers (a letter or underscore first), numbers (decimal, hex, floats), any other symbol
_TOKEN = re.compile(r"[A-Za-z_]\w*|0[xX][0-9a-fA-F]+|\d[\d_.eE]*|[^\w\s]")

_NAME_NUMBER = re.compile(r"([A-Za-z_]*?)(\d+)")


def _seq_step(a: str, b: str) -> int | None:
    """The step from token ``a`` to ``b`` when ``b`` continues a sequence: numbers (``1`` -> ``2``),
    single letters (``b`` -> ``c``), names with a number (``item1`` -> ``item2``); else None."""
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        return ord(b) - ord(a) or None
    ma, mb = _NAME_NUMBER.fullmatch(a), _NAME_NUMBER.fullmatch(b)
    if ma and mb and ma.group(1) == mb.group(1):
        return int(mb.group(2)) - int(ma.group(2)) or None
    return None


def _may_become(partial: str, first: str) -> bool:
    """Can a token that starts with ``partial`` still be ``first`` or continue a sequence from it
    (:func:`_seq_step`)? The same decisions as waiting for the whole token, without the wait."""
    if first.startswith(partial):
        return True
    if len(first) == 1 and first.isalpha():
        return len(partial) == 1 and partial.isalpha()
    m = _NAME_NUMBER.fullmatch(first)
    if m is None:
        return False
    name = m.group(1)
    return name.startswith(partial) or (partial.startswith(name) and partial[len(name) :].isdigit())


def near_step(a: str, b: str) -> tuple[tuple[int, int], ...] | None:
    """Lines ``a`` and ``b`` are the same but for one token that continues a sequence: its position
    and step; else None."""
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    if len(ta) != len(tb) or len(ta) < 2:
        return None
    diffs: list[tuple[int, int]] = []
    for i, (x, y) in enumerate(zip(ta, tb, strict=True)):
        if x != y:
            step = _seq_step(x, y)
            if step is None or diffs:
                return None  # one token changes; more is ordinary code (``x1 = 1``, ``x2 = 2``)
            diffs.append((i, step))
    return tuple(diffs) or None


_RUN_UNITS = (3, 24)


# a piece followed by itself (the fast path of Repetition._scan matches it on reversed text)
_TWO_COPIES = re.compile(rf"(.{{{_RUN_UNITS[0]},{_RUN_UNITS[1]}}}?)\1")


def _piece(unit: str) -> bool:
    """Can ``unit`` repeated be a runaway: not one character repeated, not only whitespace."""
    return len(set(unit)) > 1 and bool(unit.strip())


def tail_run(line: str, units: tuple[int, int] = _RUN_UNITS) -> tuple[int, int]:
    """The longest run of one piece of text repeated at the end of ``line``: ``(start, copies)``.

    A piece is ``units[0]..units[1]`` characters with something other than one character repeated
    (``====`` and ``    `` are separators and indentation, not a run). ``(len(line), 0)`` when none.
    Cost: O(units[1] * run length)."""
    best = (len(line), 0)
    n = len(line)
    for size in range(units[0], min(units[1], n // 2) + 1):
        unit = line[n - size :]
        if not _piece(unit):
            continue
        copies = 1
        while (copies + 1) * size <= n and line[n - (copies + 1) * size : n - copies * size] == unit:
            copies += 1
        if copies >= 2 and copies * size > (n - best[0]):
            best = (n - copies * size, copies)
    return best


def is_runaway(copies: int, size: int) -> bool:
    """Enough copies of a piece to call a line a runaway (``' + ' + ' + …``, ``foo(foo(foo(…``)."""
    return copies >= RUNAWAY_COPIES or (size >= 10 and copies >= 4)


# A piece of 3+ characters repeated this many times in a row ends the suggestion before its line
# (data lists of one value repeated, ``[0, 0, 0, 0, 0, 0, 0, 0]``, are cut too: a model that writes
# one usually goes on until its token limit).
RUNAWAY_COPIES = 8


# How much of a line is looked at for a runaway (a run is found within about 200 characters).
RUNAWAY_SCAN_CHARS = 1024


class Repetition(Filter):
    """End where the output starts repeating itself: the same line a third time in a row (one copy is
    kept), a block of 2..8 lines repeated right after itself, three lines in a row that differ only
    in a name or number that counts on (``const b = 1;`` ``const c = 1;`` ``const d = 1;``: the first
    is kept), or a line that repeats a piece of itself (:func:`tail_run`: ``' + ' + ' + …``, the
    suggestion ends before that line; a line that starts to repeat itself is held until it is
    complete). Blank lines are ignored."""

    MAX_BLOCK = 8

    def __init__(self, cursor_line: str = "") -> None:
        super().__init__()
        self.cursor_line = cursor_line
        self._text = ""
        self._emitted = 0
        self._lines: list[str] = []
        self._starts: list[int] = []
        self._line_start = 0
        self._index = 0
        self._first_of: tuple[int, list[str]] = (-1, [])  # (line count, tokens of the last line)
        self._pending_of: tuple[int, bool] = (-1, False)  # (line count, last two lines near)
        self._partial_of: tuple[tuple[int, int], bool] = ((-1, -1), False)  # (line, decided)
        # the line repeating a piece of itself (:meth:`_scan`): where the scan is, where it holds from
        self._scan_line = -1
        self._scan_pos = 0
        self._freeze: int | None = None

    def _run(self, n: int, block: int) -> int:
        lines = self._lines
        r = 0
        i = n - 1
        while i - block >= 0 and lines[i] == lines[i - block]:
            r += 1
            i -= 1
        return r

    def _complete_cut(self) -> int | None:
        n = len(self._lines)
        for block in range(1, min(self.MAX_BLOCK, n - 1) + 1):
            need = 2 if block == 1 else block
            r = self._run(n, block)
            if r >= need:
                return self._starts[n - r]
        if n >= 3:
            step = near_step(self._lines[n - 3], self._lines[n - 2])
            if step is not None and near_step(self._lines[n - 2], self._lines[n - 1]) == step:
                return self._starts[n - 2]
        return None

    def _near_pending(self) -> bool:
        """The last two lines may start a near-repetition: hold the last one (cached per line)."""
        n = len(self._lines)
        if self._pending_of[0] != n:
            pending = n >= 2 and near_step(self._lines[n - 2], self._lines[n - 1]) is not None
            self._pending_of = (n, pending)
        return self._pending_of[1]

    def _near_partial(self, partial: str) -> bool:
        """The line being written may still turn out a near-repetition of the last line (the second
        of three, :func:`near_step`): every token so far is the last line's, but for at most one that
        counts on from it, and a token still being written can still become so. Decided False once
        it cannot (the line then streams), and cached; at most the last line's tokens are read."""
        if not self._lines:
            return False
        key = (self._line_start, len(self._lines))
        if self._partial_of[0] == key:
            return self._partial_of[1]  # decided: the line cannot be a near-repetition
        if self._first_of[0] != len(self._lines):
            toks = _TOKEN.findall(self._lines[-1])
            self._first_of = (len(self._lines), toks if len(toks) >= 2 else [])
        last = self._first_of[1]
        if not last:
            return False
        stripped = partial.lstrip()
        diffs = 0
        for i, m in enumerate(_TOKEN.finditer(stripped)):
            tok = m.group(0)
            if i >= len(last):
                break  # more tokens than the last line: not near
            target = last[i]
            if m.end() == len(stripped) and (tok[0].isalnum() or tok[0] == "_"):
                # still being written
                if target.startswith(tok) or (not diffs and _may_become(tok, target)):
                    return True
                break
            if tok != target:
                if diffs or _seq_step(target, tok) is None:
                    break
                diffs += 1
        else:
            return bool(stripped)  # consistent so far: hold
        self._partial_of = (key, False)
        return False

    def _hold_from(self) -> int:
        n = len(self._lines)
        hold = len(self._text)
        partial = self._text[self._line_start :]
        if self._index == 0:
            partial = self.cursor_line + partial
        p = partial.rstrip()
        for block in range(1, min(self.MAX_BLOCK, n) + 1):
            target = self._lines[n - block]
            consistent = target.startswith(p)
            if not consistent:
                continue
            r = self._run(n, block)
            if r:
                hold = min(hold, self._starts[n - r])
            elif p.strip():
                hold = min(hold, self._line_start)
        if self._near_pending():
            hold = min(hold, self._starts[n - 1])
        elif self._near_partial(partial):
            hold = min(hold, self._line_start)
        return max(hold, self._emitted)

    def _scan(self, upto: int) -> bool:
        """Look at the current line's characters up to ``upto`` (an index in the text) one at a
        time, as if they came one by one: where a piece first repeats (two copies) the line is
        held from (``_freeze``); True when it repeats enough to be a runaway. The result does not
        depend on how the text was cut into chunks."""
        if self._scan_line != self._line_start:
            self._scan_line, self._scan_pos, self._freeze = self._line_start, self._line_start, None
        head = self.cursor_line if self._index == 0 else ""
        stop = min(upto, self._line_start + RUNAWAY_SCAN_CHARS)
        if self._scan_pos >= stop:
            return False
        # Only where a piece followed by itself ends can a run end (tail_run's two copies). Read
        # backwards, such a pair starts at one of the new characters: one anchored match each, and
        # tail_run only at the characters where one matched (whitespace runs match too: tail_run
        # decides exactly).
        begin = max(self._line_start, self._scan_pos - 2 * _RUN_UNITS[1])
        window = (head if begin == self._line_start else "") + self._text[begin:stop]
        backwards = window[::-1]
        ends = [stop - i for i in range(stop - self._scan_pos - 1, -1, -1) if _TWO_COPIES.match(backwards, i)]
        for end in ends:
            line = head + self._text[self._line_start : end]
            start, copies = tail_run(line)
            if copies < 2:
                continue
            if self._freeze is None:
                self._freeze = end - 1  # what came before this character
            if is_runaway(copies, (len(line) - start) // copies):
                self._scan_pos = end
                return True
        self._scan_pos = stop
        return False

    def _cut_runaway(self) -> str:
        self.done = self.final = True  # the runaway is not wanted, also where the cut leaves code open
        cut = self._freeze if self._freeze is not None else self._line_start
        return self._text[self._emitted : max(cut, self._emitted)]

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        pos = len(self._text)
        self._text += text
        while True:
            nl = self._text.find("\n", pos)
            if nl < 0:
                break
            line = self._line_to(nl)
            if self._scan(nl):
                return self._cut_runaway()
            if line.strip():
                cut = self._line_complete(line)
                if cut is not None:
                    self.done = True
                    return self._text[self._emitted : max(cut, self._emitted)]
            self._line_start = nl + 1
            self._index += 1
            pos = nl + 1
        if self._scan(len(self._text)):
            return self._cut_runaway()
        hold = self._hold_from()
        if self._freeze is not None and self._scan_line == self._line_start:
            hold = max(min(hold, self._freeze), self._emitted)  # it may become a runaway
        out = self._text[self._emitted : hold]
        self._emitted = hold
        return out

    def _line_to(self, end: int) -> str:
        """The current line up to ``end`` (line 0 continues the cursor's line)."""
        line = self._text[self._line_start : end]
        return self.cursor_line + line if self._index == 0 else line

    def _line_complete(self, line: str) -> int | None:
        """A complete line with text: remember it; where the suggestion ends if it completes a
        repetition (None: it does not)."""
        self._lines.append(line.rstrip())
        self._starts.append(self._line_start)
        return self._complete_cut()

    def finish(self) -> str:
        if self.done:
            return ""
        out = self._text[self._emitted :]
        partial = self._line_to(len(self._text))
        if self._scan(len(self._text)):
            return self._cut_runaway()
        if partial.strip():
            # the last line is complete now: it may finish a repetition
            cut = self._line_complete(partial)
            if cut is not None:
                out = self._text[self._emitted : max(cut, self._emitted)]
        self.done = True
        return out


def build(setup: Setup) -> Iterator[Filter]:
    if setup.more_lines:
        yield Repetition(setup.cursor.line)
