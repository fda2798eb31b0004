"""One edit prediction, one record: the model serving it and its next-edit format are decided once
per request (``completion/edits.py`` :func:`edit_facts`), however many stages read them (the
reported-model lookup, the error fix's choice of path, the prompt, the model call, the reply's
model), for a cell, a notebook-scope request and an error fix, against a real scripted
OpenAI-format upstream."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import pytest

import jupyter_codecomplete.completion.edits as edits_module
from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.completion import EngineSettings
from jupyter_codecomplete.completion.engine import make_default_engine
from jupyter_codecomplete.protocol import EditPredictionRequest
from jupyter_codecomplete.testing import OpenAIUpstream

CELL = "def total(prices):\n    s = 0\n    for p in items:\n        s += p\n    return s\n"
RENAMED = CELL.replace("in items", "in prices")
FIX = 'total = 0\ntotal += df["prcie"].sum()\n'
TRACEBACK = (
    "---------------------------------------------------------------------------\n"
    "KeyError                                  Traceback (most recent call last)\n"
    "Cell In[2], line 2\n"
    "      1 total = 0\n"
    '----> 2 total += df["prcie"].sum()\n'
    "\n"
    "KeyError: 'prcie'"
)

REQUESTS: dict[str, dict[str, Any]] = {
    "cell": {"text": CELL, "cursor": 10, "region": {"start": 0, "end": len(CELL)}},
    "notebook": {
        "text": CELL,
        "cursor": 10,
        "cell_id": "c1",
        "scope": "notebook",
        "cells_above": [{"cell_type": "code", "source": "import pandas as pd\n", "cell_id": "c0"}],
    },
    "error-fix": {
        "text": FIX,
        "cursor": len(FIX),
        "cell_id": "c2",
        "trigger": "error",
        "error": {"ename": "KeyError", "evalue": "'prcie'", "traceback": TRACEBACK, "execution_count": 2},
    },
}


@pytest.mark.parametrize("kind", sorted(REQUESTS))
async def test_the_model_and_the_format_are_decided_once_per_edit_request(
    upstream: OpenAIUpstream, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    upstream.set_rules(
        [
            {"contains": "prcie", "completion": '<REWRITE>\ntotal += df["price"].sum()\n</REWRITE>'},
            {"contains": "<|editable_region_start|>", "completion": "<REWRITE>\n" + RENAMED + "</REWRITE>"},
        ]
    )
    chat = ModelConfig.model_validate(
        upstream.model_config(backend="openai-chat", style="edit-chat", model="test-chat")
    )
    h = make_default_engine(
        EngineSettings(
            models={"completion": ModelConfig.model_validate(upstream.model_config()), "edit": chat},
            recent_completions=0,
        )
    )
    counts: collections.Counter[str] = collections.Counter()

    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    body = {"number": 1, "path": "sales.ipynb", "language": "python", **REQUESTS[kind]}
    try:
        first = await h.handle_edit_request(EditPredictionRequest.model_validate(body))
        assert first.error is None, first
        monkeypatch.setattr(edits_module, "edit_model_key", counted("model", edits_module.edit_model_key))
        monkeypatch.setattr(edits_module, "edit_style_for", counted("style", edits_module.edit_style_for))
        reply = await h.handle_edit_request(EditPredictionRequest.model_validate({**body, "number": 2}))
        assert reply.error is None, reply
        assert reply.edits, reply  # the model was asked and its answer used
        assert reply.model is not None and reply.model.style == "edit-chat"
        assert counts == {"model": 1, "style": 1}
    finally:
        await h.close()
