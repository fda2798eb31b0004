"""The filter contract's helpers: the partial match of a held tail, the line-by-line filter."""

from __future__ import annotations

from jupyter_codecomplete.postprocess.base import LineFilter, Verdict, partial_tail

from .helpers import both


def test_partial_tail() -> None:
    assert partial_tail("abc<|end", "<|endoftext|>") == 5
    assert partial_tail("abc", "<|endoftext|>") == 0
    assert partial_tail("a<", "<<x") == 1
    assert partial_tail("a<<", "<<x") == 2
    assert partial_tail("", "<x") == 0
    assert partial_tail("x<", "<") == 0  # a whole one-char needle is a match, not a partial


class _CutAtX(LineFilter):
    def judge(self, line: str, index: int, complete: bool) -> Verdict:
        if not line:
            return Verdict.WAIT  # judged first with the empty line: nothing to decide yet
        if line.startswith("x"):
            return Verdict.CUT
        if line.startswith("e"):
            return Verdict.KEEP_END if complete else Verdict.WAIT
        return Verdict.KEEP


def test_line_filter_contract() -> None:
    assert both(_CutAtX, "a\nb\nxc\nd") == "a\nb\n"
    assert both(_CutAtX, "a\nend\nb") == "a\nend"
    f = _CutAtX()
    assert f.feed("ab") == "ab"  # a decided line streams
