"""A real (if weak) completion model for the restraint replay: the standard library's most frequent
line with what the user has typed on the line as its start.

The replay's scripted model is right with a chance fixed per kind of place, so within a place
nothing tells a kept suggestion from a wasted one. A model that has learned something is right
where its data repeats (imports, ``def __init__(self``, ``raise ValueError(``, closing a call) and
wrong where it has nothing to go on; this one has learned lines, by counting them. Nobody sets
its rates: where it is right follows from the corpus.

- *Corpus*: the top-level modules of this Python's standard library, without the modules the
  replay types (those are the user's own code, never seen).
- *Mid-line*: the typed part of the line (after its indentation) is a prefix; the answer is the
  rest of the most frequent corpus line (stripped) with that prefix, seen at least twice; a range
  maximum query over the sorted lines finds it in O(1). When no line starts so, the longest end
  of the typed text that starts at a token (at least :data:`MIN_MATCH` characters) is looked up
  among the ends of the corpus lines that start at a token, the same way (backing off, as an
  n-gram model does).
- *Fresh line*: the most frequent line that follows the previous line (stripped) in the corpus,
  seen at least twice, with the previous line's indentation (one level more after a ``:``).

Answers go to the end of the line, as the scripted model's do.
"""

from __future__ import annotations

import bisect
import collections
import os
import re
from collections.abc import Iterable
from pathlib import Path

MIN_COUNT = 2
MIN_MATCH = 4
INDENT = "    "
TOKEN = re.compile(r"\w+|[^\w\s]")


class _Index:
    """Strings with counts, sorted, and the most frequent one with a given start in O(1)."""

    def __init__(self, counts: collections.Counter[str]) -> None:
        self.keys = sorted(counts)
        self.counts = [counts[k] for k in self.keys]
        table = [list(range(len(self.keys)))]
        span = 1
        while 2 * span <= len(self.keys):
            prev = table[-1]
            table.append(
                [a if self.counts[a] >= self.counts[b] else b for a, b in zip(prev, prev[span:], strict=False)]
            )
            span *= 2
        self._table = table

    def complete(self, start: str) -> str | None:
        """The rest of the most frequent string that starts with ``start`` (seen MIN_COUNT times and
        longer than it), or None."""
        lo = bisect.bisect_left(self.keys, start)
        hi = bisect.bisect_left(self.keys, start + "\U0010ffff")
        if hi <= lo:
            return None
        level = (hi - lo).bit_length() - 1
        a, b = self._table[level][lo], self._table[level][hi - (1 << level)]
        best = a if self.counts[a] >= self.counts[b] else b
        if self.counts[best] < MIN_COUNT or self.keys[best] == start:
            return None
        return self.keys[best][len(start) :]


def stdlib_files(exclude: Iterable[str]) -> list[Path]:
    """The standard library's top-level modules, without ``exclude`` (module names)."""
    skip = set(exclude)
    root = Path(os.__file__).parent
    return sorted(p for p in root.glob("*.py") if p.stem not in skip and not p.stem.startswith("_"))


class LineModel:
    def __init__(self, files: Iterable[Path]) -> None:
        counts: collections.Counter[str] = collections.Counter()
        ends: collections.Counter[str] = collections.Counter()
        follows: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for path in files:
            previous = None
            for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
                line = raw.strip()
                if not line:
                    continue
                counts[line] += 1
                for m in TOKEN.finditer(line):
                    if m.start():
                        ends[line[m.start() :]] += 1
                if previous is not None:
                    follows[previous][line] += 1
                previous = line
        self._lines = _Index(counts)
        self._ends = _Index(ends)
        self.follows = {
            prev: best for prev, c in follows.items() for best, n in [c.most_common(1)[0]] if n >= MIN_COUNT
        }

    def answer(self, before: str) -> str:
        """The suggestion after ``before`` (the document up to the cursor), to the end of the line."""
        start = before.rfind("\n") + 1
        typed = before[start:]
        text = typed.lstrip()
        if not text:
            # a fresh line (or only its indentation typed): the line that usually follows
            head = before[:start].rstrip("\n")
            prev_start = head.rfind("\n") + 1
            prev = head[prev_start:]
            while not prev.strip() and prev_start > 0:
                head = head[: prev_start - 1]
                prev_start = head.rfind("\n") + 1
                prev = head[prev_start:]
            line = self.follows.get(prev.strip())
            if not line:
                return ""
            indent = prev[: len(prev) - len(prev.lstrip())]
            if prev.rstrip().endswith(":"):
                indent += INDENT
            if not indent.startswith(typed):
                return ""
            return indent[len(typed) :] + line
        rest = self._lines.complete(text)
        if rest is not None:
            return rest
        for m in TOKEN.finditer(text):
            end = text[m.start() :]
            if len(end) < MIN_MATCH:
                break
            if m.start() and (rest := self._ends.complete(end)) is not None:
                return rest
        return ""

    def answers(self, text: str) -> list[str]:
        """The answer at every position of ``text`` (the replay's user only ever writes ``text``, so
        the document at position ``t`` is ``text[:t]``)."""
        return [self.answer(text[:t]) for t in range(len(text) + 1)]
