"""The extension's style sheets all reach JupyterLab: ``style/index.js`` (the ``styleModule`` the
federated build loads) and ``style/index.css`` (the ``style`` entry) import every sheet in
``style/``. The statistics panel was once drawn unstyled because ``index.js`` missed one."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STYLE = ROOT / "style"


def test_every_sheet_is_imported_by_both_entries() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    assert package["styleModule"] == "style/index.js" and package["style"] == "style/index.css"
    sheets = {p.name for p in STYLE.glob("*.css")} - {"index.css"}
    js = set(re.findall(r"^import '\./([\w.-]+\.css)';$", (STYLE / "index.js").read_text(), re.M))
    css = set(re.findall(r"^@import url\('([\w.-]+\.css)'\);$", (STYLE / "index.css").read_text(), re.M))
    assert sheets, "no style sheets found"
    assert js == sheets, f"style/index.js: missing {sorted(sheets - js)}, unknown {sorted(js - sheets)}"
    assert css == sheets, f"style/index.css: missing {sorted(sheets - css)}, unknown {sorted(css - sheets)}"
