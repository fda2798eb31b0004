"""Edit predictions through a running Jupyter server and a real scripted OpenAI-format upstream.

Each next-edit format answers a rename (``items`` -> ``prices`` on the first line of a cell that
uses the name on more lines) the way its model does; then the bad answers: outside the region,
the whole cell rewritten, the wrong format, Markdown fences, an answer that never stops, 10,000
edits; and the request side: versions, superseding, bad requests.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_codecomplete.postprocess import Edit, apply_edits
from jupyter_codecomplete.testing import OpenAIUpstream, is_final, open_socket, request

CELL = "def total(prices):\n    s = 0\n    for p in items:\n        s += p\n    return s / len(items)\n"
RENAMED = CELL.replace("in items", "in prices").replace("len(items)", "len(prices)")
RENAME_DIFF = "@@ -1,2 +1,2 @@\n-def total(items):\n+def total(prices):\n     s = 0\n"

# the answer of each format to the rename, as its model writes it (the region is the whole cell)
ANSWERS: dict[str, tuple[str, str]] = {
    "zeta1": ("openai", "```cell.py\n<|editable_region_start|>\n" + RENAMED + "<|editable_region_end|>\n```"),
    "zeta2": ("openai", RENAMED + ">>>>>>> UPDATED\n"),
    "zeta2.1": ("openai", "<|marker_1|>\n" + RENAMED + "<|marker_2|>"),
    "instinct": ("openai-chat", RENAMED),
    "sweep-next-edit": ("openai", RENAMED + "<|file_sep|>"),
    "edit-chat": ("openai-chat", "<REWRITE>\n" + RENAMED + "</REWRITE>"),
}
# a text of the prompt each format writes (the rule that answers matches it)
PROMPT_MARK = {
    "zeta1": "### User Excerpt:",
    "zeta2": "<<<<<<< CURRENT",
    "zeta2.1": "<|marker_1|>",
    "instinct": "### User Excerpt:",
    "sweep-next-edit": "<|file_sep|>current/",
    "edit-chat": "<|editable_region_start|>",
}


def edit_request(number: int, text: str = CELL, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "edit_prediction",
        "number": number,
        "version": 3,
        "path": "analysis.ipynb",
        "language": "python",
        "text": text,
        "cursor": text.index("prices") + len("prices") if isinstance(text, str) and "prices" in text else 0,
        "region": {"start": 0, "end": len(text)} if isinstance(text, str) else None,
        "recent_edits": [{"path": "analysis.ipynb", "diff": RENAME_DIFF}],
    }
    out.update(fields)
    return out


def applied(reply: dict[str, Any], text: str = CELL) -> str:
    return apply_edits(text, [Edit(e["start"], e["end"], e["text"]) for e in reply["edits"]])


@pytest.fixture(params=sorted(ANSWERS))
def fmt(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def edit_overrides() -> dict[str, Any]:
    """Fields of the edit model a test changes."""
    return {}


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream, fmt: str, edit_overrides: dict[str, Any]) -> dict[str, Any]:
    backend, answer = ANSWERS[fmt]
    upstream.set_rules([{"contains": PROMPT_MARK[fmt], "completion": answer}])
    return {
        "completion_model": upstream.model_config(),
        "edit_model": upstream.model_config(
            **{"backend": backend, "style": fmt, "model": f"{fmt}-model", **edit_overrides}
        ),
    }


async def test_each_format_predicts_the_rename_on_the_lines_below(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, fmt: str
) -> None:
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello is not None and "edit_prediction" in socket.hello["features"]
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["type"] == "edit_prediction" and reply["error"] is None, reply
    assert reply["version"] == 3
    assert reply["model"]["style"] == fmt
    assert applied(reply) == RENAMED
    assert len(reply["edits"]) == 2
    assert all(e["end"] - e["start"] <= len("items") for e in reply["edits"])  # small edits, not a rewrite
    sent = upstream.last()
    prompt = sent.body.get("prompt") or "\n".join(m["content"] for m in sent.body["messages"])
    assert PROMPT_MARK[fmt] in prompt and "def total(items)" in prompt  # the recent edit went along


@pytest.mark.parametrize("fmt", ["edit-chat"])
async def test_completions_still_work_beside_edits(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    upstream.set_rules([{"contains": "import num", "completion": "py as np\n"}])
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "import num"))
    [reply] = await socket.until_done(1)
    assert reply["list"]["items"][0]["insertText"] == "py as np"


@pytest.mark.parametrize("edit_overrides", [{"backend": "openai"}])
@pytest.mark.parametrize(("fmt", "system"), [("instinct", False), ("edit-chat", True)])
async def test_a_chat_format_on_a_completions_endpoint_goes_in_the_chat_template(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, fmt: str, system: bool
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert applied(reply) == RENAMED
    body = upstream.last().body
    prompt = body["prompt"]
    # ChatML (the Qwen-based models' template), never the messages joined by blank lines
    head = "<|im_start|>system\n" if system else "<|im_start|>user\n"
    assert prompt.startswith(head)
    assert prompt.endswith("<|im_end|>\n<|im_start|>assistant\n")
    assert ("<|im_start|>user\n" in prompt) and prompt.count("<|im_start|>") == (3 if system else 2)
    assert "<|im_end|>" in body["stop"]


@pytest.mark.parametrize("fmt", ["sweep-next-edit"])
async def test_an_answer_cut_off_at_the_token_limit_gives_no_edit(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    # Sweep's end marker is a stop sequence: the answer never shows it, so a cut-off rewrite is
    # known by the token limit it reached
    cut = RENAMED + "".join(f"extra_{i} = {i}\n" for i in range(2000))
    upstream.set_rules([{"contains": "<|file_sep|>current/", "completion": cut, "piece_chars": 4}])
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert reply["edits"] == []
    assert any("cut off at its token limit" in n for n in reply["notes"]), reply["notes"]


# the region: the loop's line only, the cursor in it
ONE_LINE = {
    "region": {"start": CELL.index("    for"), "end": CELL.index("        s +=")},
    "cursor": CELL.index("    for") + 4,
}
BAD = {
    # the model rewrote the lines around the one-line region too: the copies it left as they
    # were are taken off, and since it changed one of them, there is no edit
    "outside": (
        "<REWRITE>\n" + RENAMED + "</REWRITE>",
        ONE_LINE,
        CELL,
        "outside the editable region",
    ),
    # the lines around it copied as they are: taken off, the region's own change kept
    "copied-around": (
        "<REWRITE>\n" + CELL.replace("in items", "in prices") + "</REWRITE>",
        ONE_LINE,
        CELL.replace("in items", "in prices"),
        "",
    ),
    # the whole cell rewritten, with changes outside the region: no edit
    "whole-cell": (
        "<REWRITE>\nimport numpy as np\n" + RENAMED.replace("s = 0", "s = 0.0") + "</REWRITE>",
        ONE_LINE,
        CELL,
        "outside the editable region",
    ),
    "wrong-format": ("Sure, rename items to prices everywhere.", {}, CELL, "next-edit format"),
    "fences": ("<REWRITE>\n```python\n" + RENAMED + "```\n</REWRITE>", {}, RENAMED, ""),
    "never-stops": ("<REWRITE>\n" + "x = 1\n" * 20_000, {}, CELL, "never ended|did not stop"),
    "ten-thousand-edits": (
        "<REWRITE>\n" + "".join(f"v{i} = {i}\n" for i in range(10_000)) + "</REWRITE>",
        {},
        CELL,
        "no edit",
    ),
    "no-op": ("<REWRITE>\n" + CELL + "</REWRITE>", {}, CELL, ""),
}


@pytest.mark.parametrize("fmt", ["edit-chat"])
@pytest.mark.parametrize("case", sorted(BAD))
async def test_bad_answers_give_no_edit_or_a_bounded_one(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, case: str
) -> None:
    answer, fields, result, note = BAD[case]
    upstream.set_rules([{"contains": "<|editable_region_start|>", "completion": answer, "piece_chars": 2000}])
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1, **fields))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert applied(reply) == result
    region = reply["region"]
    assert all(region["start"] <= e["start"] <= e["end"] <= region["end"] for e in reply["edits"])
    if note:  # one of the "|"-separated notes
        assert any(w in n for n in reply["notes"] for w in note.split("|")), reply["notes"]
    # the socket still serves
    upstream.set_rules([{"contains": "<|editable_region_start|>", "completion": ANSWERS["edit-chat"][1]}])
    await socket.send(edit_request(2))
    [again] = await socket.until_done(2)
    assert applied(again) == RENAMED


@pytest.mark.parametrize("fmt", ["edit-chat"])
async def test_an_answer_that_never_stops_is_cut_and_its_stream_closed(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    upstream.set_rules(
        [
            {
                "contains": "<|editable_region_start|>",
                "completion": "<REWRITE>\n" + "y = 2\n" * 200_000,
                "ignore_max_tokens": True,  # a server that ignores max_tokens: we stop reading
            }
        ]
    )
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["edits"] == []
    assert any("did not stop" in n for n in reply["notes"])
    record = upstream.last()
    assert record.client_closed or record.tokens_sent < 200_000 * 4


@pytest.mark.parametrize("fmt", ["zeta2"])
async def test_no_edits_answer(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    upstream.set_rules([{"contains": "<<<<<<< CURRENT", "completion": "NO_EDITS\n>>>>>>> UPDATED\n"}])
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["edits"] == [] and reply["error"] is None
    assert any("no edit" in n for n in reply["notes"])


@pytest.mark.parametrize("fmt", ["edit-chat"])
async def test_a_newer_request_supersedes_an_older_one(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    upstream.set_rules(
        [
            {
                "contains": "SLOWDOC",
                "completion": "<REWRITE>\n" + "z = 1\n" * 50 + "</REWRITE>",
                "token_s": 0.05,
            },
            {"contains": "<|editable_region_start|>", "completion": ANSWERS["edit-chat"][1]},
        ]
    )
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1, text="# SLOWDOC\n" + CELL, version=1))
    await asyncio.sleep(0.2)
    await socket.send(edit_request(2, version=2))
    first = await socket.until_done(1)
    assert first[-1]["type"] == "error" and first[-1]["error"]["type"] == "superseded"
    [second] = await socket.until_done(2)
    assert second["version"] == 2 and applied(second) == RENAMED
    slow = next(r for r in upstream.records if "SLOWDOC" in str(r.body))
    assert slow.client_closed  # the superseded request's model stream was closed


async def _finals(socket: Any, numbers: set[int]) -> dict[int, dict[str, Any]]:
    """The final message of each request in ``numbers``, in whatever order they come."""
    out: dict[int, dict[str, Any]] = {}
    while set(out) != numbers:
        msg = await socket.recv()
        if msg.get("reply_to") in numbers and is_final(msg):
            out[msg["reply_to"]] = msg
    return out


@pytest.mark.parametrize("fmt", ["edit-chat"])
@pytest.mark.parametrize("edit_first", [True, False], ids=["edit-then-completion", "completion-then-edit"])
async def test_an_edit_prediction_and_a_completion_in_flight_are_both_answered(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, edit_first: bool
) -> None:
    # both slow enough to be in flight together; a newer request supersedes only its own kind
    upstream.set_rules(
        [
            {"contains": "<|editable_region_start|>", "completion": ANSWERS["edit-chat"][1], "token_s": 0.02},
            {"contains": "import num", "completion": "py as np\n", "token_s": 0.1},
        ]
    )
    socket = await open_socket(jp_ws_fetch)
    edit, completion = (1, 2) if edit_first else (2, 1)
    first, second = (edit_request(edit), request(completion, "import num"))
    if not edit_first:
        first, second = second, first
    await socket.send(first)
    await asyncio.sleep(0.1)
    await socket.send(second)
    finals = await _finals(socket, {1, 2})
    assert finals[edit]["type"] == "edit_prediction" and finals[edit]["error"] is None, finals[edit]
    assert applied(finals[edit]) == RENAMED
    done = finals[completion]
    assert done["type"] != "error", done
    # and each kind still supersedes its own: a newer completion stops the older completion only
    await socket.send(request(3, "a = 3\nimport num"))
    await socket.send(edit_request(4))
    await asyncio.sleep(0.05)
    await socket.send(request(5, "a = 5\nimport num"))
    finals = await _finals(socket, {3, 4, 5})
    assert finals[3]["type"] == "error" and finals[3]["error"]["type"] == "superseded"
    assert finals[4]["type"] == "edit_prediction" and applied(finals[4]) == RENAMED
    assert finals[5]["type"] != "error", finals[5]


@pytest.mark.parametrize("fmt", ["edit-chat"])
@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"cursor": 10_000}, "cursor 10000 lies past the end"),
        ({"region": {"start": 5, "end": 2}}, "must lie in the text"),
        ({"recent_edits": [{"diff": "x"}] * 17}, "recent_edits"),
        ({"text": 5}, "text"),
    ],
)
async def test_bad_requests_get_an_error_naming_the_problem(
    jp_ws_fetch: Any, fields: dict[str, Any], words: str
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(7, **fields))
    [reply] = await socket.until_done(7)
    assert reply["type"] == "error" and reply["error"]["type"] == "bad_request"
    assert words in reply["error"]["message"]
    await socket.send(edit_request(8))
    [ok] = await socket.until_done(8)
    assert ok["type"] == "edit_prediction"


@pytest.mark.parametrize("fmt", ["edit-chat"])
@pytest.mark.parametrize("edit_overrides", [{"timeout": 1.0, "first_request_timeout": 1.0}])
async def test_a_model_that_never_answers_meets_the_deadline(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    upstream.set_rules([{"contains": "<|editable_region_start|>", "hang": True}])
    socket = await open_socket(jp_ws_fetch)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["error"]["type"] == "timeout" and reply["edits"] == []
    assert loop.time() - t0 < 4.0


@pytest.mark.parametrize("fmt", ["edit-chat"])
async def test_the_stream_is_closed_at_the_end_marker(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    # the end marker arrives in several pieces ("<", "/", "REWRITE", ">"), then the model goes on
    answer = "<REWRITE>\n" + RENAMED + "</REWRITE>\n" + "more words " * 3000
    upstream.set_rules(
        [
            {
                "contains": "<|editable_region_start|>",
                "completion": answer,
                "token_s": 0.001,
                "ignore_max_tokens": True,
            }
        ]
    )
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert applied(reply) == RENAMED
    record = upstream.last()
    await asyncio.sleep(0.2)
    assert record.client_closed and record.tokens_sent < 1000


@pytest.mark.parametrize("fmt", ["edit-chat"])
async def test_an_edit_prediction_carries_the_documents_session_key(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    """The same router session as the document's completions (backends/affinity.py)."""
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    edit = upstream.last()
    path = edit_request(1)["path"]
    await socket.send(request(2, "import num", path=path))
    await socket.until_done(2)
    completion = upstream.last()
    assert completion is not edit
    key = edit.headers["x-session-id"]
    assert key and completion.headers["x-session-id"] == key
    assert edit.body["user"] == key  # openai-chat takes the end-user field
