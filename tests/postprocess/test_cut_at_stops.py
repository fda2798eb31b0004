from __future__ import annotations

from jupyter_codecomplete.postprocess.cut_at_stops import StopSequences

from .helpers import both


def test_stop_holds_possible_start_then_releases() -> None:
    f = StopSequences(["<EOT>"])
    assert f.feed("abc<E") == "abc"
    assert f.feed("x") == "<Ex"
    assert not f.done


def test_stop_cuts_across_chunks_and_is_done() -> None:
    f = StopSequences(["<EOT>", "\n\n"])
    assert f.feed("abc<E") == "abc"
    assert f.feed("OT>tail") == ""
    assert f.done
    assert f.finish() == ""


def test_stop_earliest_wins() -> None:
    assert both(lambda: StopSequences(["bb", "a"]), "xxbbya") == "xx"


def test_stop_empty_strings_ignored() -> None:
    assert both(lambda: StopSequences(["", "z"]), "abc") == "abc"
