from __future__ import annotations

from jupyter_codecomplete.postprocess import analyze
from jupyter_codecomplete.postprocess.limit_scope import Scope

from .helpers import both


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
