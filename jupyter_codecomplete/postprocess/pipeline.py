"""The filter pipeline: :class:`PostprocessContext` -> a chain of small stream filters.

Order (each filter sees the output of the previous one):

1. ``CrlfNormalize`` — work on ``\\n`` (``LineEnding`` restores the document's ending at the end)
2. ``LeftoverBlocks`` — ``<think>...</think>`` (always) and blocks named by the prompt style
3. ``StopSequences`` — the style's and the request's stop sequences
3b. ``KnownTokens`` — every family's end tokens end the suggestion, pad tokens are removed (whatever
    the style: see ``leftovers``)
4. ``LeftoverTokens`` — single leftover tokens named by the style
5. ``Heal`` — whitespace that token healing moved out of the prompt
6. ``Fences`` — markdown code fences
7. ``Echo`` — the prefix echoed back
8. ``LineLimit`` — single-line mode (or ``max_lines``)
9. ``SuffixOverlap`` — the end of the first line repeats the rest of the cursor's line
10. ``Scope`` / ``SuffixLines`` / ``Repetition`` — multi-line only
11. ``Brackets`` — unmatched closing bracket (and SQL ``;``)
12. ``Sentence`` — prose (Markdown): one sentence
13. ``TrailingWhitespace``
14. ``Degenerate`` — only when asked (the demo model): repeated names, number runs -> nothing

(``LeadingSpace``, ``FirstLines`` and ``LastLine`` are described in docs/postprocessing.md; the
syntax guard works between the "shape" filters and ``LineEnding``.)
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from .base import Filter
from .brackets import Brackets
from .cursor import Cursor, analyze, normalize_newlines
from .degenerate import Degenerate
from .languages import grammar_for
from .leftovers import END_TOKENS, PAD_TOKENS, THINK_BLOCKS, KnownTokens
from .linefilters import Echo, Fences, LineLimit, Repetition, Scope, SuffixLines, SuffixOverlap
from .shape import FirstLines
from .syntax import SyntaxCheck, SyntaxGuard, parser_for
from .textfilters import (
    CrlfNormalize,
    Heal,
    LastLine,
    LeadingSpace,
    LeftoverBlocks,
    LeftoverTokens,
    LineEnding,
    Sentence,
    StopSequences,
    TrailingWhitespace,
)

BLOCK_SEPARATOR = "..."
# a mid-line suggestion keeps its trailing space unless the rest of the line starts with one of these
_NO_SPACE_BEFORE = frozenset(" \t)]},;:.")


class PostprocessContext(BaseModel):
    language: str | None = None
    prefix: str = ""
    suffix: str = ""
    # the prompt style's and the request's stop sequences
    stop: list[str] = Field(default_factory=list)
    # model-specific leftovers to remove: tokens (``<|file_sep|>``) or blocks written ``open...close``
    # (``<think>...</think>``: the block and its content are removed)
    leftovers: list[str] = Field(default_factory=list)
    # whitespace moved out of the prompt by token healing: the output must start with it and it is
    # stripped from the suggestion.
    heal: str = ""
    # None: decide from the cursor (end of line after a block opener / open bracket, or an empty
    # line: multi-line; otherwise single-line)
    multiline: bool | None = None
    # None: "\r\n" when the prefix or suffix uses it, else "\n"
    line_ending: str | None = None
    # multi-line: keep at most this many lines (None: no limit)
    max_lines: int | None = None
    # degenerate output (the same name repeated, runs of numbers, only punctuation) becomes no
    # suggestion; the suggestion is then held back until complete (used for the demo model)
    reject_degenerate: bool = False
    # the model's token limit for this request, counted in the pieces fed (one streamed event is
    # one token for the servers we speak to): a line that starts far from it streams at once
    # instead of being held until complete (``LastLine``). None: unknown (every line is held).
    max_tokens: int | None = None


def split_leftovers(leftovers: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    blocks: list[tuple[str, str]] = []
    tokens: list[str] = []
    for item in leftovers:
        if not item:
            continue
        head, sep, tail = item.partition(BLOCK_SEPARATOR)
        if sep and head and tail:
            blocks.append((normalize_newlines(head), normalize_newlines(tail)))
        else:
            tokens.append(normalize_newlines(item))
    return blocks, tokens


def build_filters(ctx: PostprocessContext, cursor: Cursor | None = None) -> list[Filter]:
    """The filters for this request, in order (only those that apply)."""
    prefix = normalize_newlines(ctx.prefix)
    suffix = normalize_newlines(ctx.suffix)
    if cursor is None:
        cursor = analyze(ctx.language, prefix, suffix, ctx.multiline)
    rules = cursor.rules
    filters: list[Filter] = [CrlfNormalize()]
    blocks, tokens = split_leftovers(ctx.leftovers)
    blocks = list(dict.fromkeys([*blocks, *THINK_BLOCKS]))
    filters.append(LeftoverBlocks(blocks))
    stops = [normalize_newlines(s) for s in ctx.stop if s]
    if stops:
        filters.append(StopSequences(stops))
    # a token the style names as a leftover is removed, not an end
    filters.append(
        KnownTokens(
            tuple(t for t in END_TOKENS if t not in tokens), tuple(t for t in PAD_TOKENS if t not in tokens)
        )
    )
    if tokens:
        filters.append(LeftoverTokens(tokens))
    if ctx.heal:
        filters.append(Heal(normalize_newlines(ctx.heal)))
    if rules.fences:
        filters.append(Fences())
    if prefix.strip():
        filters.append(Echo(prefix))
    if cursor.line.strip() and cursor.line[-1:] in (" ", "\t") and not cursor.scanner.in_string:
        filters.append(LeadingSpace())
    if cursor.eol:
        filters.append(FirstLines(cursor))
    elif not cursor.multiline:
        filters.append(LineLimit(1))
    if ctx.max_lines is not None and (cursor.multiline or cursor.eol):
        filters.append(LineLimit(max(1, ctx.max_lines)))
    if cursor.rest.strip():
        filters.append(SuffixOverlap(cursor.rest, cursor.scanner.copy()))
    if cursor.multiline:
        filters.append(Scope(cursor))
    if cursor.multiline or cursor.eol:
        filters.append(SuffixLines(cursor))
        filters.append(Repetition(cursor.line))
    if rules.brackets or rules.statement_end:
        filters.append(
            Brackets(
                cursor.scanner.copy(),
                cursor.protected_from,
                cursor.multiline or cursor.eol,
                end_with_string=cursor.in_block_string,
            )
        )
    if rules.prose:
        filters.append(Sentence())
    if cursor.multiline or cursor.eol:
        filters.append(LastLine())
    rest = cursor.rest
    filters.append(TrailingWhitespace(keep_space=bool(rest) and rest[0] not in _NO_SPACE_BEFORE))
    if ctx.reject_degenerate:
        filters.append(Degenerate())
    ending = ctx.line_ending
    if ending is None:
        ending = "\r\n" if "\r\n" in ctx.prefix or "\r\n" in ctx.suffix else "\n"
    if ending != "\n":
        filters.append(LineEnding(ending))
    return filters


# Amortised cost: past BATCH_FROM characters, chunks are gathered until they make 1/BATCH_RATIO of
# what was fed so far, so a filter whose work per call grows with the text (the current line, the
# text held back) is called O(log n) times more, not once per chunk (issue 18: 10,000 chunks of 500
# bytes cost 14 s before). Text is never changed by the gathering, only delayed.
BATCH_FROM = 8192
BATCH_RATIO = 8


def _run(filters: list[Filter], text: str, ended: bool = False) -> tuple[str, bool]:
    """Feed ``text`` through a chain; once a filter has ended, the ones after it finish."""
    for f in filters:
        text = f.feed(text) if text else ""
        if ended:
            text += f.finish()
        elif f.done:
            ended = True
    return text, ended


def _finish(filters: list[Filter], text: str = "") -> str:
    for f in filters:
        text = (f.feed(text) if text else "") + f.finish()
    return text


def syntax_guard(ctx: PostprocessContext, cursor: Cursor) -> SyntaxGuard | None:
    """The guard for a suggestion in a language with a grammar (not for prose, and never for a
    request that asks for a single line: ``multiline=False``, nor when degenerate output is rejected:
    an empty suggestion there is a decision, not a cut)."""
    if cursor.rules.prose or ctx.multiline is False or ctx.reject_degenerate:
        return None
    parser = parser_for(grammar_for(ctx.language, cursor.rules))
    if parser is None:
        return None
    return SyntaxGuard(SyntaxCheck(parser, cursor.prefix, cursor.suffix))


class Pipeline:
    """Feed model chunks; get back only new text that is safe to show (never taken back).

    The filters run in three stages (``Filter.stage``): "text" (cleaning the model's text), "shape"
    (where the suggestion ends), "post" (line endings). Between "shape" and "post" the syntax guard
    may extend a suggestion that the filters left syntactically broken (see ``syntax``).
    """

    def __init__(
        self,
        ctx: PostprocessContext,
        filters: list[Filter] | None = None,
        guard: bool = True,
        cursor: Cursor | None = None,
    ) -> None:
        self.ctx = ctx
        if filters is None:
            if cursor is None:  # the engine passes the cursor it analysed once in ``prepare``
                prefix, suffix = normalize_newlines(ctx.prefix), normalize_newlines(ctx.suffix)
                cursor = analyze(ctx.language, prefix, suffix, ctx.multiline)
            filters = build_filters(ctx, cursor)
        self.filters = filters
        self._text = [f for f in filters if f.stage == "text"]
        self._shape = [f for f in filters if f.stage == "shape"]
        self._post = [f for f in filters if f.stage == "post"]
        self._guard = syntax_guard(ctx, cursor) if guard and cursor is not None else None
        self._base: list[str] = []  # the cleaned model text (the guard reads it)
        self._shown: list[str] = []  # the suggestion so far, before "post"
        self._extending = False
        self._text_ended = False
        self.done = False
        self._fed = 0
        self._pieces = 0  # model pieces fed (the token limit is counted in them)
        self._last_lines = [f for f in filters if isinstance(f, LastLine)]
        self._gathered: list[str] = []
        self._gathered_len = 0

    def _post_run(self, text: str) -> str:
        return _run(self._post, text)[0] if text and self._post else text

    def _ended(self, final: bool, truncated: bool = False) -> str:
        """The filters ended the suggestion: ask the guard; returns what it adds."""
        guard = self._guard
        if guard is None or any(f.final for f in self._shape):
            self.done = True
            return ""
        shown, base = "".join(self._shown), "".join(self._base)
        if not self._extending:
            if not guard.needs_more(shown, base, final or self._text_ended):
                self.done = True
                return ""
            self._extending = True
        ext = guard.extension(shown, base, final or self._text_ended, truncated)
        if ext is None:
            return ""
        self.done = True
        return ext

    @property
    def budget_spent(self) -> bool:
        """The model has sent as many pieces as its token limit allows: it was most likely cut off
        there (pass it to :meth:`finish` as ``truncated``)."""
        limit = self.ctx.max_tokens
        return limit is not None and self._pieces >= limit

    def feed(self, chunk: str) -> str:
        if self.done:
            return ""
        self._pieces += 1
        if self._last_lines and self.ctx.max_tokens is not None:
            left = self.ctx.max_tokens - self._pieces
            for f in self._last_lines:
                f.budget_left = left
        if self._fed >= BATCH_FROM:
            self._gathered.append(chunk)
            self._gathered_len += len(chunk)
            if self._gathered_len * BATCH_RATIO < self._fed:
                return ""
            chunk = "".join(self._gathered)
            self._gathered, self._gathered_len = [], 0
        self._fed += len(chunk)
        return self._feed(chunk)

    def _feed(self, chunk: str) -> str:
        text, self._text_ended = _run(self._text, chunk)
        if self._guard is not None:
            self._base.append(text)
        if self._extending:
            return self._post_run(self._ended(False))
        out, ended = _run(self._shape, text, self._text_ended)
        if self._guard is not None:
            self._shown.append(out)
        if ended or self._text_ended:
            out += self._ended(False)
        return self._post_run(out)

    def finish(self, truncated: bool = False) -> str:
        """The rest, at the end of the stream. ``truncated``: the model stopped at its token limit
        (finish reason ``length``): a last line it was still writing is dropped."""
        if self.done:
            return ""
        gathered = ""
        if self._gathered:  # what was held for gathering goes through first
            gathered = self._feed("".join(self._gathered))
            self._gathered, self._gathered_len = [], 0
            if self.done:
                return gathered
        if truncated:
            for f in self.filters:
                if isinstance(f, LastLine):
                    f.truncated = True
        text = _finish(self._text)
        if self._guard is not None:
            self._base.append(text)
        if self._extending:
            out = self._ended(True, truncated)
        else:
            out = _finish(self._shape, text)
            self._shown.append(out)
            out += self._ended(True, truncated)
        self.done = True
        return gathered + _finish(self._post, out)


def make_pipeline(ctx: PostprocessContext, cursor: Cursor | None = None) -> Pipeline:
    """The pipeline for ``ctx``; ``cursor``: the analysis already made of ``ctx``'s prefix and suffix."""
    return Pipeline(ctx, cursor=cursor)


def postprocess(ctx: PostprocessContext, chunks: Iterable[str], truncated: bool = False) -> str:
    p = make_pipeline(ctx)
    out = []
    for c in chunks:
        out.append(p.feed(c))
        if p.done:
            break
    out.append(p.finish(truncated))
    return "".join(out)
