"""The syntax guard: a suggestion is never syntactically worse than the model's own output.

The hand-written filters decide where a suggestion ends from lines, indentation and a bracket
scanner. Where they cut code that was complete (a block closed only further down, a string whose
closing line they did not expect), the document is left broken although the model wrote it whole.
The guard parses with a real parser — tree-sitter with the precompiled grammars of
``tree-sitter-language-pack`` (no download at run time) — and, when ``prefix + suggestion + suffix``
has syntax errors, extends the suggestion line by line through the model's cleaned output (what the
"text" filters passed on) up to the first end that parses. It never takes text back.

Bounded: the document is parsed in a window around the cursor (:data:`WINDOW` characters each side,
from a line at column 0), at most :data:`MAX_CHECKS` parses and :data:`BUDGET_S` seconds per
request; past that the suggestion ends as the filters said. Without the parser (not installed, or
no grammar for the language) there is no guard.
"""

from __future__ import annotations

import threading
import time
from typing import Any

WINDOW = 8000
MAX_CHECKS = 16
BUDGET_S = 0.03
MAX_EXTENSION = 2000  # characters of output the guard reads past the filters' end

_local = threading.local()
_missing: set[str] = set()


def parser_for(grammar: str | None) -> Any | None:
    """A tree-sitter parser for ``grammar`` (one per thread; parsers are not thread-safe), or None."""
    if not grammar or grammar in _missing:
        return None
    cache: dict[str, Any] | None = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    parser = cache.get(grammar)
    if parser is None:
        try:
            from tree_sitter_language_pack import get_parser

            # arg-type: the pack types names as a Literal; ours come from the language table at run time
            parser = get_parser(grammar)  # type: ignore[arg-type]
        except Exception:  # not installed, unknown grammar, or a pack that would download it
            _missing.add(grammar)
            return None
        cache[grammar] = parser
    return parser


def _window(prefix: str, suffix: str) -> tuple[str, str]:
    if len(prefix) > WINDOW:
        start = len(prefix) - WINDOW
        # from a line at column 0 (a top-level statement), so the window starts cleanly
        i = start
        while True:
            i = prefix.find("\n", i)
            if i < 0 or i + 1 >= len(prefix):
                i = prefix.find("\n", start)
                break
            if not prefix[i + 1 : i + 2].isspace():
                break
            i += 1
        prefix = prefix[i + 1 :] if i >= 0 else prefix[start:]
    if len(suffix) > WINDOW:
        end = suffix.rfind("\n", 0, WINDOW)
        suffix = suffix[: end if end > 0 else WINDOW]
    return prefix, suffix


class SyntaxCheck:
    """Does ``prefix + middle + suffix`` parse without errors? Bounded per request."""

    def __init__(self, parser: Any, prefix: str, suffix: str) -> None:
        self._parser = parser
        self._prefix, self._suffix = _window(prefix, suffix)
        self._checks = 0
        self._spent = 0.0

    @property
    def exhausted(self) -> bool:
        return self._checks >= MAX_CHECKS or self._spent >= BUDGET_S

    def clean(self, middle: str, force: bool = False) -> bool | None:
        """True: parses; False: has errors; None: over budget (no answer; ``force``: parse anyway)."""
        tree = self._parse(middle, force)
        return None if tree is None else not tree.root_node.has_error

    def error_in_prefix(self, middle: str) -> bool | None:
        """None: parses (or over budget); True: the first syntax error lies before the cursor (not
        the suggestion's doing); False: it lies in or after the suggestion."""
        tree = self._parse(middle)
        if tree is None:
            return None
        node = tree.root_node
        if not node.has_error:
            return None
        while not (node.is_error or node.is_missing):
            child = next((c for c in node.children if c.has_error or c.is_error or c.is_missing), None)
            if child is None:
                break
            node = child
        # an ERROR node ends where the parser recovered: within the prefix, the prefix is broken
        end = node.start_byte if node.is_missing else node.end_byte
        return bool(end < len(self._prefix.encode("utf-8")))

    def _parse(self, middle: str, force: bool = False) -> Any | None:
        if self.exhausted and not force:
            return None
        t0 = time.perf_counter()
        try:
            return self._parser.parse((self._prefix + middle + self._suffix).encode("utf-8"))
        finally:
            self._checks += 1
            self._spent += time.perf_counter() - t0


class SyntaxGuard:
    """Follows a pipeline: ``base`` (the cleaned model text) and ``shown`` (the suggestion so far).

    :meth:`needs_more` is asked once the filters end the suggestion: False when it parses (or
    cannot be helped). Then :meth:`extension` is asked as more base text arrives, and at the end.
    """

    def __init__(self, check: SyntaxCheck) -> None:
        self.check = check
        self._scan = 0  # base offset from which line ends are still to be tried

    def needs_more(self, shown: str, base: str, final: bool) -> bool:
        if not base.startswith(shown) or (final and base.rstrip() == shown):
            return False  # nothing to extend into (or nothing was cut)
        if self.check.error_in_prefix(shown) is not False:
            return False  # parses, over budget, or the document is broken before the cursor already
        self._scan = len(shown)
        return True

    def extension(self, shown: str, base: str, final: bool, truncated: bool = False) -> str | None:
        """The text to add to ``shown`` so the document parses, from complete lines of ``base`` (and,
        at the end, all of it unless truncated); None: not found yet ("" at the end: give up).

        While the output streams, complete lines are tried one by one within the budget. At the end,
        the whole output is tried first (one parse beyond the budget): if it does not parse either,
        the raw output was no better and the suggestion stays as the filters made it; if it does, the
        first line end that parses (within the budget) or else the whole output is the answer."""
        limit = len(shown) + MAX_EXTENSION
        while not self.check.exhausted:
            nl = base.find("\n", self._scan, limit)
            if nl < 0:
                break
            cand = base[:nl].rstrip()
            if len(cand) > len(shown):
                ok = self.check.clean(cand)
                if ok is None:
                    break
                if ok:
                    return cand[len(shown) :]
            self._scan = nl + 1
        if not final:
            return "" if len(base) > limit else None
        full = base.rstrip() if not truncated else base[: base.rfind("\n") + 1].rstrip()
        if not len(shown) < len(full) <= limit or not self.check.clean(full, force=True):
            return ""
        return full[len(shown) :]
