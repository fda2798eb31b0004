from __future__ import annotations

from jupyter_codecomplete.postprocess.strip_heal import Heal

from .helpers import both


def test_heal() -> None:
    assert both(lambda: Heal("\n    "), "\n    return") == "return"
    assert both(lambda: Heal("\n    "), "\n  return") == "return"
    assert both(lambda: Heal("\n    "), "return") == "return"
    assert both(lambda: Heal(" "), " ") == ""
