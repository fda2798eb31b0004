from __future__ import annotations

from jupyter_codecomplete.postprocess.hold_last_line import LastLine

from .helpers import run


def test_the_first_line_streams() -> None:
    f = LastLine()
    assert f.feed("a = 1") == "a = 1"


def test_a_later_line_is_held_until_complete() -> None:
    f = LastLine()
    assert f.feed("a = 1\n    b = fo") == "a = 1\n"
    assert f.feed("o\n") == "    b = foo\n"


def test_a_truncated_last_line_is_dropped() -> None:
    f = LastLine()
    f.feed("a = 1\n    b = fo")
    f.truncated = True
    assert f.finish() == ""
    out, _ = run(LastLine(), ["a = 1\n    b = fo"])
    assert out == "a = 1\n    b = fo"  # not truncated: the line is kept


def test_far_from_the_token_limit_a_line_streams() -> None:
    f = LastLine()
    f.budget_left = 1000
    assert f.feed("a = 1\n    b = fo") == "a = 1\n    b = fo"
