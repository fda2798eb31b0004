"""Trimming text to a token budget on line boundaries, keeping the end nearest the cursor.

``keep_tail`` keeps the last lines of a text (a prefix: trimmed from the top), ``keep_head`` the
first lines (a suffix or another file: trimmed from the bottom). Neither tokenizes the whole text:
they take a window sized from a characters-per-token guess, count it, and correct the guess with the
chars/token actually measured on that window, moving the cut on line boundaries, until the kept
part fits. Typically two to four counts of a budget-sized window, whatever the text's length.
"""

from __future__ import annotations

from dataclasses import dataclass

from .tokens import TokenCounter

# first guess of characters per token when sizing a window (a little above what code gives, so the
# first window usually holds enough text)
_FIRST_GUESS_CPT = 4.5
_MAX_ROUNDS = 12


@dataclass(frozen=True)
class Kept:
    text: str
    tokens: int
    complete: bool  # nothing was cut


def _line_start_at_or_after(text: str, pos: int) -> int:
    """The first line start >= pos (len(text) if none)."""
    if pos <= 0:
        return 0
    if text[pos - 1] == "\n":
        return pos
    nl = text.find("\n", pos)
    return len(text) if nl == -1 else nl + 1


def _line_end_at_or_before(text: str, pos: int) -> int:
    """The last cut point <= pos that ends on a line boundary (just after a newline), or 0."""
    if pos >= len(text):
        return len(text)
    if pos <= 0:
        return 0
    nl = text.rfind("\n", 0, pos)
    return 0 if nl == -1 else nl + 1


def keep_tail(text: str, budget: int, counter: TokenCounter, min_start: int | None = None) -> Kept:
    """The longest tail of ``text`` starting at a line start with at most ``budget`` tokens.

    ``min_start``: the cut never goes past this index (the cursor's own line is always kept, even
    over budget; the caller checks that it fits).
    """
    n = len(text)
    if n == 0:
        return Kept("", 0, True)
    last_line = text.rfind("\n", 0, n - 1) + 1 if min_start is None else min_start
    budget = max(budget, 0)
    cpt = _FIRST_GUESS_CPT
    start = _line_start_at_or_after(text, max(0, n - int(budget * cpt) - 1))
    start = min(start, last_line)
    best: Kept | None = None
    for _ in range(_MAX_ROUNDS):
        piece = text[start:]
        tokens = counter.count(piece)
        if tokens <= budget:
            if best is None or len(piece) > len(best.text):
                best = Kept(piece, tokens, start == 0)
            if start == 0:
                return best
            slack = budget - tokens
            if slack <= max(2, budget // 50):
                return best
            cpt = len(piece) / tokens if tokens else cpt
            grow = max(1, int(slack * cpt * 0.9))
            new_start = _line_end_at_or_before(text, start - grow)
            if new_start >= start:
                return best
            if best is not None and best.text is not piece and new_start >= n - len(best.text):
                return best
            start = new_start
        else:
            if start >= last_line:
                # even the cursor's line alone is over budget: keep it anyway
                return Kept(piece, tokens, start == 0)
            cpt = len(piece) / tokens
            over = tokens - budget
            drop = max(1, int(over * cpt * 1.1))
            new_start = min(_line_start_at_or_after(text, start + drop), last_line)
            if best is not None and new_start >= n - len(best.text):
                return best
            start = new_start
    if best is not None:
        return best
    piece = text[last_line:]
    return Kept(piece, counter.count(piece), last_line == 0)


def keep_head(text: str, budget: int, counter: TokenCounter, min_end: int = 0) -> Kept:
    """The longest head of ``text`` ending at a line end with at most ``budget`` tokens.

    ``min_end``: always keep at least ``text[:min_end]`` (the rest of the cursor's line).
    """
    n = len(text)
    if n == 0:
        return Kept("", 0, True)
    budget = max(budget, 0)
    cpt = _FIRST_GUESS_CPT
    end = _line_end_at_or_before(text, min(n, int(budget * cpt) + 1))
    end = max(end, min_end)
    best: Kept | None = None
    for _ in range(_MAX_ROUNDS):
        piece = text[:end]
        tokens = counter.count(piece)
        if tokens <= budget:
            if best is None or len(piece) > len(best.text):
                best = Kept(piece, tokens, end == n)
            if end == n:
                return best
            slack = budget - tokens
            if slack <= max(2, budget // 50):
                return best
            cpt = len(piece) / tokens if tokens else cpt
            grow = max(1, int(slack * cpt * 0.9))
            new_end = _line_start_at_or_after(text, end + grow)
            if new_end <= end:
                return best
            start_best = len(best.text) if best is not None else -1
            if best is not None and best.text is not piece and new_end <= start_best:
                return best
            end = new_end
        else:
            if end <= min_end:
                return Kept(piece, tokens, end == n)
            cpt = len(piece) / tokens
            over = tokens - budget
            drop = max(1, int(over * cpt * 1.1))
            new_end = max(_line_end_at_or_before(text, end - drop), min_end)
            if best is not None and new_end <= len(best.text):
                return best
            end = new_end
    if best is not None:
        return best
    piece = text[:min_end]
    return Kept(piece, counter.count(piece), min_end == n)
