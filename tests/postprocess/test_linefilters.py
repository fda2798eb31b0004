from __future__ import annotations

from jupyter_codecomplete.postprocess.base import LineFilter, Verdict
from jupyter_codecomplete.postprocess.cursor import analyze
from jupyter_codecomplete.postprocess.linefilters import (
    Echo,
    Fences,
    LineLimit,
    Repetition,
    Scope,
    SuffixLines,
    SuffixOverlap,
)

from .helpers import both


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


def test_fences() -> None:
    assert both(Fences, "```python\ncode\n```\ntext") == "code\n"
    assert both(Fences, "\n```\ncode") == "code"
    assert both(Fences, "code\n  ```") == "code\n"
    assert both(Fences, "``not a fence") == "``not a fence"
    assert both(Fences, "```") == ""


def test_fences_holds_backticks_at_line_start() -> None:
    f = Fences()
    assert f.feed("a\n`") == "a\n"
    assert f.feed("x") == "`x"


def test_echo() -> None:
    prefix = "import os\nx = os."
    assert both(lambda: Echo(prefix), "import os\nx = os.getcwd()") == "getcwd()"
    assert both(lambda: Echo(prefix), "x = os.path") == "path"
    assert both(lambda: Echo(prefix), "getcwd()") == "getcwd()"
    assert both(lambda: Echo(prefix), "import sys") == "import sys"


def test_echo_ignores_whitespace_only_candidates() -> None:
    assert both(lambda: Echo("def f():\n    "), "    return 1") == "    return 1"


def test_line_limit() -> None:
    # the newline is passed on (the last filter holds trailing whitespace)
    assert both(lambda: LineLimit(1), "abc\ndef") == "abc\n"
    assert both(lambda: LineLimit(2), "a\nb\nc") == "a\nb\n"
    f = LineLimit(1)
    f.feed("abc\n")
    assert f.done  # known at the newline: the upstream can stop at once


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


def test_scope_python() -> None:
    c = analyze("python", "def f():", "")
    assert both(lambda: Scope(c), "\n    a\n\n    b\nc") == "\n    a\n\n    b\n"
    c = analyze("python", "if x:", "")
    assert both(lambda: Scope(c), "\n    a\nelse:\n    b\nc") == "\n    a\nelse:\n    b\n"


def test_scope_closer_kept_then_ends() -> None:
    c = analyze("javascript", "if (a) {", "")
    assert both(lambda: Scope(c), "\n  b();\n}\nc();") == "\n  b();\n}"


def test_scope_top_level_after_block() -> None:
    c = analyze("python", "", "")
    text = "x = 1\ndef f():\n    pass\nclass A:\n    pass"
    assert both(lambda: Scope(c), text) == "x = 1\ndef f():\n    pass\n"


def test_scope_decides_early_when_possible() -> None:
    c = analyze("python", "def f():", "")
    f = Scope(c)
    f.feed("\n    a\np")
    assert f.done  # 'p' cannot start else/elif/except/finally


def test_suffix_lines() -> None:
    c = analyze("python", "def f():\n    ", "\n    return y")
    assert both(lambda: SuffixLines(c), "y = 1\n    return y\n") == "y = 1\n"
    assert both(lambda: SuffixLines(c), "y = 1\n    return y + 1") == "y = 1\n    return y + 1"
    c = analyze("python", "f(", ")")
    assert both(lambda: SuffixLines(c), "\n    a,\n)\n") == "\n    a,\n"


def test_repetition() -> None:
    assert both(Repetition, "a\na\na\na\n") == "a\n"
    assert both(Repetition, "a\na\nb") == "a\na\nb"
    assert both(Repetition, "a\nb\na\nb\n") == "a\nb\n"
    assert both(Repetition, "a\nb\n\na\nc") == "a\nb\n\na\nc"


def test_repetition_holds_candidate_and_releases() -> None:
    f = Repetition()
    assert f.feed("a\na\n") == "a\n"  # the second copy waits for the third
    assert f.feed("b") == "a\nb"
