"""The filter pipeline: :class:`PostprocessContext` -> the filters of :data:`.order.ORDER` that apply.

Each filter sees the output of the one before it; the order is that one list (see ``order``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..pieces import tokens_in
from .base import Filter
from .context import PostprocessContext, Setup
from .cursor import Cursor
from .hold_last_line import LastLine
from .languages import grammar_for
from .order import build_filters as build_ordered
from .syntax import SyntaxCheck, SyntaxGuard, parser_for


def build_filters(ctx: PostprocessContext, cursor: Cursor | None = None) -> list[Filter]:
    """The filters for this request, in order (only those that apply)."""
    return build_ordered(Setup.of(ctx, cursor))


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
            # the engine passes the cursor it analysed once in ``prepare``
            setup = Setup.of(ctx, cursor)
            cursor = setup.cursor
            filters = build_ordered(setup)
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
        self._pieces = 0  # the model's tokens fed (pieces.tokens_in: the token limit's count)
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
        """The model has sent as many tokens (events) as its token limit allows: it was most likely cut off
        there (pass it to :meth:`finish` as ``truncated``)."""
        limit = self.ctx.max_tokens
        return limit is not None and self._pieces >= limit

    def feed(self, chunk: str) -> str:
        if self.done:
            return ""
        self._pieces += tokens_in(chunk)
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
