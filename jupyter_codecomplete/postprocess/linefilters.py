"""Filters that decide per line (or at the start of the output): fences, an echoed prefix, the line
limit, overlap with the text after the cursor, the block scope, repetition."""

from __future__ import annotations

import re

from .base import Filter, LineFilter, Verdict
from .cursor import Cursor, indent_width
from .languages import LanguageRules
from .scanner import CLOSERS, Scanner

FENCE = "```"
_WORD = re.compile(r"[A-Za-z_]\w*")


class _ClosingFence(LineFilter):
    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        s = line.lstrip()
        if s.startswith(FENCE):
            return Verdict.CUT
        if FENCE.startswith(s) and not complete:
            return Verdict.WAIT
        return Verdict.KEEP


class Fences(Filter):
    """Drop an opening markdown fence (with or without a language) before the code, with the blank
    lines before it; a closing fence ends the suggestion (and drops whatever follows it)."""

    stage = "text"

    def __init__(self) -> None:
        super().__init__()
        self._buf = ""
        self._opening = True
        self._body = _ClosingFence()

    def feed(self, text: str) -> str:
        if not self._opening:
            out = self._body.feed(text)
            self.done = self._body.done
            return out
        buf = self._buf + text
        s = buf.lstrip()
        if s.startswith(FENCE):
            nl = s.find("\n")
            if nl < 0:
                self._buf = buf
                return ""
            self._opening = False
            self._buf = ""
            return self.feed(s[nl + 1 :])
        if not s or FENCE.startswith(s):
            self._buf = buf
            return ""
        self._opening = False
        self._buf = ""
        return self.feed(buf)

    def finish(self) -> str:
        if self.done:
            return ""
        out = ""
        if self._opening:
            self._opening = False
            if not self._buf.lstrip().startswith(FENCE):
                out = self._body.feed(self._buf)
        out += self._body.finish()
        self.done = True
        return out


class Echo(Filter):
    """Strip the prefix echoed back at the start of the output: all of it or its last lines (the
    echo starts at the start of a prefix line and runs to the cursor)."""

    stage = "text"

    MAX_LINES = 200
    MAX_CHARS = 8000  # longer echoes (of a whole long file) are not looked for

    def __init__(self, prefix: str) -> None:
        super().__init__()
        cands: list[str] = []
        end = len(prefix)
        start = prefix.rfind("\n", 0, end) + 1
        while len(cands) < self.MAX_LINES and len(prefix) - start <= self.MAX_CHARS:
            tail = prefix[start:]
            if tail.strip():
                cands.append(tail)
            if start == 0:
                break
            start = prefix.rfind("\n", 0, start - 1) + 1
        self._cands = cands
        self._buf = ""
        self._decided = not self._cands

    def feed(self, text: str) -> str:
        if self._decided:
            return text
        buf = self._buf + text
        self._cands = [c for c in self._cands if c.startswith(buf) or buf.startswith(c)]
        if any(len(c) > len(buf) for c in self._cands):
            self._buf = buf
            return ""
        return self._decide(buf)

    def _decide(self, buf: str) -> str:
        k = max((len(c) for c in self._cands if buf.startswith(c)), default=0)
        self._decided = True
        self._buf = ""
        self._cands = []
        return buf[k:]

    def finish(self) -> str:
        self.done = True
        return "" if self._decided else self._decide(self._buf)


class LineLimit(LineFilter):
    """Keep at most ``limit`` lines (1: single-line mode ends at the first newline)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        return Verdict.CUT if index >= self.limit else Verdict.KEEP


class SuffixOverlap(Filter):
    """Within the cursor's line: when the first line ends with (the start of) the text after the
    cursor, e.g. a ``)`` the editor already auto-closed, strip that part; the suggestion ends there.

    An overlap counts when it is the whole rest of the line, or holds at least two non-space
    characters, and only if the text before it leaves the brackets/strings as they were at the cursor.
    """

    def __init__(self, rest: str, scanner: Scanner) -> None:
        super().__init__()
        self.rest = rest.rstrip()
        self._scanner = scanner
        self._sig = scanner.signature()
        self._line = ""
        self._emitted = 0
        self._active = bool(self.rest)

    def _longest_tail(self, c0: str) -> int:
        for k in range(min(len(self.rest), len(c0)), 0, -1):
            if c0.endswith(self.rest[:k]):
                return k
        return 0

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        if not self._active:
            return text
        nl = text.find("\n")
        if nl < 0:
            self._line += text
            c0 = self._line.rstrip()
            hold_start = max(self._emitted, len(c0) - self._longest_tail(c0))
            out = self._line[self._emitted : hold_start]
            self._emitted = hold_start
            return out
        self._line += text[:nl]
        out = self._close_line()
        return out if self.done else out + text[nl:]

    def _valid(self, c0: str, k: int) -> bool:
        part = self.rest[:k]
        if k < len(self.rest) and sum(not c.isspace() for c in part) < 2:
            return False
        probe = self._scanner.copy()
        probe.scan(c0[: len(c0) - k])
        return probe.signature() == self._sig

    def _close_line(self) -> str:
        self._active = False
        c0 = self._line.rstrip()
        for k in range(min(len(self.rest), len(c0)), 0, -1):
            if c0.endswith(self.rest[:k]) and self._valid(c0, k):
                self.done = True
                return c0[self._emitted : len(c0) - k]
        return self._line[self._emitted :]

    def finish(self) -> str:
        if self.done:
            return ""
        out = self._close_line() if self._active else ""
        self.done = True
        return out


class Scope(LineFilter):
    """Multi-line: end where the indentation returns to (or above) the block the completion started
    in. A closing line at the opener's indentation (``}``, ``)``, ``end``) is kept and ends it; a line
    that continues the statement (``else:``, ``} catch``) goes on. At column 0, after an indented
    block, a new top-level definition ends it; a notebook cell marker always ends it."""

    def __init__(self, cursor: Cursor, opener: int | None = -1) -> None:
        super().__init__()
        self.rules: LanguageRules = cursor.rules
        self.opener = cursor.opener_indent if opener == -1 else opener
        self.cursor_line = cursor.line
        self.blank_cursor = cursor.blank_line
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

    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        if index == 0:
            if not self.blank_cursor:
                return Verdict.KEEP
            line = self.cursor_line + line
        stripped = line.strip()
        if not stripped:
            return Verdict.KEEP if complete else Verdict.WAIT
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
            m = _WORD.match(stripped.lstrip(CLOSERS).lstrip())
            if m and m.group(0) in self.rules.continuation_words:
                return Verdict.KEEP
            return Verdict.KEEP_END
        if not same or not self._words:
            return Verdict.CUT
        m = _WORD.match(stripped)
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


class SuffixLines(LineFilter):
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
        super().__init__()
        self.cursor_line = cursor.line
        self.blank_cursor = cursor.blank_line
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

    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        if index == 0:
            if not self.blank_cursor:
                return Verdict.KEEP
            line = self.cursor_line + line
        r = line.rstrip()
        s = r.strip()
        if not s:
            return Verdict.KEEP if complete else Verdict.WAIT
        if complete:
            return Verdict.CUT if self._repeats(r, s, index) else Verdict.KEEP
        possible = bool(self.exact_norm) and self.exact_norm.startswith(_norm(s))
        possible = possible or (bool(self.loose) and self.loose.startswith(s))
        possible = possible or (self.block_closer_indent is not None and s[0] in CLOSERS)
        return Verdict.WAIT if possible else Verdict.KEEP


def _first_word(line: str) -> str:
    m = _WORD.match(line)
    return m.group(0) if m else ""


def _norm(line: str) -> str:
    """A line compared without indentation and without a trailing ``;``."""
    return line.strip().rstrip(";").rstrip()


_TOKEN = re.compile(r"\d+|[A-Za-z_]\w*|\S")
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
        # Fast path: no piece followed by itself ends in the new text. Read backwards, such a run
        # starts at one of the new characters: one anchored match each, no per-character scan
        # for ordinary code (whitespace runs take the slow path, which decides exactly).
        begin = max(self._line_start, self._scan_pos - 2 * _RUN_UNITS[1])
        window = (head if begin == self._line_start else "") + self._text[begin:stop]
        backwards = window[::-1]
        if not any(_TWO_COPIES.match(backwards, i) for i in range(stop - self._scan_pos)):
            self._scan_pos = stop
            return False
        while self._scan_pos < stop:
            self._scan_pos += 1
            line = head + self._text[self._line_start : self._scan_pos]
            start, copies = tail_run(line)
            if copies < 2:
                continue
            if self._freeze is None:
                self._freeze = self._scan_pos - 1  # what came before this character
            if is_runaway(copies, (len(line) - start) // copies):
                return True
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
            line = self._text[self._line_start : nl]
            if self._index == 0:
                line = self.cursor_line + line
            if self._scan(nl):
                return self._cut_runaway()
            if line.strip():
                self._lines.append(line.rstrip())
                self._starts.append(self._line_start)
                cut = self._complete_cut()
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

    def finish(self) -> str:
        if self.done:
            return ""
        out = self._text[self._emitted :]
        partial = self._text[self._line_start :]
        if self._index == 0:
            partial = self.cursor_line + partial
        if self._scan(len(self._text)):
            return self._cut_runaway()
        if partial.strip():
            # the last line is complete now: it may finish a repetition
            self._lines.append(partial.rstrip())
            self._starts.append(self._line_start)
            cut = self._complete_cut()
            if cut is not None:
                out = self._text[self._emitted : max(cut, self._emitted)]
        self.done = True
        return out
