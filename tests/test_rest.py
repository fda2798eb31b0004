"""The REST endpoints through a running server, with a real scripted upstream."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.testing import OpenAIUpstream


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    return {
        "completion_model": {
            "backend": "openai",
            "base_url": upstream.base_url,
            "model": "qwen2.5-coder-1.5b",
            "timeout": 5.0,
        },
        "models": {
            "plain": {"backend": "openai", "base_url": upstream.base_url, "model": "test", "style": "raw"}
        },
    }


async def post(jp_fetch: Any, endpoint: str, body: Any) -> Any:
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return await jp_fetch("api", "codecomplete", endpoint, method="POST", body=data, raise_error=False)


async def test_prompt_infill_qwen(jp_fetch: Any) -> None:
    r = await post(jp_fetch, "prompt", {"prompt": "def f(x):\n    return ", "suffix": "\n\nprint(f(2))\n"})
    assert r.code == 200
    out = json.loads(r.body)
    assert out["style"] == "qwen2.5-coder"
    assert out["mode"] in {"infill", "repository_infill"}
    assert "<|fim_prefix|>" in out["prompt"] and out["prompt"].endswith("<|fim_middle|>")
    assert (
        out["prompt"].index("def f(x):")
        < out["prompt"].index("<|fim_suffix|>")
        < out["prompt"].index("print(f(2))")
    )
    assert "<|endoftext|>" in out["stop"]
    assert out["model"]["name"] == "qwen2.5-coder-1.5b"


async def test_prompt_takes_the_websockets_field_names(jp_fetch: Any) -> None:
    ours = {"prompt": "def f(x):\n    return ", "suffix": "\n", "file_path": "src/f.py"}
    theirs = {"prefix": "def f(x):\n    return ", "suffix": "\n", "path": "src/f.py", "language": "python"}
    a, b = await post(jp_fetch, "prompt", ours), await post(jp_fetch, "prompt", theirs)
    assert (a.code, b.code) == (200, 200), b.body
    assert json.loads(a.body)["prompt"] == json.loads(b.body)["prompt"]
    r = await post(jp_fetch, "prompt", {"prompt": "a", "prefix": "b"})
    assert r.code == 400
    message = json.loads(r.body)["error"]["message"]
    assert "`prompt` or `prefix`" in message, message


async def test_prompt_completion_for_named_model(jp_fetch: Any) -> None:
    r = await post(jp_fetch, "prompt", {"model": "plain", "mode": "completion", "prompt": "import num"})
    assert r.code == 200
    out = json.loads(r.body)
    assert out["style"] == "raw" and out["prompt"] == "import num" and out["mode"] == "completion"


async def test_completions_openai_shape(jp_fetch: Any, upstream: OpenAIUpstream) -> None:
    r = await post(jp_fetch, "completions", {"model": "plain", "prompt": "import num"})
    assert r.code == 200
    out = json.loads(r.body)
    assert out["object"] == "text_completion"
    assert out["choices"][0]["text"].rstrip() == "py as np"
    assert out["choices"][0]["finish_reason"] == "stop"
    assert upstream.last().body["prompt"] == "import num"


async def test_completions_sse(jp_fetch: Any) -> None:
    r = await post(
        jp_fetch, "completions", {"model": "plain", "prompt": "SLOW", "stream": True, "max_tokens": 9}
    )
    assert r.code == 200
    assert r.headers["Content-Type"].startswith("text/event-stream")
    events = [line[6:] for line in r.body.decode().split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert len(chunks) >= 3
    text = "".join(c["choices"][0]["text"] for c in chunks)
    assert text.startswith("word0 word1")
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


async def test_models_and_styles(jp_fetch: Any) -> None:
    r = await jp_fetch("api", "codecomplete", "models")
    out = json.loads(r.body)
    names = {m["name"]: m for m in out["models"]}
    assert set(names) == {"completion", "plain"}
    assert names["completion"]["style"] == "qwen2.5-coder"
    assert names["completion"]["capabilities"]["infill"] is True
    assert names["plain"]["capabilities"]["infill"] is False
    assert names["plain"]["reported"] == "test-coder"  # what the upstream's /v1/models says
    r = await jp_fetch("api", "codecomplete", "styles")
    styles = {s["name"] for s in json.loads(r.body)["styles"]}
    assert {"raw", "qwen2.5-coder"} <= styles


@pytest.mark.parametrize(
    ("body", "status", "kind"),
    [
        (b"{not json", 400, "bad_json"),
        (b"\xff\xfe\x00", 400, "bad_encoding"),
        ({"prompt": "x", "mode": "telepathy"}, 400, "bad_request"),
        ({"prompt": "x", "files": ["a.py"]}, 400, "bad_request"),
        ({"prompt": "x", "surprise": 1}, 400, "bad_request"),
        ({"prompt": "x", "model": "nope"}, 404, "unknown_model"),
        ({"prompt": "x", "mode": "infill"}, 400, "missing_suffix"),
        ({"prompt": "x", "model": "plain", "mode": "infill", "suffix": "y"}, 400, "no_infill"),
    ],
)
async def test_bad_input_is_4xx_with_json(jp_fetch: Any, body: Any, status: int, kind: str) -> None:
    for endpoint in ("prompt", "completions"):
        r = await post(jp_fetch, endpoint, body)
        assert r.code == status, r.body
        err = json.loads(r.body)["error"]
        assert err["type"] == kind and err["message"]


async def test_openapi_document(jp_fetch: Any) -> None:
    r = await jp_fetch("api", "codecomplete", "openapi.json")
    doc = json.loads(r.body)
    assert doc["openapi"].startswith("3.")
    assert set(doc["paths"]) >= {"/api/codecomplete/prompt", "/api/codecomplete/completions"}
    props = doc["components"]["schemas"]["CompletionRequestBody"]["properties"]
    assert {
        "model",
        "mode",
        "prompt",
        "suffix",
        "files",
        "repo_name",
        "file_path",
        "max_tokens",
        "temperature",
        "stop",
        "stream",
        "prefix",
        "path",
    } <= set(props)


@pytest.mark.parametrize("endpoint", ["prompt", "completions", "models", "styles", "openapi.json"])
async def test_rest_needs_a_token(jp_fetch: Any, endpoint: str) -> None:
    method = "POST" if endpoint in {"prompt", "completions"} else "GET"
    kwargs: dict[str, Any] = {"body": "{}"} if method == "POST" else {}
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch(
            "api", "codecomplete", endpoint, method=method, headers={"Authorization": ""}, **kwargs
        )
    assert err.value.code == 403
