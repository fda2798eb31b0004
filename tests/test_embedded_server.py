"""The embedded demo model serving completions through a running server (no model server at all)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jupyter_codecomplete.testing import open_socket, request


@pytest.fixture
def codecomplete_config() -> dict[str, Any]:
    # nothing configured and no local model server to find: the embedded demo model serves
    return {"discover_local_servers": False}


async def test_zero_config_serves_the_demo_model(jp_ws_fetch: Any, jp_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello is not None
    model = socket.hello["model"]
    assert model["backend"] == "embedded" and model["demo"] is True
    assert model["name"] == "codecomplete-demo"
    await socket.send(request(1, "import os\nimport sys\n\n\ndef main():\n    ", "", stream=True))
    msgs = await socket.until_done(1)
    assert msgs[-1]["done"] is True and msgs[-1]["error"] is None, msgs[-1]
    r = await jp_fetch(
        "api",
        "codecomplete",
        "prompt",
        method="POST",
        body=json.dumps({"prompt": "def f(x):\n    return ", "suffix": "\n\nf(1)\n"}),
    )
    built = json.loads(r.body)
    assert built["prompt"].startswith("<|fim_prefix|>") and built["prompt"].endswith("<|fim_middle|>")
    assert "<|endoftext|>" in built["stop"]
    r = await jp_fetch("api", "codecomplete", "models")
    [entry] = json.loads(r.body)["models"]
    assert entry["demo"] is True and entry["capabilities"]["infill"] is True
    assert entry["model"] == "codecomplete-demo" and entry["reported"] == "codecomplete-demo"


@pytest.mark.parametrize(
    "prefix",
    [
        "def fibonacci(n):\n    ",
        "import os\n\nfor name in os.listdir('.'):\n    ",
        "class Point:\n    def __init__(self, x, y):\n        ",
        "values = [\n    ",
        "x = ",
    ],
)
async def test_demo_model_suggests_at_most_one_clean_line(jp_ws_fetch: Any, prefix: str) -> None:
    from jupyter_codecomplete.postprocess import is_degenerate

    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(7, prefix, "", stream=True))
    msgs = await socket.until_done(7)
    last = msgs[-1]
    assert last["type"] == "stream" and last["error"] is None, last
    text = last["response"]["insertText"]
    # a fresh line after a block opener is a multi-line position for real models; the demo model
    # gives one line there too, and never a line of repeated names or numbers
    assert "\n" not in text.strip("\n"), text
    assert not is_degenerate(text), text
