"""Edit predictions served by the embedded backend: the bundled demo GGUF run in-process as
``edit_model``, a next-edit style forced, through a running Jupyter server's websocket.

The demo model writes nonsense, so the reply is checked for its shape (edits inside the region or
none, never an error) and the prompt for the style's format: built by the running engine's own
:func:`~jupyter_codecomplete.completion.edits.prepare_edits`, and tokenized by the demo model with
the format's markers as its special tokens (what the embedded worker does with a prompt)."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_codecomplete.completion.edits import prepare_edits
from jupyter_codecomplete.protocol import EditPredictionRequest
from jupyter_codecomplete.testing import OpenAIUpstream, open_socket, request

CELL = "def total(prices):\n    s = 0\n    for p in items:\n        s += p\n    return s / len(items)\n"
# a text each format's prompt holds (builtin_styles.py)
MARKS = {"sweep-next-edit": "<|file_sep|>current/", "zeta1": "### User Excerpt:"}


def edit_request(number: int) -> dict[str, Any]:
    return {
        "type": "edit_prediction",
        "number": number,
        "version": 7,
        "path": "analysis.py",
        "language": "python",
        "text": CELL,
        "cursor": CELL.index("items"),
        "region": {"start": 0, "end": len(CELL)},
        "recent_edits": [
            {"path": "analysis.py", "diff": "@@ -1 +1 @@\n-def total(items):\n+def total(prices):\n"}
        ],
    }


@pytest.fixture(params=sorted(MARKS))
def style(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def codecomplete_config(model_config: dict[str, Any], style: str) -> dict[str, Any]:
    return {
        "completion_model": model_config,
        "edit_model": {
            "backend": "embedded",
            "style": style,
            "timeout": 120.0,
            "first_request_timeout": 180.0,
        },
    }


async def test_the_demo_gguf_serves_an_edit_prediction_in_the_forced_format(
    jp_ws_fetch: Any, jp_serverapp: Any, upstream: OpenAIUpstream, style: str
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["type"] == "edit_prediction" and reply["reply_to"] == 1 and reply["version"] == 7
    assert reply["error"] is None, reply
    assert reply["model"]["backend"] == "embedded" and reply["model"]["style"] == style
    assert reply["model"]["demo"] is True
    assert reply["region"] == {"start": 0, "end": len(CELL)}
    for edit in reply["edits"]:  # nonsense or nothing, but always inside the region
        assert 0 <= edit["start"] <= edit["end"] <= len(CELL) and isinstance(edit["text"], str)
    assert all(isinstance(n, str) for n in reply["notes"])
    # completions still come from the completion model
    await socket.send(request(2, "def add(a, b):"))
    done = await socket.until_done(2)
    assert done[-1]["model"]["name"] == "test-coder"
    # the prompt the embedded model was asked with: the style's format, and its markers are the
    # demo model's special tokens (one token each, as the worker tokenizes a prompt)
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_codecomplete"]
    engine = app.completion_handler
    ep = prepare_edits(engine, EditPredictionRequest.model_validate(edit_request(3)))
    assert ep.key == "edit" and ep.style.name == style and ep.prepared.backend.kind == "embedded"
    prompt = ep.prepared.built.prompt
    assert ep.prepared.built.messages is None and MARKS[style] in prompt and "def total(items)" in prompt
    if style == "sweep-next-edit":  # Qwen2.5-Coder's file separator, which the demo model shares
        model = ep.prepared.backend.llm.shared
        assert prompt.count("<|file_sep|>") >= 3
        assert len(model.engine(timeout=120).tokenize("<|file_sep|>")) == 1
