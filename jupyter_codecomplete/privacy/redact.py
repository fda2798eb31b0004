"""Secrets become placeholders: :class:`Redactor` (the server's, with a bounded cache of what it
found in each text) and :class:`Redaction` (one request's: the same placeholder for the same value
wherever it appears in that request).

A placeholder keeps code valid where the secret was a string's content or a value:
``OpenAI(api_key="sk-…")`` becomes ``OpenAI(api_key="<redacted: openai-token>")``; a second,
different value of the same kind ``"<redacted: openai-token 2>"``. A private key keeps its
``BEGIN``/``END`` lines around one placeholder.

Offsets matter where the model's answer points into the text (an edit prediction's edits):
:meth:`Redaction.redact_with_map` returns an :class:`OffsetMap` between the original and the
redacted text, and :meth:`Redaction.restore` gives a placeholder in the model's answer back its
value, for values that came from the user's own document (never the server's keys).
"""

from __future__ import annotations

import bisect
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from .rules import Finding, find_all

PLACEHOLDER_START = "<redacted: "
# Texts shorter than this are scanned again each time (the cache's bookkeeping costs more).
CACHE_MIN_CHARS = 256
# The cache holds at most this many characters of text (and of findings' keys).
CACHE_MAX_CHARS = 8_000_000
CACHE_MAX_ENTRIES = 4096


@dataclass(frozen=True)
class Span:
    """``original[start:end]`` became ``redacted[new_start:new_end]``, the ``placeholder``."""

    start: int
    end: int
    new_start: int
    new_end: int
    placeholder: str = ""


@dataclass
class OffsetMap:
    """Offsets between a text and its redacted form (sorted spans that do not overlap)."""

    spans: list[Span] = field(default_factory=list)

    def to_redacted(self, offset: int, *, after: bool = False) -> int:
        """Where ``offset`` of the original lies in the redacted text; inside a secret, at the
        start of its placeholder (``after``: its end)."""
        mapped, inside = self._locate(offset, redacted=False)
        return inside.new_end if inside is not None and after else mapped

    def touched(self, start: int, end: int) -> list[Span]:
        """The placeholders that ``[start, end)`` of the redacted text overlaps (an insertion at
        a placeholder's edge overlaps none)."""
        return [s for s in self.spans if s.new_start < end and start < s.new_end]

    def to_original(self, offset: int) -> int | None:
        """Where ``offset`` of the redacted text lies in the original; None inside a placeholder."""
        mapped, inside = self._locate(offset, redacted=True)
        return None if inside is not None else mapped

    def _locate(self, offset: int, *, redacted: bool) -> tuple[int, Span | None]:
        """``offset`` of one text (``redacted``: of the redacted one) in the other, and the span
        it lies inside (None: none; inside one, the mapped offset is the span's start there)."""
        starts = [s.new_start if redacted else s.start for s in self.spans]
        i = bisect.bisect_right(starts, offset) - 1
        if i < 0:
            return offset, None
        s = self.spans[i]
        start, end, to_start, to_end = (
            (s.new_start, s.new_end, s.start, s.end) if redacted else (s.start, s.end, s.new_start, s.new_end)
        )
        if offset >= end:
            return offset - end + to_end, None
        if offset == start:
            return to_start, None
        return to_start, s


class Redactor:
    """Finds secrets (:func:`~.rules.find_all`) with the server's known keys, remembering what it
    found in the texts it saw last (a notebook's cells do not change between two keystrokes)."""

    def __init__(self, known: Sequence[str] = ()) -> None:
        self.known = tuple(sorted({k for k in known if k}, key=len, reverse=True))
        self._cache: OrderedDict[str, tuple[Finding, ...]] = OrderedDict()
        self._cached_chars = 0
        self._lock = threading.Lock()  # requests are prepared on worker threads too

    def findings(self, text: str) -> tuple[Finding, ...]:
        if len(text) < CACHE_MIN_CHARS:
            return tuple(find_all(text, self.known))
        with self._lock:
            found = self._cache.get(text)
            if found is not None:
                self._cache.move_to_end(text)
                return found
        found = tuple(find_all(text, self.known))
        with self._lock:
            if text not in self._cache:
                self._cache[text] = found
                self._cached_chars += len(text)
            while self._cache and (
                self._cached_chars > CACHE_MAX_CHARS or len(self._cache) > CACHE_MAX_ENTRIES
            ):
                old, _ = self._cache.popitem(last=False)
                self._cached_chars -= len(old)
        return found

    def request(self) -> Redaction:
        """A new request's redaction (its own placeholder numbering)."""
        return Redaction(self)


class Redaction:
    """One request's redaction: every text of the request goes through :meth:`redact`, so one value
    gets one placeholder everywhere in the prompt. ``counts``: what was redacted, by kind."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._by_value: dict[str, str] = {}
        self._by_placeholder: dict[str, tuple[str, str]] = {}  # placeholder -> (value, kind)
        self._numbers: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()

    def placeholder(self, value: str, kind: str) -> str:
        found = self._by_value.get(value)
        if found is not None:
            return found
        self._numbers[kind] += 1
        n = self._numbers[kind]
        made = f"{PLACEHOLDER_START}{kind}>" if n == 1 else f"{PLACEHOLDER_START}{kind} {n}>"
        self._by_value[value] = made
        self._by_placeholder[made] = (value, kind)
        return made

    def redact(self, text: str) -> str:
        return self.redact_with_map(text)[0]

    def redact_with_map(self, text: str) -> tuple[str, OffsetMap]:
        found = self._redactor.findings(text)
        if not found:
            return text, OffsetMap()
        parts: list[str] = []
        spans: list[Span] = []
        at = 0
        length = 0
        for f in found:
            parts.append(text[at : f.start])
            length += f.start - at
            value = text[f.start : f.end]
            ph = self.placeholder(value, f.kind)
            self.counts[f.kind] += 1
            parts.append(ph)
            spans.append(Span(f.start, f.end, length, length + len(ph), ph))
            length += len(ph)
            at = f.end
        parts.append(text[at:])
        return "".join(parts), OffsetMap(spans)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def restore(self, text: str) -> str | None:
        """``text`` (a model's answer) with each placeholder of this request given back its value;
        None when it holds a placeholder of the server's own keys or one this request never made
        (such an answer is not shown)."""
        if PLACEHOLDER_START not in text:
            return text
        out: list[str] = []
        at = 0
        while (i := text.find(PLACEHOLDER_START, at)) >= 0:
            j = text.find(">", i)
            if j < 0:
                return None
            ph = text[i : j + 1]
            known = self._by_placeholder.get(ph)
            if known is None or known[1] == "server-key":
                return None
            out.append(text[at:i])
            out.append(known[0])
            at = j + 1
        out.append(text[at:])
        return "".join(out)
