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
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from .base import Filter
from .brackets import Brackets
from .cursor import Cursor, analyze, normalize_newlines
from .leftovers import END_TOKENS, PAD_TOKENS, THINK_BLOCKS, KnownTokens
from .linefilters import Echo, Fences, LineLimit, Repetition, Scope, SuffixLines, SuffixOverlap
from .shape import FirstLines
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
    ending = ctx.line_ending
    if ending is None:
        ending = "\r\n" if "\r\n" in ctx.prefix or "\r\n" in ctx.suffix else "\n"
    if ending != "\n":
        filters.append(LineEnding(ending))
    return filters


class Pipeline:
    """Feed model chunks; get back only new text that is safe to show (never taken back)."""

    def __init__(self, ctx: PostprocessContext, filters: list[Filter] | None = None) -> None:
        self.ctx = ctx
        self.filters = filters if filters is not None else build_filters(ctx)
        self.done = False

    def feed(self, chunk: str) -> str:
        if self.done:
            return ""
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

    def finish(self, truncated: bool = False) -> str:
        """The rest, at the end of the stream. ``truncated``: the model stopped at its token limit
        (finish reason ``length``): a last line it was still writing is dropped."""
        if self.done:
            return ""
        if truncated:
            for f in self.filters:
                if isinstance(f, LastLine):
                    f.truncated = True
        text = ""
        for f in self.filters:
            text = (f.feed(text) if text else "") + f.finish()
        self.done = True
        return text


def make_pipeline(ctx: PostprocessContext) -> Pipeline:
    return Pipeline(ctx)


def postprocess(ctx: PostprocessContext, chunks: Iterable[str], truncated: bool = False) -> str:
    p = make_pipeline(ctx)
    out = []
    for c in chunks:
        out.append(p.feed(c))
        if p.done:
            break
    out.append(p.finish(truncated))
    return "".join(out)
