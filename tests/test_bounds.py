"""The bounds of issue 18 as units: size limit, streaming scrubber, nesting, the pipeline's gathering."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from jupyter_codecomplete.completion.base import StreamScrubber, SuggestionLimit, with_deadlines
from jupyter_codecomplete.pieces import Piece, tokens_in
from jupyter_codecomplete.postprocess import PostprocessContext, make_pipeline
from jupyter_codecomplete.postprocess.pipeline import BATCH_FROM
from jupyter_codecomplete.protocol import MAX_DEPTH, nesting_depth, number_hint


def test_limit_cuts_at_characters() -> None:
    limit = SuggestionLimit(10, 100)
    assert limit.take("abcdef") == "abcdef"
    assert not limit.reached
    assert limit.take("ghijkl") == "ghij"
    assert limit.reached and limit.take("more") == ""


def test_limit_cuts_before_the_line_past_the_limit() -> None:
    limit = SuggestionLimit(1000, 3)
    assert limit.take("a\nb") == "a\nb"
    assert limit.take("\nc\nd\ne") == "\nc"
    assert limit.reached
    assert "3 lines" in limit.note()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 1000])
def test_scrubber_catches_secrets_split_across_deltas(size: int) -> None:
    secrets = ["sk-0123456789", "tok-abcdefgh"]
    text = "a = 'sk-0123456789'; s = 'sk-01'; b = tok-abcdefgh; sk-0123456789"
    scrubber = StreamScrubber(secrets)
    out = "".join(scrubber.feed(text[i : i + size]) for i in range(0, len(text), size)) + scrubber.finish()
    assert out == "a = '***'; s = 'sk-01'; b = ***; ***"


def test_scrubber_without_secrets_passes_through() -> None:
    scrubber = StreamScrubber([])
    assert scrubber.feed("sk-") == "sk-" and scrubber.finish() == ""


def test_nesting_depth_and_number_hint() -> None:
    assert nesting_depth({"a": [{"b": 1}]}) == 3
    deep: list = []
    for _ in range(100):
        deep = [deep]
    assert nesting_depth(deep) == MAX_DEPTH + 1  # stops counting past the limit
    assert number_hint('{"type": "inline_completion", "number": 12, "prefix": [[[') == 12
    assert number_hint('{"prefix": [{"number": 3}]}') == -1
    assert number_hint("[[[[") == -1
    assert json.loads('{"number": 1}')  # the hint reads text that is not parsed at all


@pytest.mark.parametrize("multiline", [None, False])
@pytest.mark.parametrize("piece", [1, 37, 500])
def test_gathering_never_changes_the_text(multiline: bool | None, piece: int) -> None:
    text = "".join(f"    value_{i} = compute({i})\n" for i in range(2 * BATCH_FROM // 20)) + "x" * BATCH_FROM
    ctx = PostprocessContext(language="python", prefix="def f():\n", suffix="", multiline=multiline)
    whole = make_pipeline(ctx)
    expected = whole.feed(text) + whole.finish()
    p = make_pipeline(ctx)
    out = []
    for i in range(0, len(text), piece):
        out.append(p.feed(text[i : i + piece]))
        if p.done:
            break
    out.append(p.finish())
    assert "".join(out) == expected


async def _through_deadlines(items: list[str], max_chars: int | None = None, piece: int = 4096) -> list[str]:
    async def source() -> AsyncIterator[str]:
        for item in items:
            yield item

    out = with_deadlines(source(), None, None, max_chars=max_chars, piece=piece)
    return [p async for p in out]


async def test_a_long_piece_cut_in_slices_keeps_its_token_count() -> None:
    # one read of 10 tokens, 10,000 characters: re-yielded in slices, its 10 tokens counted once
    out = await _through_deadlines([Piece("x" * 10_000, 10), "y"], piece=4096)
    assert [len(p) for p in out] == [4096, 4096, 1808, 1]
    assert [tokens_in(p) for p in out] == [0, 0, 10, 1]


async def test_a_piece_cut_at_the_raw_text_bound_keeps_its_token_count() -> None:
    out = await _through_deadlines([Piece("abcdef", 6), Piece("ghijkl", 6)], max_chars=9)
    assert out == ["abcdef", "ghi"]
    assert [tokens_in(p) for p in out] == [6, 6]
