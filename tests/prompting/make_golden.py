"""Write the golden prompt cases (tests/golden/prompts/*.json) from the case matrix below.

Run ``python tests/prompting/make_golden.py`` after a deliberate change to a style or the builder,
then READ the diff of the JSON files: each expected prompt must match the model's card. A new style
gets its cases by being in ``BUILTIN_STYLES``; add special cases to ``EXTRA_CASES``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jupyter_codecomplete.prompting import BUILTIN_STYLES, PromptError, PromptRequest, build_prompt

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "prompts"

PREFIX = "import os\n\ndef read(path):\n    with open(path) as f:\n        data = "
PREFIX_HEAL = "import os\n\ndef read(path):\n    "
SUFFIX = "\n    return data\n"
FILES = {"src/config.py": "ROOT = '/data'\n", "src/log.py": "import logging\nlog = logging.getLogger()"}
BASE: dict[str, Any] = {"file_path": "src/io_utils.py", "language": "python"}

MODE_CASES: dict[str, dict[str, Any]] = {
    "completion": {**BASE, "mode": "completion", "prefix": PREFIX},
    "completion-heal": {**BASE, "mode": "completion", "prefix": PREFIX_HEAL},
    "infill": {**BASE, "mode": "infill", "prefix": PREFIX_HEAL, "suffix": SUFFIX},
    "repository": {**BASE, "mode": "repository", "prefix": PREFIX, "files": FILES, "repo_name": "demo"},
    "repository-infill": {
        **BASE,
        "mode": "repository_infill",
        "prefix": PREFIX_HEAL,
        "suffix": SUFFIX,
        "files": FILES,
        "repo_name": "demo",
    },
}

NOTEBOOK = {
    "mode": "auto",
    "file_path": "analysis.ipynb",
    "language": "python",
    "cells_above": [
        {"cell_type": "markdown", "source": "# Load the data\n\nRead the CSV files."},
        {"cell_type": "code", "source": "import pandas as pd\ndf = pd.read_csv('a.csv')\n"},
        {"cell_type": "raw", "source": "raw cells are left out"},
    ],
    "prefix": "summary = df.",
    "suffix": "",
    "cells_below": [{"cell_type": "code", "source": "print(summary)"}],
}

EXTRA_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "qwen2.5-coder--notebook": ("qwen2.5-coder", NOTEBOOK),
    "codellama--notebook": ("codellama", NOTEBOOK),
    "chat--notebook": ("chat", NOTEBOOK),
    "raw--notebook": ("raw", NOTEBOOK),
    "starcoder2--notebook-sql": (
        "starcoder2",
        {
            "mode": "auto",
            "language": "sql",
            "cells_above": [{"cell_type": "markdown", "source": "Top customers\nby revenue"}],
            "prefix": "SELECT name,\n       ",
            "suffix": "\nFROM customers;",
        },
    ),
    "codestral--infill-no-native-suffix": (
        "codestral",
        {**MODE_CASES["infill"], "native_suffix": False},
    ),
    "codestral--repository-infill-no-native-suffix": (
        "codestral",
        {**MODE_CASES["repository-infill"], "native_suffix": False},
    ),
    "raw--auto-infill-fallback": ("raw", {**BASE, "mode": "auto", "prefix": PREFIX_HEAL, "suffix": SUFFIX}),
    "codellama--auto-files-ignored": (
        "codellama",
        {**BASE, "mode": "auto", "prefix": PREFIX_HEAL, "suffix": SUFFIX, "files": FILES},
    ),
    "qwen2.5-coder--auto-repository-infill": (
        "qwen2.5-coder",
        {
            **BASE,
            "mode": "auto",
            "prefix": PREFIX_HEAL,
            "suffix": SUFFIX,
            "files": FILES,
            "repo_name": "demo",
        },
    ),
    "qwen2.5-coder--heal-blank-lines": (
        "qwen2.5-coder",
        {**BASE, "mode": "infill", "prefix": "x = 1\n\n\n", "suffix": "\nprint(x)"},
    ),
    "deepseek-coder--heal-indent-only": (
        "deepseek-coder",
        {**BASE, "mode": "infill", "prefix": "        ", "suffix": "\nreturn 1"},
    ),
    "starcoder--heal-not-after-code": (
        "starcoder",
        {**BASE, "mode": "infill", "prefix": "total = ", "suffix": "\nprint(total)"},
    ),
    # variants not trained for fill-in-the-middle: completion mode, with a note to the client
    "codellama-completion--auto-infill-fallback": (
        "codellama-completion",
        {**BASE, "mode": "auto", "prefix": PREFIX_HEAL, "suffix": SUFFIX},
    ),
    "codegemma-it--auto-infill-fallback": (
        "codegemma-it",
        {**BASE, "mode": "auto", "prefix": PREFIX_HEAL, "suffix": SUFFIX},
    ),
    "codegeex4--no-language": (
        "codegeex4",
        {"mode": "infill", "file_path": "notes.txt", "prefix": "Dear ", "suffix": "\nBest"},
    ),
}


# Notebook context only Jupyter has (issue 15): the outputs of the cells above (a result, a
# traceback's last line with ANSI colours, a progress bar) and the kernel's candidates at `df[`.
NOTEBOOK_OUTPUTS_ABOVE: list[dict[str, Any]] = [
    {
        "cell_type": "code",
        "source": "import pandas as pd\ndf = pd.read_csv('sales.csv')\ndf.head(2)",
        "outputs": [{"output_type": "execute_result", "text": "   price  qty\n0    1.0    2\n1    2.5    1"}],
    },
    {
        "cell_type": "code",
        "source": "df['prize'].sum()",
        "outputs": [
            {
                "output_type": "error",
                "text": "\u001b[0;31mKeyError\u001b[0m                  Traceback\n"
                "\u001b[0;31mKeyError\u001b[0m: 'prize'",
            }
        ],
    },
    {
        "cell_type": "code",
        "source": "for _ in track(range(3)): pass",
        "outputs": [{"output_type": "stream", "text": " 33%|###\r 66%|######\r100%|##########\n"}],
    },
]
KERNEL_CANDIDATES = {
    "expression": "df[",
    "items": [{"text": "'price'", "type": "dict key"}, {"text": "'qty'", "type": "dict key"}],
}
NB_PREFIX = "def revenue(df):\n    return df["
NB_SUFFIX = "\n\nprint(revenue(df))\n"
NB_BASE: dict[str, Any] = {
    "file_path": "sales.ipynb",
    "language": "python",
    "cells_above": NOTEBOOK_OUTPUTS_ABOVE,
    "kernel_candidates": KERNEL_CANDIDATES,
    "prefix": NB_PREFIX,
}
NOTEBOOK_CONTEXT_CASES: dict[str, dict[str, Any]] = {
    "outputs-completion": {**NB_BASE, "mode": "completion"},
    "outputs-infill": {**NB_BASE, "mode": "infill", "suffix": NB_SUFFIX},
    "outputs-repository": {**NB_BASE, "mode": "repository", "files": FILES, "repo_name": "demo"},
    "outputs-repository-infill": {
        **NB_BASE,
        "mode": "repository_infill",
        "suffix": NB_SUFFIX,
        "files": FILES,
        "repo_name": "demo",
    },
}
NOTEBOOK_CONTEXT_STYLES = (
    "qwen2.5-coder",
    "deepseek-coder",
    "codellama",
    "starcoder2",
    "codestral",
    "chat",
    "raw",
)


def supported(style_name: str, case: str) -> bool:
    style = BUILTIN_STYLES[style_name]
    if "infill" in case and not style.supports_infill:
        return False
    return not ("repository" in case and not style.supports_repository)


def expected(style_name: str, request: dict[str, Any]) -> dict[str, Any]:
    try:
        built = build_prompt(PromptRequest.model_validate(request), BUILTIN_STYLES[style_name])
    except PromptError as e:  # pragma: no cover - the matrix only holds valid cases
        raise SystemExit(f"{style_name}: {e.type}: {e}") from e
    out = built.model_dump(include={"prompt", "suffix", "stop", "heal", "mode", "notes", "messages"})
    return out


def all_cases() -> dict[str, tuple[str, dict[str, Any]]]:
    cases: dict[str, tuple[str, dict[str, Any]]] = {}
    for name in BUILTIN_STYLES:
        if BUILTIN_STYLES[name].edit_only:
            continue  # next-edit formats only: tests/prompting/make_edit_golden.py
        for case, request in MODE_CASES.items():
            if supported(name, case):
                cases[f"{name}--{case}"] = (name, request)
    for name in NOTEBOOK_CONTEXT_STYLES:
        for case, request in NOTEBOOK_CONTEXT_CASES.items():
            if supported(name, case) or (BUILTIN_STYLES[name].chat and case == "outputs-infill"):
                cases[f"{name}--{case}"] = (name, request)
    cases.update(EXTRA_CASES)
    return cases


def main() -> int:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    written = 0
    for case_name, (style, request) in sorted(all_cases().items()):
        data = {"case": case_name, "style": style, "request": request, "expected": expected(style, request)}
        path = GOLDEN / f"{case_name}.json"
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written += 1
    print(f"wrote {written} cases to {GOLDEN}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
