"""Trimming text to a token budget on line boundaries, keeping the end nearest the cursor.

``keep_tail`` keeps the last lines of a text (a prefix: trimmed from the top), ``keep_head`` the
first lines (a suffix or another file: trimmed from the bottom). Neither tokenizes the whole text.
They start from the cursor's line and add chunks of whole lines outward, each chunk sized from the
characters-per-token measured so far (a little under, so it rarely overflows), counting only the
new chunk; a chunk that overflows is cut to the share that fits. Each character of the kept text is
counted about once, whatever the length of the whole text.

``stable_tail`` then moves a trimmed tail's start forward to a line on a fixed grid, so that while
the user types at the end the start stays where it was and model servers reuse the prompt they
already read (llama.cpp, vLLM, Ollama and the embedded model skip the tokens a prompt shares with
the previous one); the start moves in steps of the grid, not with every character.

The kept text's count is the sum of its chunks' counts. Tokenizers may merge one or two tokens
differently where chunks meet; ``Budget.safety_tokens`` covers that.
"""

from __future__ import annotations

from dataclasses import dataclass

from .tokens import TokenCounter

# first guess of characters per token (below what code tokenizers give, so a chunk rarely overflows)
_FIRST_GUESS_CPT = 3.0
# a chunk is sized to this share of the remaining budget
_FILL = 0.95
_MAX_ROUNDS = 64


@dataclass(frozen=True)
class Kept:
    text: str
    tokens: int
    complete: bool  # nothing was cut


def _line_start_at_or_after(text: str, pos: int) -> int:
    """The first line start >= pos (len(text) if none)."""
    if pos <= 0:
        return 0
    if pos >= len(text):
        return len(text)
    if text[pos - 1] == "\n":
        return pos
    nl = text.find("\n", pos)
    return len(text) if nl == -1 else nl + 1


def _line_start_at_or_before(text: str, pos: int) -> int:
    """The last line start <= pos (0 if none)."""
    if pos <= 0:
        return 0
    if pos >= len(text):
        pos = len(text)
    if text[pos - 1] == "\n":
        return pos
    return text.rfind("\n", 0, pos) + 1


def _cpt(chars: int, tokens: int) -> float:
    return chars / tokens if tokens > 0 and chars >= 32 else _FIRST_GUESS_CPT


def keep_tail(text: str, budget: int, counter: TokenCounter, min_start: int | None = None) -> Kept:
    """The longest tail of ``text`` starting at a line start with at most ``budget`` tokens.

    ``text[min_start:]`` (default: the last line) is always kept, even over budget: the caller
    checks that the cursor's line fits.
    """
    n = len(text)
    if n == 0:
        return Kept("", 0, True)
    if min_start is None:
        min_start = text.rfind("\n", 0, n - 1) + 1
    start = min_start
    tokens = counter.count(text[start:])
    for _ in range(_MAX_ROUNDS):
        need = budget - tokens
        if start == 0 or need <= 0:
            break
        cpt = _cpt(n - start, tokens)
        new_start = _line_start_at_or_before(text, start - max(1, int(need * cpt * _FILL)))
        if new_start >= start:  # the chunk must hold at least the line above
            new_start = text.rfind("\n", 0, start - 1) + 1
        chunk_tokens = counter.count(text[new_start:start])
        if chunk_tokens <= need:
            start, tokens = new_start, tokens + chunk_tokens
            continue
        # overflow: keep the share of the chunk nearest the cursor that should fit
        share = need / chunk_tokens * _FILL
        cut = _line_start_at_or_after(text, start - int((start - new_start) * share))
        if cut >= start:
            break  # not even the next line fits
        chunk_tokens = counter.count(text[cut:start])
        if chunk_tokens <= need:
            start, tokens = cut, tokens + chunk_tokens
        else:
            break
    return Kept(text[start:], tokens, start == 0)


def keep_head(text: str, budget: int, counter: TokenCounter, min_end: int = 0) -> Kept:
    """The longest head of ``text`` ending at a line end with at most ``budget`` tokens.

    ``text[:min_end]`` (the rest of the cursor's line) is always kept.
    """
    n = len(text)
    if n == 0:
        return Kept("", 0, True)
    end = min(max(min_end, 0), n)
    tokens = counter.count(text[:end])
    for _ in range(_MAX_ROUNDS):
        need = budget - tokens
        if end >= n or need <= 0:
            break
        cpt = _cpt(end, tokens)
        new_end = _line_start_at_or_after(text, end + max(1, int(need * cpt * _FILL)))
        if new_end <= end:
            new_end = _line_start_at_or_after(text, end + 1)
        chunk_tokens = counter.count(text[end:new_end])
        if chunk_tokens <= need:
            end, tokens = new_end, tokens + chunk_tokens
            continue
        share = need / chunk_tokens * _FILL
        cut = _line_start_at_or_before(text, end + int((new_end - end) * share))
        if cut <= end:
            break
        chunk_tokens = counter.count(text[end:cut])
        if chunk_tokens <= need:
            end, tokens = cut, tokens + chunk_tokens
        else:
            break
    return Kept(text[:end], tokens, end == n)


def stable_tail(text: str, kept: Kept, counter: TokenCounter, step: int, min_start: int) -> Kept:
    """``kept`` (a tail of ``text``) with its start moved forward to the first line start at or
    after the next multiple of ``step`` characters, when that keeps ``text[min_start:]``.

    A tail that holds the whole text is returned as it is. The tokens dropped are counted (only
    that chunk); the result has at most ``kept.tokens`` tokens.
    """
    start = len(text) - len(kept.text)
    if start <= 0 or step <= 0:
        return kept
    grid = -(-start // step) * step
    new_start = _line_start_at_or_after(text, grid)
    if new_start <= start or new_start > min_start:
        return kept
    dropped = counter.count(text[start:new_start])
    return Kept(text[new_start:], max(0, kept.tokens - dropped), False)
