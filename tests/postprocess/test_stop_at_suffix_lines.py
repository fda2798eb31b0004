from __future__ import annotations

from jupyter_codecomplete.postprocess import analyze
from jupyter_codecomplete.postprocess.stop_at_suffix_lines import SuffixLines

from .helpers import both


def test_suffix_lines() -> None:
    c = analyze("python", "def f():\n    ", "\n    return y")
    assert both(lambda: SuffixLines(c), "y = 1\n    return y\n") == "y = 1\n"
    assert both(lambda: SuffixLines(c), "y = 1\n    return y + 1") == "y = 1\n    return y + 1"
    c = analyze("python", "f(", ")")
    assert both(lambda: SuffixLines(c), "\n    a,\n)\n") == "\n    a,\n"
