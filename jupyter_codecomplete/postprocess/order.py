"""The order of the filters: ONE list, read by the pipeline, the docs table and the tests.

Each entry names a filter (its class) and the ``build`` function of its module, which makes the
filter for a request, or nothing when it does not apply (no ``Brackets`` for Markdown, no ``Scope``
in single-line mode). Each filter sees the output of the one before it. The stages follow each other
in the list ("text": cleaning the model's text, "shape": where the suggestion ends, "post": line
endings); the syntax guard works between the "shape" and the "post" filters (see ``pipeline``).

A new filter: its module (the class and ``build``), its line here, its test, its row in
docs/postprocessing.md (a test checks the table against this list).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from . import (
    cut_at_stops,
    drop_leading_space,
    end_at_bracket,
    end_at_known_tokens,
    end_at_sentence,
    hold_last_line,
    keep_first_lines,
    limit_lines,
    limit_scope,
    normalize_crlf,
    reject_degenerate,
    remove_blocks,
    remove_repetition,
    remove_tokens,
    restore_line_ending,
    stop_at_suffix_lines,
    strip_echo,
    strip_fences,
    strip_heal,
    strip_suffix_overlap,
    trim_trailing_whitespace,
)
from .base import Filter
from .context import Setup

STAGES = ("text", "shape", "post")


@dataclass(frozen=True)
class Step:
    """One place in the order: the filter's class and its module's ``build``."""

    filter: type[Filter]
    build: Callable[[Setup], Iterator[Filter]]

    @property
    def name(self) -> str:
        return self.filter.__name__

    @property
    def module(self) -> str:
        """The filter's module, named by what it does (``limit_scope``)."""
        return self.filter.__module__.rpartition(".")[2]


ORDER: tuple[Step, ...] = (
    Step(normalize_crlf.CrlfNormalize, normalize_crlf.build),
    Step(remove_blocks.LeftoverBlocks, remove_blocks.build),
    Step(cut_at_stops.StopSequences, cut_at_stops.build),
    Step(end_at_known_tokens.KnownTokens, end_at_known_tokens.build),
    Step(remove_tokens.LeftoverTokens, remove_tokens.build),
    Step(strip_heal.Heal, strip_heal.build),
    Step(strip_fences.Fences, strip_fences.build),
    Step(strip_echo.Echo, strip_echo.build),
    Step(drop_leading_space.LeadingSpace, drop_leading_space.build),
    Step(keep_first_lines.FirstLines, keep_first_lines.build),
    Step(limit_lines.LineLimit, limit_lines.build),
    Step(strip_suffix_overlap.SuffixOverlap, strip_suffix_overlap.build),
    Step(limit_scope.Scope, limit_scope.build),
    Step(stop_at_suffix_lines.SuffixLines, stop_at_suffix_lines.build),
    Step(remove_repetition.Repetition, remove_repetition.build),
    Step(end_at_bracket.Brackets, end_at_bracket.build),
    Step(end_at_sentence.Sentence, end_at_sentence.build),
    Step(hold_last_line.LastLine, hold_last_line.build),
    Step(trim_trailing_whitespace.TrailingWhitespace, trim_trailing_whitespace.build),
    Step(reject_degenerate.Degenerate, reject_degenerate.build),
    Step(restore_line_ending.LineEnding, restore_line_ending.build),
)


def build_filters(setup: Setup) -> list[Filter]:
    """The filters for one request, in :data:`ORDER` (only those that apply)."""
    return [f for step in ORDER for f in step.build(setup)]
