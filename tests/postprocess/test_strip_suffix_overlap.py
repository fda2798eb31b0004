from __future__ import annotations

from jupyter_codecomplete.postprocess import analyze
from jupyter_codecomplete.postprocess.strip_suffix_overlap import SuffixOverlap

from .helpers import both


def test_suffix_overlap() -> None:
    def make(prefix: str, rest: str):  # type: ignore[no-untyped-def]
        c = analyze("python", prefix, rest)
        return lambda: SuffixOverlap(c.rest, c.scanner.copy())

    assert both(make("print(", ")"), '"a")') == '"a"'
    assert both(make("f(", ")"), "g(1)") == "g(1)"  # balanced: not an overlap
    assert both(make("f(", ", y)"), "x, y)") == "x"
    assert both(make("x = ", " + 1"), "a + 1") == "a"
    assert both(make("x = ", "a + 1"), "a") == "a"  # one character is not enough


def test_suffix_overlap_holds_only_possible_overlap() -> None:
    c = analyze("python", "print(", ")")
    f = SuffixOverlap(c.rest, c.scanner.copy())
    assert f.feed('"a")') == '"a"'
    assert f.feed("") == ""
    assert f.finish() == ""
    assert f.done
