"""What the pipeline holds back while a suggestion streams (issue 29): only what may still be cut.

A line after the first is held until complete only while the token limit may still cut it (so a
last line cut off there is dropped, never shown half); far from the limit it streams as it comes.
The first token of a line is held for a near-repetition only while it can still become one.
"""

from __future__ import annotations

from jupyter_codecomplete.pieces import Piece
from jupyter_codecomplete.postprocess import Pipeline, PostprocessContext, postprocess
from jupyter_codecomplete.testing import split_tokens

CODE = "def area(radius):\n    squared = radius ** 2\n    return math.pi * squared\n"
PREFIX = "import math\n\n\n"


def fed(max_tokens: int | None, code: str = CODE) -> tuple[list[tuple[str, str]], str, Pipeline]:
    p = Pipeline(PostprocessContext(language="python", prefix=PREFIX, max_tokens=max_tokens))
    tokens = split_tokens(code)[: max_tokens or None]
    steps = [(t, p.feed(t)) for t in tokens]
    return steps, p.finish(truncated=p.budget_spent), p


def test_far_from_the_limit_every_visible_token_streams_at_once() -> None:
    steps, tail, _ = fed(256)
    for token, out in steps:
        if token.strip():
            assert out.rstrip().endswith(token), (token, out)
    assert tail == ""
    assert "".join(out for _, out in steps) == CODE.rstrip()


def test_near_the_limit_a_line_is_held_and_a_cut_one_dropped() -> None:
    steps, tail, p = fed(20)
    assert p.budget_spent
    out = "".join(o for _, o in steps) + tail
    # the third line was cut by the limit: dropped whole; the second streamed only once complete
    assert out == "def area(radius):\n    squared = radius ** 2"
    second = [o for t, o in steps if o.strip() and "squared" in o]
    assert second == ["\n    squared = radius ** 2"]


def test_unknown_limit_holds_each_line_until_complete() -> None:
    steps, _, p = fed(None)
    assert not p.budget_spent
    assert [o for _, o in steps if "\n" in o] == [
        "\n    squared = radius ** 2",
        "\n    return math.pi * squared",
    ]


def test_a_line_that_starts_near_the_limit_is_held_though_the_first_were_not() -> None:
    code = "def f(x):\n" + "".join(f"    y{i} = x\n" for i in range(12))
    n = len(split_tokens(code))
    steps, tail, _ = fed(n + 30, code)  # the early lines stream, the late ones are held
    lines_at_once = [o for t, o in steps if t.strip() and o.rstrip().endswith(t)]
    assert lines_at_once
    assert "".join(o for _, o in steps) + tail == postprocess(
        PostprocessContext(language="python", prefix=PREFIX), split_tokens(code)
    )


def test_a_line_whose_first_token_cannot_repeat_the_last_streams() -> None:
    # "squared" cannot become "def" (nor count on from it): shown while still being written
    p = Pipeline(PostprocessContext(language="python", prefix=PREFIX, max_tokens=256))
    assert p.feed("def area(radius):\n") == "def area(radius):"
    assert p.feed("    squ") == "\n    squ"


def test_a_line_whose_first_token_may_repeat_the_last_is_held() -> None:
    p = Pipeline(PostprocessContext(language="python", prefix=PREFIX, max_tokens=256))
    p.feed("x1 = load(1)\n")
    assert p.feed("x") == ""  # may become x1, x2...: a near-repetition may still cut it
    assert p.feed("2 = load(2)\n") == "\nx2 = load(2)"


def test_a_line_like_the_last_streams_once_it_cannot_be_a_near_repetition() -> None:
    p = Pipeline(PostprocessContext(language="python", prefix="class A:\n", max_tokens=256))
    p.feed("def __init__(self, name, size):\n    self.name = name\n")
    assert p.feed("    self.") == ""  # may still be `self.name2 = name`...
    assert p.feed("size") == "\n    self.size"  # `size` does not count on from `name`


def test_a_near_repetition_is_still_cut_while_streaming() -> None:
    code = "def f(a):\n    self.a1 = a\n    self.a2 = a\n    self.a3 = a\n    return a\n"
    p = Pipeline(PostprocessContext(language="python", prefix="class A:\n", max_tokens=256))
    out = "".join(p.feed(t) for t in split_tokens(code)) + p.finish()
    assert out == "def f(a):\n    self.a1 = a"


def test_pieces_that_count_their_tokens_reach_the_limit_as_the_tokens_do() -> None:
    # the reads of a stream, several tokens a piece (pieces.Piece): the same cut as token by token
    tokens = split_tokens(CODE)[:20]
    p = Pipeline(PostprocessContext(language="python", prefix=PREFIX, max_tokens=20))
    reads = [Piece("".join(tokens[i : i + 6]), len(tokens[i : i + 6])) for i in range(0, 20, 6)]
    out = "".join(p.feed(r) for r in reads)
    assert p.budget_spent
    assert out + p.finish(truncated=p.budget_spent) == "def area(radius):\n    squared = radius ** 2"
    # the same text in plain strings counts one token each: four pieces are far from 20
    q = Pipeline(PostprocessContext(language="python", prefix=PREFIX, max_tokens=20))
    for r in reads:
        q.feed(str(r))
    assert not q.budget_spent
