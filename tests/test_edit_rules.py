"""The scripted "model" of issue 27's UI tests (``testing/edit_rules.py``) answers as described.

Through a running Jupyter server (the rename, in the generic chat format, from what the edit
history shows) and over HTTP to the scripted upstream itself (the fix after a KeyError, from what
the prompt shows of the error and the kernel's candidates); and that a prompt without what a rule
needs gets no edit from it.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from jupyter_codecomplete.postprocess.edits import Edit, apply_edits
from jupyter_codecomplete.prompting import EditPromptRequest, RecentEditText, StyleRegistry, build_edit_prompt
from jupyter_codecomplete.testing import OpenAIUpstream
from jupyter_codecomplete.testing.edit_rules import EDIT_CHAT_ISSUE_27_RULES
from jupyter_codecomplete.testing.wsclient import open_socket

DEFINE = 'sales = pd.DataFrame({"price": [1.0], "qty": [2]})\n'
CELL = DEFINE + 'df["price"].sum()\ndf.head()\nundf = 1\n'
RENAME = '@@ -1 +1 @@\n-df = pd.DataFrame({"price": [1.0], "qty": [2]})\n+' + DEFINE


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    upstream.set_rules([dict(r) for r in EDIT_CHAT_ISSUE_27_RULES], default="<REWRITE>\n</REWRITE>")
    return {
        "completion_model": upstream.model_config(),
        "edit_model": upstream.model_config(backend="openai-chat", style="edit-chat", model="test-chat"),
    }


def _edit(number: int, recent: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "edit_prediction",
        "number": number,
        "version": 1,
        "path": "sales.ipynb",
        "language": "python",
        "text": CELL,
        "cursor": len("sales"),
        "region": {"start": 0, "end": len(CELL)},
        "recent_edits": recent,
    }


async def test_the_rename_follows_where_the_history_shows_it(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(_edit(1, [{"path": "sales.ipynb", "diff": RENAME}]))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    text = apply_edits(CELL, [Edit(e["start"], e["end"], e["text"]) for e in reply["edits"]])
    # whole words only: ``undf`` stays
    assert text == DEFINE + 'sales["price"].sum()\nsales.head()\nundf = 1\n'
    sent = "\n".join(m["content"] for m in upstream.last().body["messages"])
    assert "-df = pd.DataFrame" in sent and "+sales = pd.DataFrame" in sent


async def test_no_history_no_rename(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(_edit(1, []))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None and reply["edits"] == [], reply


def _chat(upstream: OpenAIUpstream, content: str) -> str:
    body = {"model": "test-chat", "messages": [{"role": "user", "content": content}], "stream": False}
    req = urllib.request.Request(
        f"{upstream.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return str(json.load(resp)["choices"][0]["message"]["content"])


def _error_prompt(error: str, candidates: str) -> str:
    text = 'df["prcie"].sum()\n'
    style = StyleRegistry().get("edit-chat")
    built = build_edit_prompt(
        EditPromptRequest(
            text=text, cursor=4, language="python", recent_edits=[RecentEditText(diff="@@ -1 +1 @@\n-x\n+y")]
        ),
        style,
    )
    return f"{error}{candidates}{built.prompt}"


def test_the_fix_after_the_key_error(upstream: OpenAIUpstream) -> None:
    upstream.set_rules([dict(r) for r in EDIT_CHAT_ISSUE_27_RULES], default="nothing")
    prompt = _error_prompt("# KeyError: 'prcie'\n", "# The kernel completes df[ with:\n# 'price', 'qty'\n")
    assert _chat(upstream, prompt) == '<REWRITE>\ndf["price"].sum()\n</REWRITE>'
    # without the kernel's candidates, or without the error, the rule does not answer
    assert _chat(upstream, _error_prompt("# KeyError: 'prcie'\n", "")) == "nothing"
    assert _chat(upstream, _error_prompt("", "# The kernel completes df[ with:\n# 'price'\n")) == "nothing"
