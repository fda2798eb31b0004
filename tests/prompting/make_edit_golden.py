"""Write the golden next-edit cases: prompts (tests/golden/edit_prompts/*.json) and answer parsing
(tests/golden/edit_answers/*.json), one case per file.

Run ``python tests/prompting/make_edit_golden.py`` after a deliberate change to a next-edit record
or to ``prompting/edits.py``, then READ the diff: each prompt must match the code named in the
record's ``source``. Prompt cases are rendered by the builder (read them); answer cases hold the
expected result written here by hand, so the parser is checked against them, not against itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jupyter_codecomplete.prompting import BUILTIN_STYLES, EditPromptRequest, build_edit_prompt

ROOT = Path(__file__).resolve().parent.parent / "golden"
PROMPTS = ROOT / "edit_prompts"
ANSWERS = ROOT / "edit_answers"

DOC = (
    "import pandas as pd\n"
    "\n"
    "def total(prices):\n"
    "    s = 0\n"
    "    for p in items:\n"
    "        s += p\n"
    "    return s / len(items)\n"
    "\n"
    "print(total([1, 2]))\n"
)
RENAME_DIFF = (
    "--- a/shop.py\n+++ b/shop.py\n@@ -3,2 +3,2 @@\n-def total(items):\n+def total(prices):\n     s = 0\n"
)
CELL = "df = load()\nx = df.price\ny = x * 2\n"
# a cell as the notebook holds it: no line break after its last line
CELL_OPEN = "total = sum(prices)\nprint(total)"

PROMPT_CASES: dict[str, dict[str, Any]] = {
    # a rename on one line, the uses below; one recent edit, one other file; the style's own region
    "rename": {
        "text": DOC,
        "cursor": DOC.index("prices") + len("prices"),
        "path": "shop.py",
        "language": "python",
        "recent_edits": [{"path": "shop.py", "diff": RENAME_DIFF}],
        "files": {"util.py": "def load():\n    return []\n"},
    },
    # the client's region, a notebook cell (shown as a script), no history, at the start of the text
    "cell": {
        "text": CELL,
        "cursor": 3,
        "region": [0, len(CELL)],
        "path": "analysis.ipynb",
        "language": "python",
    },
    # a cell without a final line break, the cursor on its last line: the format's closing text
    # (a fence, a marker) starts a line of its own
    "cell-open-end": {
        "text": CELL_OPEN,
        "cursor": len(CELL_OPEN),
        "path": "analysis.ipynb",
        "language": "python",
        "cell": True,
    },
    # the cursor in a file's last lines: the region and the excerpt reach the end of the file
    "end-of-file": {
        "text": DOC,
        "cursor": DOC.index("print(total"),
        "path": "shop.py",
        "language": "python",
    },
}


CALC = "local M = {}\n\nfunction M.add(a, b)\n    return a + b\nend\n" + "\n" * 6 + "return M\n"
LOGGED_ZETA_REWRITE = (
    "local M = {}\n\nfunction M.add(a, b)\n    return a + b\nend\n\nfunction M.subtract(a, b)\n"
    "    return a - b\nend\n\nfunction M.multiply(a, b)\n    return a * b\nend\n\n"
    'function M.divide(a, b)\n    if b == 0 then\n        error("Division by zero")\n    end\n'
    "    return a / b\nend\n\nreturn M\n"
)
LOGGED_ZETA_ANSWER = "<|editable_region_start|>\n" + LOGGED_ZETA_REWRITE + "\n<|editable_region_end|>\n```\n"


V0318_OLD = "line1\nline2\nline3\n\nline5\nline6\nline7\nline8\nline9\nline10\n"
V0318_NEW = V0318_OLD.replace("line6", "LINE6")
# two blocks of six lines and more, the second after a blank line
BLOCKS_OLD = (
    "".join(f"a{i} = {i}\n" for i in range(6))
    + "\ndef b():\n    return 2\n"
    + "".join(f"c{i} = {i}\n" for i in range(4))
)
BLOCKS_OLD = BLOCKS_OLD.removesuffix("\n")


def answer_cases() -> dict[str, dict[str, Any]]:
    """(style, answer) -> expected ``kind`` and ``text`` of :func:`parse_edit_answer`."""
    new = "def total(prices):\n    s = 0\n    for p in prices:\n        s += p"
    cases: dict[str, dict[str, Any]] = {
        "zeta1--ok": {
            "style": "zeta1",
            "tail": "\n",
            "answer": "```shop.py\n<|editable_region_start|>\n" + new + "\n<|editable_region_end|>\n```",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "zeta1--cursor-echoed": {
            "style": "zeta1",
            "tail": "\n",
            "answer": "<|editable_region_start|>\ndef total(prices<|user_cursor_is_here|>):\n"
            "<|editable_region_end|>",
            "kind": "rewrite",
            "text": "def total(prices):\n",
        },
        "zeta1--never-ends": {
            "style": "zeta1",
            "answer": "<|editable_region_start|>\n" + "x = 1\n" * 50,
            "kind": "unterminated",
            "text": "",
        },
        "zeta1--no-start-marker": {
            "style": "zeta1",
            "tail": "\n",
            "answer": new + "\n<|editable_region_end|>",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "zeta2--ok": {
            "style": "zeta2",
            "answer": new + "\n>>>>>>> UPDATED\n",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "zeta2--no-edits": {
            "style": "zeta2",
            "answer": "NO_EDITS\n>>>>>>> UPDATED\n",
            "kind": "no_edits",
            "text": "",
        },
        "zeta2--never-ends": {
            "style": "zeta2",
            "answer": new + "\n" + "    s += p\n" * 30,
            "kind": "unterminated",
            "text": "",
        },
        "instinct--ok": {
            "style": "instinct",
            "tail": "\n",
            "base": new,
            "answer": new + "\n",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "instinct--fenced": {
            "style": "instinct",
            "tail": "\n",
            "base": new,
            "answer": "```python\n" + new + "\n```",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "instinct--tags-echoed": {
            "style": "instinct",
            "tail": "\n",
            "answer": "<|editable_region_start|>\n" + new + "\n<|editable_region_end|>\n",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "instinct--empty": {"style": "instinct", "answer": "  \n", "kind": "empty", "text": ""},
        "sweep-next-edit--ok": {
            "style": "sweep-next-edit",
            "answer": new + "\n",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "sweep-next-edit--file-sep-leaked": {
            "style": "sweep-next-edit",
            "answer": new + "\n<|file_sep|>other.py\nimport os\n",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "edit-chat--ok": {
            "style": "edit-chat",
            "answer": "<REWRITE>\n" + new + "\n</REWRITE>",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "edit-chat--fenced-inside": {
            "style": "edit-chat",
            "answer": "<REWRITE>\n```python\n" + new + "\n```\n</REWRITE>",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "edit-chat--prose-before": {
            "style": "edit-chat",
            "answer": "Sure! Here is the edit:\n<REWRITE>\n" + new + "\n</REWRITE>\nHope it helps.",
            "kind": "rewrite",
            "text": new + "\n",
        },
        "edit-chat--wrong-format": {
            "style": "edit-chat",
            "answer": "```python\n" + new + "\n```",
            "kind": "wrong_format",
            "text": "",
        },
        "edit-chat--never-ends": {
            "style": "edit-chat",
            "answer": "<REWRITE>\n" + "y = 2\n" * 40,
            "kind": "unterminated",
            "text": "",
        },
        # a region whose last line is blank, answered unchanged: no edit (the line break before the
        # end marker is the format's, the region's own one comes back)
        "zeta1--unchanged-blank-last-line": {
            "style": "zeta1",
            "tail": "\n",
            "answer": "<|editable_region_start|>\nx = 1\n\n<|editable_region_end|>",
            "kind": "rewrite",
            "text": "x = 1\n\n",
            "document": "x = 1\n\ny = 2\n",
            "region": [0, 7],
            "applied": "x = 1\n\ny = 2\n",
        },
        # the same for the other formats, each answering the way its prompt wrote the region
        **{
            f"{style}--unchanged-blank-last-line": {
                "style": style,
                "tail": tail,
                "base": "x = 1\n",
                "answer": answer,
                "kind": "rewrite",
                "text": "x = 1\n\n",
                "document": "x = 1\n\ny = 2\n",
                "region": [0, 7],
                "applied": "x = 1\n\ny = 2\n",
            }
            for style, tail, answer in (
                ("zeta2", "", "x = 1\n\n>>>>>>> UPDATED\n"),
                ("instinct", "\n", "x = 1\n"),  # the region's lines joined, as trained
                ("sweep-next-edit", "", "x = 1\n\n"),
                ("edit-chat", "", "<REWRITE>\nx = 1\n\n</REWRITE>"),
            )
        },
        # the same answered with a line break more than the region's: the answer's own
        "instinct--unchanged-blank-last-line-extra-break": {
            "style": "instinct",
            "tail": "\n",
            "base": "x = 1\n",
            "answer": "x = 1\n\n",
            "kind": "rewrite",
            "text": "x = 1\n\n",
            "document": "x = 1\n\ny = 2\n",
            "region": [0, 7],
            "applied": "x = 1\n\ny = 2\n",
        },
        # zed's own answer cases (clean_zeta1_model_output's tests): zed keeps a cursor marker of
        # its own and takes the whole text when there are no markers; here the marker is dropped and
        # an answer without its end marker never ended (no edit)
        "zeta1--zed-clean-basic": {
            "style": "zeta1",
            "source": "zed-industries/zed crates/zeta_prompt (stored id 4725512672) "
            "test_clean_zeta1_model_output_basic",
            "tail": "\n",
            "answer": '<|editable_region_start|>\nfn main() {\n    println!("hello");\n}\n'
            "<|editable_region_end|>\n",
            "kind": "rewrite",
            "text": 'fn main() {\n    println!("hello");\n}\n',
        },
        "zeta1--zed-clean-with-cursor": {
            "style": "zeta1",
            "source": "zed-industries/zed crates/zeta_prompt (stored id 4725512672) "
            "test_clean_zeta1_model_output_with_cursor",
            "tail": "\n",
            "answer": "<|editable_region_start|>\nfn main() {\n"
            '    <|user_cursor_is_here|>println!("hello");\n}\n<|editable_region_end|>\n',
            "kind": "rewrite",
            "text": 'fn main() {\n    println!("hello");\n}\n',
        },
        "zeta1--zed-clean-empty-region": {
            "style": "zeta1",
            "source": "zed-industries/zed crates/zeta_prompt (stored id 4725512672) "
            "test_clean_zeta1_model_output_empty_region",
            "answer": "<|editable_region_start|>\n<|editable_region_end|>\n",
            "kind": "rewrite",
            "text": "",
        },
        "zeta1--zed-clean-no-markers": {
            "style": "zeta1",
            "source": "zed-industries/zed crates/zeta_prompt (stored id 4725512672) "
            "test_clean_zeta1_model_output_no_markers",
            "answer": "fn main() {}\n",
            "kind": "unterminated",
            "text": "",
        },
        # zeta's real answer at the end of a file (logged: the line break before the end marker):
        # it adds no blank line at the file's end
        "zeta1--logged-answer-end-of-file": {
            "style": "zeta1",
            "source": "g0t4/zed-zeta-server try-zeta/server/examples.md "
            "@f3c9909fd828d8f7672d0a3353ac5c4907f9380c (vllm calc.lua response example)",
            "answer": LOGGED_ZETA_ANSWER,
            "kind": "rewrite",
            "text": LOGGED_ZETA_REWRITE,
            "document": CALC,
            "region": [0, len(CALC)],
            "applied": LOGGED_ZETA_REWRITE,
        },
        "zeta2--zed-clean-output": {
            "style": "zeta2",
            "source": "zed-industries/zed crates/zeta_prompt (stored id 4725512672) "
            "test_seed_coder_clean_output",
            "answer": "new code\n>>>>>>> UPDATED\n",
            "kind": "rewrite",
            "text": "new code\n",
        },
        "zeta2--zed-clean-output-no-marker": {
            "style": "zeta2",
            "source": "zed-industries/zed crates/zeta_prompt (stored id 4725512672) "
            "test_seed_coder_clean_output (zed takes it whole; a cut-off answer gives no edit here)",
            "answer": "new code\n",
            "kind": "unterminated",
            "text": "",
        },
        # Zeta 2.1's marker spans (``base``: the region as the prompt cut it into blocks)
        "zeta2.1--model-card-output": {
            "style": "zeta2.1",
            "source": "huggingface.co/zed-industries/zeta-2.1 README.md @dfccd40 (the minimal example's "
            "expected output)",
            "base": "code that\nneeds to\nbe rewritten",
            "tail": "\n",
            "answer": "<|marker_1|>\nrevised content for\nthe editable region\n<|marker_2|>",
            "kind": "rewrite",
            "text": "revised content for\nthe editable region\n",
        },
        "zeta2.1--zed-roundtrip-v0318": {
            "style": "zeta2.1",
            "source": "zed-industries/zed crates/zeta_prompt/src/multi_region.rs "
            "@17c39e85357a92f5ec3c679ac80aacf05f1ee203 test_roundtrip_v0318 (its old and new region; the "
            "answer as encode_from_old_and_new_v0318 writes it: one block, so markers 1 and 2)",
            "base": V0318_OLD,
            "answer": "<|marker_1|>\n" + V0318_NEW + "<|marker_2|><[end\u2581of\u2581sentence]>",
            "kind": "rewrite",
            "text": V0318_NEW,
        },
        "zeta2.1--no-edits": {
            "style": "zeta2.1",
            "source": "zed-industries/zed crates/zeta_prompt: a no-edit answer is the nearest marker "
            "twice, then the end marker",
            "base": V0318_OLD,
            "answer": "<|marker_1|><|marker_1|><[end\u2581of\u2581sentence]>",
            "kind": "no_edits",
            "text": "",
        },
        "zeta2.1--span-never-closed": {
            "style": "zeta2.1",
            "base": V0318_OLD,
            "answer": "<|marker_1|>\nline1\nline2\n",
            "kind": "unterminated",
            "text": "",
        },
        "zeta2.1--second-block-only": {
            "style": "zeta2.1",
            "base": BLOCKS_OLD,
            "tail": "\n",
            "answer": "<|marker_2|>\ndef b():\n    return 3\n"
            + "".join(f"c{i} = {i}\n" for i in range(4))
            + "<|marker_3|>",
            "kind": "rewrite",
            "text": BLOCKS_OLD.replace("return 2", "return 3") + "\n",
        },
        # the generic rewrite with the region markers echoed on lines of their own: no blank lines
        "edit-chat--markers-echoed": {
            "style": "edit-chat",
            "answer": "<REWRITE>\n<|editable_region_start|>\n"
            + new
            + "\n<|editable_region_end|>\n</REWRITE>",
            "kind": "rewrite",
            "text": new + "\n",
        },
    }
    return cases


def main() -> int:
    for folder in (PROMPTS, ANSWERS):
        folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for name, style in sorted(BUILTIN_STYLES.items()):
        if style.edit is None:
            continue
        for case, request in PROMPT_CASES.items():
            built = build_edit_prompt(EditPromptRequest.model_validate(request), style)
            expected = built.model_dump(
                include={"prompt", "messages", "stop", "region_start", "region_end", "notes"}
            )
            data = {"case": f"{name}--{case}", "style": name, "request": request, "expected": expected}
            path = PROMPTS / f"{name}--{case}.json"
            path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            written += 1
    for case_name, case in sorted(answer_cases().items()):
        path = ANSWERS / f"{case_name}.json"
        path.write_text(json.dumps({"case": case_name, **case}, indent=2, ensure_ascii=False) + "\n", "utf-8")
        written += 1
    print(f"wrote {written} next-edit cases under {ROOT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
