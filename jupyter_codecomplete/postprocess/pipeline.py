"""The filter pipeline.

MINIMAL SEED — to be completed by the post-processing work (issue 6). Keep the names and signatures.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field


class PostprocessContext(BaseModel):
    language: str | None = None
    prefix: str = ""
    suffix: str = ""
    stop: list[str] = Field(default_factory=list)
    leftovers: list[str] = Field(default_factory=list)
    # whitespace moved out of the prompt by token healing: the output must start with it and it is
    # stripped from the suggestion.
    heal: str = ""
    multiline: bool | None = None


class Pipeline:
    def __init__(self, ctx: PostprocessContext) -> None:
        self.ctx = ctx
        self._raw = ""
        self._shown = 0
        self.done = False

    def _clean(self, final: bool) -> tuple[str, bool]:
        text = self._raw
        ended = False
        cut = len(text)
        for s in self.ctx.stop:
            i = text.find(s)
            if s and i != -1 and i < cut:
                cut, ended = i, True
        text = text[:cut]
        if not final and not ended:
            # hold back a tail that could be the start of a stop sequence
            hold = 0
            for s in self.ctx.stop:
                for k in range(min(len(s) - 1, len(text)), 0, -1):
                    if text.endswith(s[:k]):
                        hold = max(hold, k)
                        break
            text = text[: len(text) - hold]
        return text, ended

    def feed(self, chunk: str) -> str:
        if self.done:
            return ""
        self._raw += chunk
        text, ended = self._clean(final=False)
        self.done = ended
        out = text[self._shown :]
        self._shown = len(text)
        return out

    def finish(self) -> str:
        if self.done:
            return ""
        text, _ = self._clean(final=True)
        text = text.rstrip()
        out = text[self._shown :] if len(text) >= self._shown else ""
        self._shown = max(self._shown, len(text))
        self.done = True
        return out


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
