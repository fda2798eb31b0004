from __future__ import annotations

from jupyter_codecomplete.postprocess.drop_leading_space import LeadingSpace

from .helpers import both


def test_leading_spaces_are_dropped_once() -> None:
    assert both(LeadingSpace, "  42 + 1") == "42 + 1"
    assert both(LeadingSpace, "\t x") == "x"
    assert both(LeadingSpace, "a  b") == "a  b"


def test_only_spaces_is_nothing() -> None:
    assert both(LeadingSpace, "   ") == ""


def test_a_newline_is_not_a_space() -> None:
    assert both(LeadingSpace, " \nx") == "\nx"
