"""What the filters are built from: the request (:class:`PostprocessContext`) and, per request, the
:class:`Setup` every filter module's ``build`` reads (the cursor analysed once, the leftovers split)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from .cursor import Cursor, analyze, normalize_newlines

BLOCK_SEPARATOR = "..."


class PostprocessContext(BaseModel):
    """What the filters know about the request."""

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


@dataclass(frozen=True)
class Setup:
    """One request's facts, made once for all the filters' ``build`` functions."""

    ctx: PostprocessContext
    cursor: Cursor
    prefix: str  # the prefix with ``\n`` line endings
    blocks: list[tuple[str, str]]  # leftover blocks named by the style (``open...close``)
    tokens: list[str]  # leftover tokens named by the style

    @property
    def more_lines(self) -> bool:
        """The suggestion may go on past its first line: multi-line mode, or the end of an ordinary
        line (whose line may open a block)."""
        return self.cursor.multiline or self.cursor.eol

    @classmethod
    def of(cls, ctx: PostprocessContext, cursor: Cursor | None = None) -> Setup:
        prefix = normalize_newlines(ctx.prefix)
        if cursor is None:
            cursor = analyze(ctx.language, prefix, normalize_newlines(ctx.suffix), ctx.multiline)
        blocks, tokens = split_leftovers(ctx.leftovers)
        return cls(ctx, cursor, prefix, blocks, tokens)
