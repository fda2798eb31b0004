"""Edit predictions across cells and the fix after an error, through a running Jupyter server and
the scripted upstream (``testing/edit_rules.py``: it answers in the edit-chat format from what
the prompt shows).

The notebook as one document (a rename in one cell reaches the cells that use the name, edits by
cell id, sorted); the fix after a KeyError (the line the traceback names, the error and the
kernel's candidates in the prompt); a fill-in-the-middle model re-filling the line; and the bad
input: 1,000 cells, answers that touch separators or cells without ids, a 10 MB traceback,
R tracebacks, no model for a fix; a rename in more places than the bounds; the fix after a Julia
error (IJulia's frames).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.postprocess import Edit, apply_edits
from jupyter_codecomplete.testing import (
    EDIT_CHAT_ISSUE_27_RULES,
    OpenAIUpstream,
    edit_chat_rewrite,
    open_socket,
)

GOLDEN = Path(__file__).resolve().parent / "golden" / "tracebacks"
DEFINE = 'df = pd.DataFrame({"price": [1.0], "qty": [2]})\n'
RENAMED = DEFINE.replace("df =", "sales =")
RENAME = f"@@ -1 +1 @@\n-{DEFINE}+{RENAMED}"
SUM = 'df["price"].sum()\n'
HEAD = "df.head()\n"
FIX_CELL = 'df["prcie"].sum()'


def _traceback() -> str:
    """ipykernel's real traceback of a KeyError in a cell's first line, as a client sends it."""
    tb = json.loads((GOLDEN / "ipython8-keyerror.json").read_text())["error"]["traceback"]
    return str(tb).replace("x = 1\n", "").replace('d["prcie"] + x', FIX_CELL).replace("line 2", "line 1")


def _tb() -> str:
    return (
        "KeyError                                  Traceback (most recent call last)\n"
        "Cell In[2], line 1\n"
        f"----> 1 {FIX_CELL}\n\n"
        "KeyError: 'prcie'"
    )


@pytest.fixture
def rules() -> list[dict[str, Any]]:
    return [dict(r) for r in EDIT_CHAT_ISSUE_27_RULES]


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream, rules: list[dict[str, Any]]) -> dict[str, Any]:
    upstream.set_rules(rules, default="<REWRITE>\n</REWRITE>")
    return {
        "completion_model": upstream.model_config(),
        "edit_model": upstream.model_config(backend="openai-chat", style="edit-chat", model="test-chat"),
    }


def _cell(cell_id: str | None, source: str, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"cell_type": "code", "source": source, **fields}
    if cell_id is not None:
        out["cell_id"] = cell_id
    return out


def rename_request(number: int = 1, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "edit_prediction",
        "number": number,
        "version": 7,
        "path": "sales.ipynb",
        "language": "python",
        "text": RENAMED,
        "cursor": len("sales"),
        "cell_id": "c1",
        "scope": "notebook",
        "recent_edits": [{"path": "sales.ipynb", "diff": RENAME, "cell_id": "c1"}],
        "cells_above": [_cell("c0", "import pandas as pd\n", execution_count=1)],
        "cells_below": [
            _cell("c2", SUM, execution_count=3),
            _cell(None, "print(df)\n"),
            _cell("c3", HEAD, execution_count=4, changed=True),
        ],
    }
    out.update(fields)
    return out


def fix_request(number: int = 1, traceback: str | None = None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "edit_prediction",
        "number": number,
        "version": 2,
        "path": "sales.ipynb",
        "language": "python",
        "text": FIX_CELL,
        "cursor": len(FIX_CELL),
        "cell_id": "c2",
        "trigger": "error",
        "error": {
            "ename": "KeyError",
            "evalue": "'prcie'",
            "traceback": _tb() if traceback is None else traceback,
            "execution_count": 2,
        },
        "kernel_candidates": {"expression": "df[", "items": [{"text": '"price"'}, {"text": '"qty"'}]},
        "cells_above": [_cell("c1", "import pandas as pd\n" + DEFINE, execution_count=1)],
    }
    out.update(fields)
    return out


def _sent(upstream: OpenAIUpstream) -> str:
    body = upstream.last().body
    return str(body.get("prompt") or "\n".join(m["content"] for m in body["messages"]))


def _apply(source: str, edits: list[dict[str, Any]]) -> str:
    return apply_edits(source, [Edit(e["start"], e["end"], e["text"]) for e in edits])


async def test_hello_lists_the_features(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello is not None
    assert {"edit_prediction", "notebook_edits", "error_fix", "edit_history"} <= set(socket.hello["features"])


async def test_a_rename_reaches_the_cells_that_use_the_name(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(rename_request())
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert reply["version"] == 7
    by_cell: dict[str | None, list[dict[str, Any]]] = {}
    for e in reply["edits"]:
        by_cell.setdefault(e["cell_id"], []).append(e)
    # the cell without an id is context only; the own cell needs nothing
    assert list(by_cell) == ["c2", "c3"], reply  # notebook order
    assert _apply(SUM, by_cell["c2"]) == SUM.replace("df", "sales")
    assert _apply(HEAD, by_cell["c3"]) == "sales.head()\n"
    assert any("without an id" in n for n in reply["notes"]), reply["notes"]
    prompt = _sent(upstream)
    # the notebook as one document: separators with the execution order, the history
    assert "# %% [1] In [1]\nimport pandas as pd" in prompt
    assert "# %% [5] In [4], edited since\ndf.head()" in prompt
    assert "-df = pd.DataFrame" in prompt


async def test_answers_that_touch_separators_are_dropped(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, rules: list[dict[str, Any]]
) -> None:
    # the "model" renames, and also renumbers a cell and merges two: those edits go
    upstream.set_rules(
        [
            edit_chat_rewrite(
                ["+sales = pd.DataFrame"],
                [
                    [r"\bdf\b", "sales"],
                    [r"# %% \[5\] In \[4\], edited since\n", ""],
                    [r"\[3\] In \[3\]", "[9]"],
                ],
            )
        ]
    )
    socket = await open_socket(jp_ws_fetch)
    await socket.send(rename_request())
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    # kept: the rename in c2; dropped: the renumbered separator, and the merge of c3 into the cell
    # before it (its separator removed, with the rename in c3 in the same hunk)
    assert [(e["cell_id"], e["start"], e["end"], e["text"]) for e in reply["edits"]] == [
        ("c2", 0, 2, "sales")
    ]
    assert "2 edits dropped: touched a cell separator or spanned cells" in " ".join(reply["notes"])


async def test_a_thousand_cells_stay_within_the_budget(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    above = [_cell(f"a{i}", f"result_column_{i} = source_{i}\n", execution_count=i + 1) for i in range(500)]
    # the three nearest cells below use the name
    below = [_cell(f"b{i}", f"summary_value_{i} = {'df' if i < 3 else 'other_frame'}\n") for i in range(499)]
    socket = await open_socket(jp_ws_fetch)
    await socket.send(rename_request(cells_above=above, cells_below=below))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    prompt = _sent(upstream)
    assert len(prompt) < 40_000
    assert any("left out of the notebook document" in n for n in reply["notes"]), reply["notes"]
    # the nearest cells below got the rename, by their ids
    ids = [e["cell_id"] for e in reply["edits"]]
    assert ids == ["b0", "b1", "b2"], reply["notes"]


async def test_the_fix_after_a_key_error(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(fix_request(traceback=_traceback()))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert [e["cell_id"] for e in reply["edits"]] == [None]
    assert _apply(FIX_CELL, reply["edits"]) == 'df["price"].sum()'
    assert reply["region"] == {"start": 0, "end": len(FIX_CELL)}
    prompt = _sent(upstream)
    # the error above the line, cleaned (no colour codes), the candidates; the region is the line
    assert "# Error: In [2], line 1 raised KeyError: 'prcie'" in prompt
    assert "# The kernel completes df[ with:" in prompt and '"price", "qty"' in prompt
    assert "\x1b" not in prompt
    assert '<|editable_region_start|>\ndf["prcie"].sum()<|cursor|>\n<|editable_region_end|>' in prompt


async def test_the_fix_in_a_notebook_scope_request(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(fix_request(scope="notebook"))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert _apply(FIX_CELL, reply["edits"]) == 'df["price"].sum()'
    assert "# %% [2] In [2]\n# Error:" in _sent(upstream)


async def test_the_fix_after_a_julia_error(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, rules: list[dict[str, Any]]
) -> None:
    # IJulia's traceback: the frame of the function the cell defines (``@ Main ./In[5]:2``)
    golden = json.loads((GOLDEN / "julia-in-function.json").read_text())
    upstream.set_rules([edit_chat_rewrite(['KeyError: key "prcie" not found'], [["prcie", "price"]]), *rules])
    socket = await open_socket(jp_ws_fetch)
    await socket.send(
        fix_request(
            text=golden["cell"],
            cursor=0,
            error=golden["error"],
            language="julia",
            kernel_candidates=None,
            cells_above=[_cell("c1", 'prices = Dict("price" => 1.0)\n', execution_count=4)],
        )
    )
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert _apply(golden["cell"], reply["edits"]) == golden["cell"].replace("prcie", "price")
    line = golden["cell"].split("\n")[1]
    start = golden["cell"].index(line)
    assert reply["region"] == {"start": start, "end": start + len(line)}
    prompt = _sent(upstream)
    assert '# Error: In [5], line 2 raised KeyError: key "prcie" not found\n' in prompt
    assert '<|editable_region_start|>\n    d["prcie"]<|cursor|>\n<|editable_region_end|>' in prompt


@pytest.mark.parametrize("case", ["r-irkernel", "other-cell", "cut-before-frames"])
async def test_no_line_named_no_model_call_no_edit(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, case: str
) -> None:
    golden = json.loads((GOLDEN / f"{case}.json").read_text())
    socket = await open_socket(jp_ws_fetch)
    before = len(upstream.records)
    await socket.send(fix_request(text=golden["cell"], cursor=0, error=golden["error"]))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None and reply["edits"] == [], reply
    assert any("names no line" in n for n in reply["notes"])
    assert len(upstream.records) == before


async def test_a_ten_megabyte_traceback_is_refused_and_the_socket_works(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(fix_request(number=1, traceback="Traceback\n" + "x" * 10_000_000))
    refused = await socket.recv(timeout=30)
    assert refused["type"] == "error" and refused["error"]["type"] == "message_too_large", refused
    assert refused["error"]["message"]
    await socket.send(fix_request(number=2))
    [reply] = await socket.until_done(2)
    assert reply["error"] is None and _apply(FIX_CELL, reply["edits"]) == 'df["price"].sum()'


async def test_a_traceback_over_the_bound_is_named(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(fix_request(number=1, traceback="x" * 20_001))
    [refused] = await socket.until_done(1)
    assert refused["type"] == "error" and "traceback" in refused["error"]["message"], refused


async def test_bad_notebook_requests_are_named(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    dup = rename_request(1, cells_below=[_cell("c2", SUM), _cell("c2", HEAD)])
    await socket.send(dup)
    [r1] = await socket.until_done(1)
    assert r1["type"] == "error" and "appears twice" in r1["error"]["message"], r1
    no_id = rename_request(2)
    del no_id["cell_id"]
    await socket.send(no_id)
    [r2] = await socket.until_done(2)
    assert r2["type"] == "error" and "cell_id" in r2["error"]["message"], r2
    await socket.send(rename_request(3))
    [r3] = await socket.until_done(3)
    assert r3["error"] is None and r3["edits"]


class TestFillInTheMiddle:
    """No edit or chat model: a completion model with a FIM format re-fills the line."""

    @pytest.fixture
    def codecomplete_config(self, upstream: OpenAIUpstream) -> dict[str, Any]:
        upstream.set_rules(
            [{"contains": "# Error: In [2], line 1 raised KeyError", "completion": 'df["price"].sum()\n'}]
        )
        return {"completion_model": upstream.model_config(style="qwen2.5-coder", model="qwen2.5-coder-1.5b")}

    async def test_the_line_re_filled(self, jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
        socket = await open_socket(jp_ws_fetch)
        await socket.send(fix_request())
        [reply] = await socket.until_done(1)
        assert reply["error"] is None, reply
        assert _apply(FIX_CELL, reply["edits"]) == 'df["price"].sum()'
        body = upstream.last().body
        # the error's comment block right above the line, the line itself left to the model
        assert str(body["prompt"]).endswith('# The kernel completes df[ with:\n# "price", "qty"\n'), body
        assert "# Error: In [2], line 1 raised KeyError: 'prcie'" in body["prompt"]


class TestFillInTheMiddleGoesAstray:
    """A FIM model that goes on with the error's comment (as the bundled demo model did in a
    browser) or writes another line: nothing is offered, the note says why."""

    @pytest.fixture
    def codecomplete_config(self, upstream: OpenAIUpstream) -> dict[str, Any]:
        upstream.set_rules(
            [
                {"contains": "In [2], line 1 raised KeyError: 'prcie'", "completion": "# -12000120000000\n"},
                {"contains": "In [3], line 1 raised KeyError: 'prcie'", "completion": "import os\n"},
            ]
        )
        return {"completion_model": upstream.model_config(style="qwen2.5-coder", model="qwen2.5-coder-1.5b")}

    async def test_no_fix_that_destroys_the_line(self, jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
        socket = await open_socket(jp_ws_fetch)
        await socket.send(fix_request())
        [comment] = await socket.until_done(1)
        assert comment["error"] is None and comment["edits"] == [], comment
        assert any("leaves no code" in n for n in comment["notes"]), comment["notes"]
        other = fix_request(2)
        other["error"] = {**other["error"], "execution_count": 3}
        other["error"]["traceback"] = other["error"]["traceback"].replace("In[2]", "In[3]")
        await socket.send(other)
        [rewrite] = await socket.until_done(2)
        assert rewrite["error"] is None and rewrite["edits"] == [], rewrite
        assert any("rewrites the line" in n for n in rewrite["notes"]), rewrite["notes"]
        assert len(upstream.records) == 2  # both were asked; the answers were refused


class TestNoModelForFixes:
    @pytest.fixture
    def codecomplete_config(self, upstream: OpenAIUpstream) -> dict[str, Any]:
        return {"completion_model": upstream.model_config(style="raw")}

    async def test_refused_with_the_settings_to_change(
        self, jp_ws_fetch: Any, upstream: OpenAIUpstream
    ) -> None:
        socket = await open_socket(jp_ws_fetch)
        await socket.send(fix_request())
        [reply] = await socket.until_done(1)
        assert reply["error"]["type"] == "no_edit_model", reply
        assert "edit_model" in reply["error"]["message"]
        assert upstream.records == []


def _uses(n: int) -> str:
    """A cell that uses ``df`` on ``n`` lines (an edit per changed line)."""
    return "".join(f"total_{k} = df.c{k}\n" for k in range(n))


async def test_a_rename_in_many_places_keeps_the_nearest_cells(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    # 17 lines using the name in the next cell (over the bound of one cell), 3 in the cell above, 8
    # in each of the nine cells below it: 89 edits in all, more than the 64 an answer may have
    above = [_cell("c0", "import pandas as pd\n", execution_count=1), _cell("a1", _uses(3))]
    below = [_cell("b0", _uses(17)), *(_cell(f"b{i}", _uses(8)) for i in range(1, 10))]
    socket = await open_socket(jp_ws_fetch)
    await socket.send(rename_request(cells_above=above, cells_below=below))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    by_cell: dict[str | None, list[dict[str, Any]]] = {}
    for e in reply["edits"]:
        by_cell.setdefault(e["cell_id"], []).append(e)
    # the nearest cells, whole, in notebook order, within 64 edits: a1 (3) and b1..b7 (7 x 8)
    assert list(by_cell) == ["a1", *(f"b{i}" for i in range(1, 8))], reply["notes"]
    assert len(reply["edits"]) == 59
    assert _apply(_uses(3), by_cell["a1"]) == _uses(3).replace("df", "sales")
    for i in range(1, 8):
        assert _apply(_uses(8), by_cell[f"b{i}"]) == _uses(8).replace("df", "sales")
    assert "17 edits in 1 cell left out: more than 16 in one cell." in reply["notes"]
    assert any(n.startswith("16 edits in 2 cells farther from the cursor left out") for n in reply["notes"])
    # the socket keeps working
    await socket.send(rename_request(number=2))
    [again] = await socket.until_done(2)
    assert [e["cell_id"] for e in again["edits"]] == ["c2", "c3"]
