"""The filter pipeline: :class:`PostprocessContext` -> a chain of small stream filters.

Order (each filter sees the output of the previous one):

1. ``CrlfNormalize`` — work on ``\\n`` (``LineEnding`` restores the document's ending at the end)
2. ``LeftoverBlocks`` — ``<think>...</think>``-style blocks named by the prompt style
3. ``StopSequences`` — the style's and the request's stop sequences
4. ``LeftoverTokens`` — single leftover tokens (``<|file_sep|>``, ``<EOT>``)
5. ``Heal`` — whitespace that token healing moved out of the prompt
6. ``Fences`` — markdown code fences
7. ``Echo`` — the prefix echoed back
8. ``LineLimit`` — single-line mode (or ``max_lines``)
9. ``SuffixOverlap`` — the end of the first line repeats the rest of the cursor's line
10. ``Scope`` / ``SuffixLines`` / ``Repetition`` — multi-line only
11. ``Brackets`` — unmatched closing bracket (and SQL ``;``)
12. ``Sentence`` — prose (Markdown): one sentence
13. ``TrailingWhitespace``
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from .base import Filter
from .brackets import Brackets
from .cursor import Cursor, analyze, normalize_newlines
from .linefilters import Echo, Fences, LineLimit, Repetition, Scope, SuffixLines, SuffixOverlap
from .textfilters import (
    CrlfNormalize,
    Heal,
    LeftoverBlocks,
    LeftoverTokens,
    LineEnding,
    Sentence,
    StopSequences,
    TrailingWhitespace,
)

BLOCK_SEPARATOR = "..."


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
    if blocks:
        filters.append(LeftoverBlocks(blocks))
    stops = [normalize_newlines(s) for s in ctx.stop if s]
    if stops:
        filters.append(StopSequences(stops))
    if tokens:
        filters.append(LeftoverTokens(tokens))
    if ctx.heal:
        filters.append(Heal(normalize_newlines(ctx.heal)))
    if rules.fences:
        filters.append(Fences())
    if prefix.strip():
        filters.append(Echo(prefix))
    if not cursor.multiline:
        filters.append(LineLimit(1))
    elif ctx.max_lines is not None:
        filters.append(LineLimit(max(1, ctx.max_lines)))
    if cursor.rest.strip():
        filters.append(SuffixOverlap(cursor.rest, cursor.scanner.copy()))
    if cursor.multiline:
        filters.append(Scope(cursor))
        filters.append(SuffixLines(cursor))
        filters.append(Repetition(cursor.line))
    if rules.brackets or rules.statement_end:
        filters.append(Brackets(cursor.scanner.copy(), cursor.protected_from, cursor.multiline))
    if rules.prose:
        filters.append(Sentence())
    filters.append(TrailingWhitespace())
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


class Pipeline:
    """Feed model chunks; get back only new text that is safe to show (never taken back)."""

    def __init__(self, ctx: PostprocessContext, filters: list[Filter] | None = None) -> None:
        self.ctx = ctx
        self.filters = filters if filters is not None else build_filters(ctx)
        self.done = False
        self._fed = 0
        self._gathered: list[str] = []
        self._gathered_len = 0

    def feed(self, chunk: str) -> str:
        if self.done:
            return ""
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
        text = chunk
        ended = False
        for f in self.filters:
            text = f.feed(text) if text else ""
            if ended:
                text += f.finish()
            elif f.done:
                ended = True
        if ended:
            self.done = True
        return text

    def finish(self) -> str:
        if self.done:
            return ""
        out = ""
        if self._gathered:
            out = self._feed("".join(self._gathered))
            self._gathered, self._gathered_len = [], 0
            if self.done:
                return out
        text = ""
        for f in self.filters:
            text = (f.feed(text) if text else "") + f.finish()
        self.done = True
        return out + text


def make_pipeline(ctx: PostprocessContext) -> Pipeline:
    return Pipeline(ctx)


def postprocess(ctx: PostprocessContext, chunks: Iterable[str]) -> str:
    p = make_pipeline(ctx)
    out = []
    for c in chunks:
        out.append(p.feed(c))
        if p.done:
            break
    out.append(p.finish())
    return "".join(out)
