from __future__ import annotations

from jupyter_codecomplete.postprocess.trim_trailing_whitespace import TrailingWhitespace


def test_trailing_whitespace_held_and_dropped() -> None:
    f = TrailingWhitespace()
    assert f.feed("a  \n") == "a"
    assert f.feed("  b ") == "  \n  b"
    assert f.finish() == ""
