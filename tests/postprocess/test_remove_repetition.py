from __future__ import annotations

from jupyter_codecomplete.postprocess.remove_repetition import Repetition

from .helpers import both


def test_repetition() -> None:
    assert both(Repetition, "a\na\na\na\n") == "a\n"
    assert both(Repetition, "a\na\nb") == "a\na\nb"
    assert both(Repetition, "a\nb\na\nb\n") == "a\nb\n"
    assert both(Repetition, "a\nb\n\na\nc") == "a\nb\n\na\nc"


def test_repetition_holds_candidate_and_releases() -> None:
    f = Repetition()
    assert f.feed("a\na\n") == "a\n"  # the second copy waits for the third
    assert f.feed("b") == "a\nb"
