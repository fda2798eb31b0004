from __future__ import annotations

from jupyter_codecomplete.postprocess.limit_lines import LineLimit

from .helpers import both


def test_line_limit() -> None:
    # the newline is passed on (the last filter holds trailing whitespace)
    assert both(lambda: LineLimit(1), "abc\ndef") == "abc\n"
    assert both(lambda: LineLimit(2), "a\nb\nc") == "a\nb\n"
    f = LineLimit(1)
    f.feed("abc\n")
    assert f.done  # known at the newline: the upstream can stop at once
