from __future__ import annotations

from jupyter_codecomplete.postprocess.strip_fences import Fences

from .helpers import both


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
