"""Cleaning for edit predictions: a model's rewrite of the editable region becomes a few small edits.

:func:`clean_edits` takes the document, the region the prompt asked to rewrite and the rewritten
text (as the format's parser read it, ``prompting/edits.py``) and gives the edits
``{start, end, text}`` in the document's offsets (Unicode code points), or none with a note why:

1. the rewrite ends as the region does (with or without a final line break); lines the model
   copied from just outside the region (the line above, the lines below, the whole cell) are
   taken off again;
2. a rewrite that still holds lines from outside the region (the whole cell rewritten, changes
   elsewhere included), one far longer than the region, or one that empties a region that has
   code, is refused;
3. the rewrite is diffed against the region with :mod:`difflib` (line blocks, then each block cut
   to the characters that differ), so renaming a name on four lines is four small edits;
4. no-op edits are dropped (nothing outside the region can be produced: every edit is a span of
   the region);
5. more than ``max_edits`` edits or ``max_changed_chars`` changed characters: none (a model that
   proposes 10,000 edits proposes no edit);
6. the syntax guard (``syntax.py``, tree-sitter): when the document parses as it is, edits are kept
   in order only while the document with them still parses (bounded by the guard's own budget; past
   it the rest are dropped). A document that does not parse yet is not held to it.

Bounded in time: the region is at most a few thousand characters (the prompt builder cuts it), the
diff is over its lines, and the guard makes at most :data:`~.syntax.MAX_CHECKS` parses.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from .languages import grammar_for, rules_for
from .syntax import SyntaxCheck, parser_for

MAX_EDITS = 16
MAX_CHANGED_CHARS = 6_000
# a rewrite may be at most this many times the region's length (plus MAX_CHANGED_CHARS)
MAX_GROWTH = 3
# lines looked at above and below the region for text the model copied from outside it
OVERLAP_LINES = 200
# a line from outside the region this long (without indentation) left in a rewrite: rewritten outside
MIN_COPIED_CHARS = 8
# lines next to the region compared with the rewrite's lines, how alike counts as a copy, and how
# many of the rewrite's lines are compared (bounded time)
NEAR_LINES = 3
SIMILAR = 0.8
MAX_CHECKED_LINES = 400


@dataclass(frozen=True)
class Edit:
    """Replace ``[start, end)`` of the document with ``text``."""

    start: int
    end: int
    text: str


@dataclass
class CleanedEdits:
    edits: list[Edit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class EditLimits:
    max_edits: int = MAX_EDITS
    max_changed_chars: int = MAX_CHANGED_CHARS
    max_growth: int = MAX_GROWTH


def _trim_outside(rewrite: str, current: str, before: str, after: str) -> str:
    """Take off the lines at the rewrite's start that end ``before`` (and are not the region's own
    start), and those at its end that begin ``after`` (and are not the region's own end)."""
    new = rewrite.splitlines(keepends=True)
    cur = current.splitlines(keepends=True)
    above = before.splitlines(keepends=True)[-OVERLAP_LINES:]
    below = after.splitlines(keepends=True)[:OVERLAP_LINES]
    for k in range(min(len(above), len(new)), 0, -1):
        if new[:k] == above[-k:] and cur[:k] != above[-k:]:
            new = new[k:]
            break
    for k in range(min(len(below), len(new)), 0, -1):
        tail = [line if line.endswith("\n") else line + "\n" for line in new[-k:]]
        want = [line if line.endswith("\n") else line + "\n" for line in below[:k]]
        if tail == want and cur[-k:] != below[:k]:
            new = new[:-k]
            break
    return "".join(new)


def _similar(a: str, b: str) -> bool:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= SIMILAR


def _copied_from_outside(rewrite: str, current: str, before: str, after: str) -> bool:
    """Whether the rewrite, once trimmed, still holds a line from just outside the region, as it
    is or changed a little, that is like no line of the region (a model that rewrote the whole
    cell, changing lines outside the region too, so they could not be trimmed). Short lines
    (``pass``, ``}``) do not count."""
    ours = [t for t in (line.strip() for line in current.splitlines()) if t]
    near = before.splitlines()[-NEAR_LINES:] + after.splitlines()[:NEAR_LINES]
    outside = {t for t in (line.strip() for line in near) if len(t) >= MIN_COPIED_CHARS and t not in ours}
    if not outside:
        return False
    for line in rewrite.splitlines()[:MAX_CHECKED_LINES]:
        t = line.strip()
        if len(t) < MIN_COPIED_CHARS or t in ours:
            continue
        if t in outside:
            return True
        if any(_similar(t, o) for o in outside) and not any(_similar(t, c) for c in ours):
            return True
    return False


def _offsets(lines: list[str]) -> list[int]:
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _minimal(old: str, new: str) -> tuple[int, int, str]:
    """``old`` → ``new`` as one replacement without their common start and end, widened to whole
    words where it cuts into one (``items`` → ``prices``, not ``item`` → ``price``): (start, end,
    text) relative to ``old``."""
    p = 0
    n = min(len(old), len(new))
    while p < n and old[p] == new[p]:
        p += 1
    s = 0
    while s < n - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
        s += 1

    def cuts_in(i: int, j: int) -> bool:  # the changed part of either side starts/ends with a word char
        return (i < len(old) - j and _word(old[i])) or (i < len(new) - j and _word(new[i]))

    while p > 0 and _word(old[p - 1]) and cuts_in(p, s):
        p -= 1
    while (
        s > 0
        and _word(old[len(old) - s])
        and (
            (len(old) - s - 1 >= p and _word(old[len(old) - s - 1]))
            or (len(new) - s - 1 >= p and _word(new[len(new) - s - 1]))
        )
    ):
        s -= 1
    return p, len(old) - s, new[p : len(new) - s]


def diff_edits(current: str, rewrite: str, offset: int = 0) -> list[Edit]:
    """The edits that turn ``current`` into ``rewrite`` (offsets + ``offset``): difflib's line
    blocks, each one cut to the characters that differ; an equal-sized block of replaced lines
    gives one edit per changed line."""
    a = current.splitlines(keepends=True)
    b = rewrite.splitlines(keepends=True)
    ao = _offsets(a)
    edits: list[Edit] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            pairs = [(ao[i], ao[i + 1], b[j]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
        else:
            pairs = [(ao[i1], ao[i2], "".join(b[j1:j2]))]
        for start, end, text in pairs:
            s, e, t = _minimal(current[start:end], text)
            if s == e and not t:
                continue  # no-op
            edits.append(Edit(offset + start + s, offset + start + e, t))
    return edits


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` (sorted, not overlapping) applied."""
    out: list[str] = []
    pos = 0
    for e in edits:
        out.append(text[pos : e.start])
        out.append(e.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


# A fix after an error changes the line that raised, it does not replace it: the fixed line keeps
# at least this share of the old one (difflib's ratio; ``"prcie"`` → ``"price"`` keeps 0.96 of
# ``df["prcie"].sum()``, a missing colon or a misspelt name about as much).
MIN_FIX_SIMILARITY = 0.6


def implausible_fix(
    document: str, line: tuple[int, int], edits: list[Edit], language: str | None
) -> str | None:
    """Why ``edits`` are not a fix of the line ``[start, end)`` of ``document`` (a note), or None
    when they are: the line must keep code (not become empty or only a comment) and stay close to
    what it was (:data:`MIN_FIX_SIMILARITY`). A model asked to fix a line may instead go on with the
    error's comment above it, or write another line: offered with Tab, that would destroy the
    user's line."""
    start, end = line
    inside = [
        Edit(e.start - start, e.end - start, e.text) for e in edits if start <= e.start and e.end <= end
    ]
    if not edits or len(inside) != len(edits):
        return None if not edits else "The model's fix reaches past the line that raised; no fix."
    markers = tuple(rules_for(language).line_comments or ("#",))

    def code(text: str) -> str:  # the region's code lines (a format may show the error's comment in it)
        lines = (ln.strip() for ln in text.split("\n"))
        return "\n".join(ln for ln in lines if ln and not ln.startswith(markers))

    old = code(document[start:end])
    new = code(apply_edits(document[start:end], inside))
    if not new:
        return "The model's fix leaves no code on the line that raised; no fix."
    ratio = difflib.SequenceMatcher(None, old, new, autojunk=False).ratio()
    if ratio < MIN_FIX_SIMILARITY:
        return (
            "The model's fix rewrites the line that raised rather than fixing it "
            f"({ratio:.2f} of it kept); no fix."
        )
    return None


def clean_edits(
    document: str,
    region_start: int,
    region_end: int,
    rewrite: str,
    *,
    language: str | None = None,
    limits: EditLimits | None = None,
    before: str | None = None,
    after: str | None = None,
) -> CleanedEdits:
    """The edits of ``rewrite`` (the model's new text for ``document[region_start:region_end]``);
    ``before`` / ``after``: the text the prompt showed around the region (default: the document's)."""
    lim = limits or EditLimits()
    out = CleanedEdits()
    current = document[region_start:region_end]
    if current.endswith("\n") and not rewrite.endswith("\n"):
        rewrite += "\n"
    elif rewrite.endswith("\n") and not current.endswith("\n"):
        rewrite = rewrite[:-1]  # the prompt ended the region with a line break the document lacks
    before_text = document[:region_start] if before is None else before
    after_text = document[region_end:] if after is None else after
    rewrite = _trim_outside(rewrite, current, before_text, after_text)
    if _copied_from_outside(rewrite, current, before_text, after_text):
        out.notes.append("The model rewrote text outside the editable region; no edit.")
        return out
    if len(rewrite) > lim.max_growth * len(current) + lim.max_changed_chars:
        out.notes.append("The model rewrote far more than the editable region; no edit.")
        return out
    if not rewrite.strip() and current.strip():
        out.notes.append("The model's rewrite would empty the editable region; no edit.")
        return out
    edits = diff_edits(current, rewrite, region_start)
    if not edits:
        return out
    changed = sum(e.end - e.start + len(e.text) for e in edits)
    if len(edits) > lim.max_edits or changed > lim.max_changed_chars:
        out.notes.append(
            f"The model proposed {len(edits)} edits ({changed} characters changed); the limit is "
            f"{lim.max_edits} edits and {lim.max_changed_chars} characters: no edit."
        )
        return out
    out.edits = _syntax_guard(document, region_start, region_end, edits, language, out.notes)
    return out


def _syntax_guard(
    document: str, start: int, end: int, edits: list[Edit], language: str | None, notes: list[str]
) -> list[Edit]:
    rules = rules_for(language, document[:start])
    parser = parser_for(grammar_for(language, rules))
    if parser is None:
        return edits
    check = SyntaxCheck(parser, document[:start], document[end:])
    region = document[start:end]

    def rel(es: list[Edit]) -> list[Edit]:
        return [Edit(e.start - start, e.end - start, e.text) for e in es]

    if check.clean(region, force=True) is not True:
        return edits  # broken already (or unparsable here): not the edits' doing
    if check.clean(apply_edits(region, rel(edits))):
        return edits
    kept: list[Edit] = []
    for e in edits:
        ok = check.clean(apply_edits(region, rel([*kept, e])))
        if ok is None:
            break  # the guard's budget is spent: the rest stay out
        if ok:
            kept.append(e)
    if len(kept) < len(edits):
        notes.append(f"{len(edits) - len(kept)} of {len(edits)} edits left out: they break the syntax.")
    return kept


__all__ = [
    "CleanedEdits",
    "Edit",
    "EditLimits",
    "apply_edits",
    "clean_edits",
    "diff_edits",
    "implausible_fix",
]
