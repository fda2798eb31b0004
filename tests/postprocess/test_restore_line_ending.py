from __future__ import annotations

from jupyter_codecomplete.postprocess.restore_line_ending import LineEnding


def test_line_ending() -> None:
    assert LineEnding("\r\n").feed("a\nb\n") == "a\r\nb\r\n"
