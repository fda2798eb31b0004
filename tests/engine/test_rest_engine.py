"""REST and websocket through the same engine: deadlines, budgets and errors, with a running server
and the scripted upstream (issue 16, step 4)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jupyter_codecomplete.testing import CompletionSocket, OpenAIUpstream, request

# A model that answers one token a second (8 tokens: 8 s), one that never answers, and one whose
# first token comes after 30 s. Every model below has a 1 s deadline.
RULES: list[dict[str, Any]] = [
    {"contains": "DRIP", "completion": "a b c d e f g h", "token_s": 1.0},
    {"contains": "HANG", "hang": True},
    {"contains": "LATE", "completion": "late = 1\n", "ttft_s": 30.0},
]


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream, model_config: dict[str, Any]) -> dict[str, Any]:
    upstream.config.rules[:0] = [dict(r) for r in RULES]  # the shared upstream, with these rules first
    budgets = {"max_tokens": 200, "max_tokens_single_line": 24, "context_window": 512}
    deadlines = {"timeout": 1.0, "first_request_timeout": 1.0}
    return {"completion_model": {**model_config, **deadlines, **budgets}, "recent_completions": 0}


async def post(jp_fetch: Any, endpoint: str, body: dict[str, Any]) -> Any:
    return await jp_fetch(
        "api", "codecomplete", endpoint, method="POST", body=json.dumps(body), raise_error=False
    )


@pytest.mark.parametrize(
    "prompt,first",
    [("x = DRIP", False), ("x = HANG", True), ("x = LATE", True)],
    ids=["one-token-a-second", "hanging", "late-first-token"],
)
async def test_rest_completion_ends_at_the_deadline(
    jp_fetch: Any, jp_ws_fetch: Any, prompt: str, first: bool
) -> None:
    r = await post(jp_fetch, "completions", {"prompt": prompt})
    assert r.code == 504
    error = json.loads(r.body)["error"]
    assert error["type"] == "timeout"
    assert ("first token" in error["message"]) is first
    # the websocket answers the same request with the same error
    socket = await CompletionSocket.open(jp_ws_fetch)
    await socket.send(request(1, prompt))
    reply = (await socket.until_done(1))[-1]
    assert reply["error"] == error


async def test_rest_stream_ends_at_the_deadline_with_an_error_event(jp_fetch: Any) -> None:
    r = await post(jp_fetch, "completions", {"prompt": "x = DRIP", "stream": True})
    assert r.code == 200
    events = [line[6:] for line in r.body.decode().split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    last = json.loads(events[-2])
    assert last["error"]["type"] == "timeout"


async def test_rest_max_tokens_is_applied_before_the_prompt_is_sized(jp_fetch: Any) -> None:
    prefix = "".join(f"value_{i} = compute({i}, {i + 1})\n" for i in range(400))
    r = await post(jp_fetch, "prompt", {"prompt": prefix, "max_tokens": 400})
    assert r.code == 200
    out = json.loads(r.body)
    assert out["max_tokens"] == 400
    assert out["prompt_tokens"] + out["max_tokens"] <= 512


async def test_rest_overrides_reach_the_model(jp_fetch: Any, upstream: OpenAIUpstream) -> None:
    r = await post(
        jp_fetch,
        "completions",
        {"prompt": "z = ", "max_tokens": 7, "temperature": 0.0, "stop": ["#END"]},
    )
    assert r.code == 200, r.body
    body = upstream.last().body
    assert body["max_tokens"] == 7
    assert body["temperature"] == 0.0
    assert "#END" in body["stop"]


async def test_unknown_model_is_404_with_the_error_envelope(jp_fetch: Any) -> None:
    r = await post(jp_fetch, "completions", {"prompt": "x", "model": "nope"})
    assert r.code == 404
    error = json.loads(r.body)["error"]
    assert error["type"] == "unknown_model" and error["title"] and "nope" in error["message"]


@pytest.mark.parametrize(
    "prefix,suffix,budget",
    [
        ("x = compute(a, b)", "", 24),  # the end of an ordinary line: single-line
        ("x = compute(", ", b)", 24),  # inside a line: single-line
        ("def f(a, b):\n    ", "", 200),  # an empty line in a block: multi-line
    ],
    ids=["end-of-line", "mid-line", "empty-line"],
)
async def test_websocket_and_rest_budget_by_cursor(
    jp_fetch: Any, jp_ws_fetch: Any, upstream: OpenAIUpstream, prefix: str, suffix: str, budget: int
) -> None:
    socket = await CompletionSocket.open(jp_ws_fetch)
    await socket.send(request(1, prefix, suffix))
    await socket.until_done(1)
    assert upstream.last().body["max_tokens"] == budget
    r = await post(jp_fetch, "completions", {"prompt": prefix, "suffix": suffix, "language": "python"})
    assert r.code == 200, r.body
    assert upstream.last().body["max_tokens"] == budget
