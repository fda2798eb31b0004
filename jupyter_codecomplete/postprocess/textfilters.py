"""Character-level filters: line endings, leftovers, stop sequences, token healing, whitespace, prose.

Each one holds back only the tail that might still change (a possible start of a stop sequence, a
``\\r`` that may be half of ``\\r\\n``, trailing whitespace).
"""

from __future__ import annotations

from .base import Filter


def partial_tail(buf: str, needle: str) -> int:
    """Length of the longest proper prefix of ``needle`` that ``buf`` ends with."""
    k = len(needle) - 1
    if k <= 0 or not buf:
        return 0
    first = needle[0]
    i = buf.find(first, max(0, len(buf) - k))
    while i >= 0:
        if needle.startswith(buf[i:]):
            return len(buf) - i
        i = buf.find(first, i + 1)
    return 0


class CrlfNormalize(Filter):
    """``\\r\\n`` -> ``\\n`` (the other filters work on ``\\n``; :class:`LineEnding` restores it)."""

    stage = "text"

    def __init__(self) -> None:
        super().__init__()
        self._cr = False

    def feed(self, text: str) -> str:
        if self._cr:
            text = "\r" + text
            self._cr = False
        if text.endswith("\r"):
            self._cr = True
            text = text[:-1]
        return text.replace("\r\n", "\n")

    def finish(self) -> str:
        self.done = True
        out = "\r" if self._cr else ""
        self._cr = False
        return out


class LineEnding(Filter):
    """``\\n`` -> the document's line ending."""

    stage = "post"

    def __init__(self, ending: str) -> None:
        super().__init__()
        self.ending = ending

    def feed(self, text: str) -> str:
        return text.replace("\n", self.ending)


class StopSequences(Filter):
    """Cut at the first occurrence of any stop sequence, matched across chunk boundaries."""

    stage = "text"

    def __init__(self, stops: list[str]) -> None:
        super().__init__()
        self.stops = [s for s in dict.fromkeys(stops) if s]
        self._buf = ""

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        buf = self._buf + text
        cut = -1
        for s in self.stops:
            i = buf.find(s)
            if i >= 0 and (cut < 0 or i < cut):
                cut = i
        if cut >= 0:
            self.done = True
            self._buf = ""
            return buf[:cut]
        hold = 0
        for s in self.stops:
            k = partial_tail(buf, s)
            if k > hold:
                hold = k
        self._buf = buf[len(buf) - hold :] if hold else ""
        return buf[: len(buf) - hold]

    def finish(self) -> str:
        if self.done:
            return ""
        self.done = True
        out, self._buf = self._buf, ""
        return out


class LeftoverTokens(Filter):
    """Remove model-specific leftover tokens (``<|file_sep|>``, ``<EOT>``) wherever they appear."""

    stage = "text"

    def __init__(self, tokens: list[str]) -> None:
        super().__init__()
        self.tokens = sorted((t for t in dict.fromkeys(tokens) if t), key=len, reverse=True)
        self._buf = ""

    def feed(self, text: str) -> str:
        buf = self._buf + text
        for t in self.tokens:
            if t in buf:
                buf = buf.replace(t, "")
        hold = 0
        for t in self.tokens:
            hold = max(hold, partial_tail(buf, t))
        self._buf = buf[len(buf) - hold :] if hold else ""
        return buf[: len(buf) - hold]

    def finish(self) -> str:
        self.done = True
        out, self._buf = self._buf, ""
        return out


class LeftoverBlocks(Filter):
    """Remove ``open ... close`` blocks (``<think>...</think>``); an unclosed block is dropped to the
    end. Newlines right after a removed block are dropped too."""

    stage = "text"

    def __init__(self, blocks: list[tuple[str, str]]) -> None:
        super().__init__()
        self.blocks = [(o, c) for o, c in blocks if o and c]
        self._buf = ""
        self._close: str | None = None  # inside a block: its closing marker
        self._after = False  # just after a block: drop newlines

    def feed(self, text: str) -> str:
        buf = self._buf + text
        out: list[str] = []
        while True:
            if self._close is not None:
                i = buf.find(self._close)
                if i < 0:
                    k = partial_tail(buf, self._close)
                    buf = buf[len(buf) - k :] if k else ""
                    break
                buf = buf[i + len(self._close) :]
                self._close = None
                self._after = True
            if self._after:
                stripped = buf.lstrip("\n")
                if not stripped:
                    buf = ""
                    break
                buf = stripped
                self._after = False
            best = -1
            for o, c in self.blocks:
                i = buf.find(o)
                if i >= 0 and (best < 0 or i < best):
                    best, self._close = i, c
                    opener = o
            if best < 0:
                hold = max((partial_tail(buf, o) for o, _ in self.blocks), default=0)
                out.append(buf[: len(buf) - hold])
                buf = buf[len(buf) - hold :] if hold else ""
                break
            out.append(buf[:best])
            buf = buf[best + len(opener) :]
        self._buf = buf
        return "".join(out)

    def finish(self) -> str:
        self.done = True
        out = "" if self._close is not None else self._buf
        self._buf = ""
        return out


class Heal(Filter):
    """Strip the healed whitespace from the start of the output (or the part of it that is there)."""

    stage = "text"

    def __init__(self, heal: str) -> None:
        super().__init__()
        self.heal = heal
        self._buf = ""
        self._decided = not heal

    def feed(self, text: str) -> str:
        if self._decided:
            return text
        buf = self._buf + text
        if len(buf) < len(self.heal) and self.heal.startswith(buf):
            self._buf = buf
            return ""
        return self._decide(buf)

    def _decide(self, buf: str) -> str:
        k = 0
        for a, b in zip(buf, self.heal, strict=False):
            if a != b:
                break
            k += 1
        self._decided = True
        self._buf = ""
        return buf[k:]

    def finish(self) -> str:
        self.done = True
        return "" if self._decided else self._decide(self._buf)


class TrailingWhitespace(Filter):
    """Hold trailing whitespace; drop it at the end (so a whitespace-only suggestion is empty).

    ``keep_space``: a mid-line insertion before more text (``error, `` before ``message);``) keeps
    its trailing spaces (not newlines)."""

    def __init__(self, keep_space: bool = False) -> None:
        super().__init__()
        self._ws = ""
        self._keep_space = keep_space
        self._text = False

    def feed(self, text: str) -> str:
        buf = self._ws + text
        stripped = buf.rstrip()
        self._ws = buf[len(stripped) :]
        if stripped:
            self._text = True
        return stripped

    def finish(self) -> str:
        self.done = True
        ws, self._ws = self._ws, ""
        if self._keep_space and self._text and ws and not ws.strip(" \t"):
            return ws
        return ""


class LastLine(Filter):
    """Multi-line: hold the line being written (after the first) until it is complete, so that a last
    line cut off by the token limit (``finish(truncated=True)``) is dropped, never shown half.

    Only while the limit may still cut it: the pipeline sets :attr:`budget_left` (the model pieces
    the token limit still allows, None: unknown) before each feed, and a line that starts with more
    budget left than it can take (:meth:`margin`) streams as it comes. Holding every line cost one
    line's writing time on every line after the first (issue 29)."""

    # a line is assumed to take at most this many pieces, or as many as the longest line so far
    # has characters (a code token is 3-4 characters: a generous bound)
    MIN_MARGIN = 24

    def __init__(self) -> None:
        super().__init__()
        self._held = ""
        self._first = True
        self._passing = False  # the line being written streams (decided when it started)
        self._current = 0  # characters of the line being written
        self._longest = 0
        self.truncated = False
        self.budget_left: int | None = None

    def margin(self) -> int:
        return max(self.MIN_MARGIN, self._longest)

    def feed(self, text: str) -> str:
        out: list[str] = []
        pos = 0
        if self._first:
            nl = text.find("\n")
            if nl < 0:
                return text
            self._first = False
            self._longest = nl
            out.append(text[: nl + 1])
            pos = nl + 1
            self._begin()
        while True:
            nl = text.find("\n", pos)
            if nl < 0:
                break
            self._longest = max(self._longest, self._current + nl - pos)
            out.append(self._held)
            out.append(text[pos : nl + 1])
            self._held = ""
            pos = nl + 1
            self._begin()
        rest = text[pos:]
        self._current += len(rest)
        if self._passing:
            out.append(rest)
        else:
            self._held += rest
        return "".join(out)

    def _begin(self) -> None:
        """A new line starts: it streams when the limit cannot cut it, else it is held."""
        self._current = 0
        left = self.budget_left
        self._passing = left is not None and left > self.margin()

    def finish(self) -> str:
        self.done = True
        held, self._held = self._held, ""
        return "" if self.truncated else held


class LeadingSpace(Filter):
    """The prefix ends with a space: drop the spaces the output starts with (no double space)."""

    stage = "text"

    def __init__(self) -> None:
        super().__init__()
        self._decided = False

    def feed(self, text: str) -> str:
        if self._decided:
            return text
        stripped = text.lstrip(" \t")
        if stripped:
            self._decided = True
        return stripped


class Sentence(Filter):
    """Prose: end after the first sentence (``.``, ``!`` or ``?`` followed by whitespace)."""

    ENDS = ".!?"

    def __init__(self) -> None:
        super().__init__()
        self._last = ""

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        prev = self._last
        for i, c in enumerate(text):
            if c.isspace() and prev in self.ENDS and prev:
                self.done = True
                return text[:i]
            prev = c
        if text:
            self._last = text[-1]
        return text
