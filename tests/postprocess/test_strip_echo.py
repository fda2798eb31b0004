from __future__ import annotations

from jupyter_codecomplete.postprocess.strip_echo import Echo

from .helpers import both


def test_echo() -> None:
    prefix = "import os\nx = os."
    assert both(lambda: Echo(prefix), "import os\nx = os.getcwd()") == "getcwd()"
    assert both(lambda: Echo(prefix), "x = os.path") == "path"
    assert both(lambda: Echo(prefix), "getcwd()") == "getcwd()"
    assert both(lambda: Echo(prefix), "import sys") == "import sys"


def test_echo_ignores_whitespace_only_candidates() -> None:
    assert both(lambda: Echo("def f():\n    "), "    return 1") == "    return 1"
