"""Write the golden cases of edit predictions across cells (issue 27), one case per file:

* ``tests/golden/notebook_prompts/{style}--{case}.json``: the prompt every next-edit format is
  asked for a notebook-scope request with edit history and execution order (``notebook``), for an
  error fix in a notebook (``error``: the traceback, the kernel's candidates, the region at the
  line), and the fill-in-the-middle request of an error fix (``fim--error``);
* ``tests/golden/cell_answers/{case}.json``: an ``edit-chat`` answer to the notebook request and
  the edits by cell id it maps back to, written here by hand (the well-formed rename, and the bad
  ones: a separator renumbered, two cells merged, a cell added, a cell without an id edited; a
  rename in more places than the bounds per cell and in all, ``bounds`` small so the case reads:
  the nearest cells' edits kept whole).

Run ``python tests/prompting/make_notebook_golden.py`` after a deliberate change to a next-edit
record, ``prompting/notebook_document.py``, ``prompting/tracebacks.py`` or
``completion/notebook_edits.py``, then READ the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jupyter_codecomplete.completion.notebook_edits import fim_fill_request, notebook_prompt_request
from jupyter_codecomplete.prompting import BUILTIN_STYLES, build_edit_prompt
from jupyter_codecomplete.prompting.tracebacks import error_line
from jupyter_codecomplete.protocol import EditPredictionRequest

ROOT = Path(__file__).resolve().parent.parent / "golden"
PROMPTS = ROOT / "notebook_prompts"
ANSWERS = ROOT / "cell_answers"

DEFINE = 'df = pd.DataFrame({"price": [1.0], "qty": [2]})\n'
RENAMED = DEFINE.replace("df =", "sales =")
NOTEBOOK: dict[str, Any] = {
    "number": 1,
    "path": "sales.ipynb",
    "language": "python",
    "text": RENAMED,
    "cursor": len("sales"),
    "cell_id": "c1",
    "scope": "notebook",
    "recent_edits": [
        {
            "path": "sales.ipynb",
            "diff": "@@ -1 +1 @@\n-import pandas\n+import pandas as pd\n",
            "cell_id": "c0",
        },
        {"path": "sales.ipynb", "diff": f"@@ -1 +1 @@\n-{DEFINE}+{RENAMED}", "cell_id": "c1"},
    ],
    "cells_above": [
        {"cell_type": "code", "source": "import pandas as pd\n", "cell_id": "c0", "execution_count": 1}
    ],
    "cells_below": [
        {"cell_type": "markdown", "source": "## Totals", "cell_id": "m1"},
        {"cell_type": "code", "source": 'df["price"].sum()\n', "cell_id": "c2", "execution_count": 3},
        {"cell_type": "code", "source": "print(df)\n"},
        {
            "cell_type": "code",
            "source": "df.head()\n",
            "cell_id": "c3",
            "execution_count": 2,
            "changed": True,
        },
    ],
}
TRACEBACK = (
    "\x1b[31m---------------------------------------------------------------------------\x1b[39m\n"
    "\x1b[31mKeyError\x1b[39m                                  Traceback (most recent call last)\n"
    "\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[4]\x1b[39m\x1b[32m, line 2\x1b[39m\n"
    "\x1b[32m      1\x1b[39m total = \x1b[32m0\x1b[39m\n"
    '\x1b[32m----> 2\x1b[39m total += df[\x1b[33m"prcie"\x1b[39m].sum()\n\n'
    "\x1b[31mKeyError\x1b[39m: 'prcie'"
)
ERROR_CELL = 'total = 0\ntotal += df["prcie"].sum()\nprint(total)\n'
ERROR: dict[str, Any] = {
    "number": 2,
    "path": "sales.ipynb",
    "language": "python",
    "text": ERROR_CELL,
    "cursor": 0,
    "cell_id": "c2",
    "scope": "notebook",
    "trigger": "error",
    "error": {"ename": "KeyError", "evalue": "'prcie'", "traceback": TRACEBACK, "execution_count": 4},
    "kernel_candidates": {"expression": "df[", "items": [{"text": '"price"'}, {"text": '"qty"'}]},
    "recent_edits": [{"path": "sales.ipynb", "diff": "@@ -0,0 +1 @@\n+print(total)\n", "cell_id": "c2"}],
    "cells_above": [
        {
            "cell_type": "code",
            "source": "import pandas as pd\n" + DEFINE,
            "cell_id": "c1",
            "execution_count": 3,
        },
    ],
    "cells_below": [{"cell_type": "code", "source": "df.describe()\n", "cell_id": "c3"}],
}
PROMPT_CASES = {"notebook": NOTEBOOK, "error": ERROR}


def _uses(names: str) -> str:
    return "".join(f"{n} = df.{n}\n" for n in names)


# a rename used on many lines of many cells (an edit per changed line)
MANY_PLACES: dict[str, Any] = {
    **NOTEBOOK,
    "recent_edits": NOTEBOOK["recent_edits"][1:],
    "cells_above": [
        {"cell_type": "code", "source": "import pandas as pd\n", "cell_id": "c0", "execution_count": 1},
        {"cell_type": "code", "source": _uses("ab"), "cell_id": "a1"},
    ],
    "cells_below": [
        {"cell_type": "code", "source": _uses("cde"), "cell_id": "b0"},
        {"cell_type": "code", "source": _uses("f"), "cell_id": "b1"},
        {"cell_type": "code", "source": _uses("gh"), "cell_id": "b2"},
        {"cell_type": "code", "source": _uses("i"), "cell_id": "b3"},
    ],
}
EDIT_STYLES = sorted(n for n, s in BUILTIN_STYLES.items() if s.edit is not None)


def _request(fields: dict[str, Any]) -> EditPredictionRequest:
    return EditPredictionRequest.model_validate({"type": "edit_prediction", **fields})


def prompt_case(style_name: str, case: str) -> dict[str, Any]:
    request = _request(PROMPT_CASES[case])
    style = BUILTIN_STYLES[style_name]
    line = error_line(request.error, request.text) if request.error is not None else None
    doc, prompt_request = notebook_prompt_request(request, style, line, [])
    built = build_edit_prompt(prompt_request, style)
    return {
        "case": f"{style_name}--{case}",
        "style": style_name,
        "request": PROMPT_CASES[case],
        "expected": {
            "prompt": built.prompt,
            "messages": built.messages,
            "region_start": built.region_start,
            "region_end": built.region_end,
            "notes": [*doc.notes, *built.notes],
        },
    }


def fim_case() -> dict[str, Any]:
    request = _request(ERROR)
    style = BUILTIN_STYLES["edit-chat"]  # the document does not depend on it but for the separator
    line = error_line(request.error, request.text) if request.error is not None else None
    doc, prompt_request = notebook_prompt_request(request, style, line, [])
    assert prompt_request.region is not None
    inline, (start, end, old) = fim_fill_request(request, doc, prompt_request.region)
    return {
        "case": "fim--error",
        "request": ERROR,
        "expected": {"prefix": inline.prefix, "suffix": inline.suffix, "line": [start, end], "old": old},
    }


SUM = 'df["price"].sum()\n'
ANSWER_CASES: dict[str, dict[str, Any]] = {
    # the rename follows in c2 and c3; the cell without an id is context only (its edit dropped)
    "rename": {
        "replace": [["df[", "sales["], ["print(df)", "print(sales)"], ["df.head", "sales.head"]],
        "edits": [["c2", 0, 2, "sales"], ["c3", 0, 2, "sales"]],
        "notes": ["1 edit dropped: landed in a cell sent without an id (never a wrong-place edit)."],
    },
    # a separator renumbered (an unknown cell): dropped; the rename in c2 kept
    "separator-renumbered": {
        "replace": [["# %% [4] In [3]", "# %% [9] In [3]"], ["df[", "sales["]],
        "edits": [["c2", 0, 2, "sales"]],
        "notes": ["1 edit dropped: touched a cell separator or spanned cells (never a wrong-place edit)."],
    },
    # c3 merged into the cell above it (its separator removed): nothing lands in either
    "cells-merged": {
        "replace": [["\n# %% [6] In [2], edited since\n", "\n"]],
        "edits": [],
        "notes": ["1 edit dropped: touched a cell separator or spanned cells (never a wrong-place edit)."],
    },
    # a new cell written into c2: its separator line is refused, the rest of c2 kept
    "cell-added": {
        "replace": [['df["price"].sum()\n', 'sales["price"].sum()\n# %% [10]\nsales.mean()\n']],
        "edits": [],
        "notes": ["1 edit dropped: wrote a cell separator (never a wrong-place edit)."],
    },
    # the request's own cell changed again: an edit of the request's text (cell_id null)
    "own-cell": {
        "replace": [['"qty": [2]', '"qty": [3]']],
        "edits": [[None, 46, 47, "3"]],
        "notes": [],
    },
    # at most 2 edits a cell and 4 in all: nearest first (own, b0, a1, c0, b1, b2, b3), b0 has 3
    # (left out whole), a1 and b1 fit, b2 would pass the total: it and every farther cell left out
    "many-places": {
        "request": MANY_PLACES,
        "bounds": {"max_cell_edits": 2, "max_edits": 4},
        "replace_all": [["= df.", "= sales."]],
        "edits": [["a1", 4, 6, "sales"], ["a1", 13, 15, "sales"], ["b1", 4, 6, "sales"]],
        "notes": [
            "3 edits in 1 cell left out: more than 2 in one cell.",
            "3 edits in 2 cells farther from the cursor left out: 4 edits in all at most; the nearest "
            "cells' edits came.",
        ],
    },
}


def answer_case(name: str) -> dict[str, Any]:
    spec = ANSWER_CASES[name]
    fields = spec.get("request", NOTEBOOK)
    request = _request(fields)
    style = BUILTIN_STYLES["edit-chat"]
    doc, _ = notebook_prompt_request(request, style, None, [])
    region = doc.text  # the notebook request's region is the whole document
    for old, new in spec.get("replace", []):
        assert old in region, (name, old)
        region = region.replace(old, new, 1)
    for old, new in spec.get("replace_all", []):
        assert old in region, (name, old)
        region = region.replace(old, new)
    out = {"case": name, "request": fields, "answer": f"<REWRITE>\n{region}</REWRITE>"}
    if "bounds" in spec:
        out["bounds"] = spec["bounds"]
    return {**out, "edits": spec["edits"], "notes": spec["notes"]}


def _write(path: Path, case: dict[str, Any]) -> None:
    path.write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    PROMPTS.mkdir(parents=True, exist_ok=True)
    ANSWERS.mkdir(parents=True, exist_ok=True)
    for style in EDIT_STYLES:
        for case in PROMPT_CASES:
            _write(PROMPTS / f"{style}--{case}.json", prompt_case(style, case))
    _write(PROMPTS / "fim--error.json", fim_case())
    for name in ANSWER_CASES:
        _write(ANSWERS / f"{name}.json", answer_case(name))


if __name__ == "__main__":
    main()
