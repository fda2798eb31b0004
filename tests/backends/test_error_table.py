"""The one status → error mapping, as a table: every backend kind, every status and failure.

Each row is one scripted answer (or failure) of a real provider server on a loopback port; each
backend kind must turn it into the same client error (``type``, ``retry_after``, title) with the
same message shape (jupyter_codecomplete/errors.py).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from backends.helpers import aclose_backend, collect
from langchain_core.messages import HumanMessage

from jupyter_codecomplete.backends import Backend, ModelConfig, make_backend
from jupyter_codecomplete.completion import error_info_from
from jupyter_codecomplete.protocol import ErrorInfo
from jupyter_codecomplete.testing import OpenAIUpstream, served_kinds, upstream_for

KINDS = served_kinds()  # every built-in kind with a model server (Backend.wire)
KEY = "sk-test-secret-1234"  # the Mistral fake wants this key; the others ignore it

# trigger, scripted rule, expected type, expected retry_after, HTTP status in the title
ROWS: list[tuple[str, dict[str, Any], str, float | None, int | None]] = [
    ("S400", {"status": 400}, "backend_error", None, 400),
    ("S401", {"status": 401}, "backend_error", None, 401),
    ("S404", {"status": 404}, "backend_error", None, 404),
    ("S408", {"status": 408}, "timeout", None, 408),
    ("S429", {"status": 429, "retry_after": 7}, "rate_limited", 7.0, 429),
    ("S500", {"status": 500}, "backend_error", None, 500),
    ("S502", {"status": 502}, "backend_unavailable", None, 502),
    ("S503", {"status": 503, "retry_after": 3}, "backend_unavailable", 3.0, 503),
    ("S504", {"status": 504, "retry_after": 2}, "backend_unavailable", 2.0, 504),
    ("ERRBODY", {"error_body": "model exploded"}, "backend_error", None, None),
    ("NOTJSON", {"completion": "a b c", "invalid_json": True}, "backend_error", None, None),
    ("HANG", {"hang": True}, "timeout", None, None),
]


def _upstream(kind: str) -> OpenAIUpstream:
    return upstream_for(kind, api_key=KEY)


def _config(kind: str, url: str, **extra: Any) -> ModelConfig:
    return ModelConfig.model_validate(
        {"backend": kind, "base_url": url, "model": "m", "api_key": KEY, **extra}
    )


def _url(kind: str, up: OpenAIUpstream) -> str:
    return up.backend_url


@pytest.fixture(scope="module", params=KINDS)
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, OpenAIUpstream]]:
    kind = str(request.param)
    up = _upstream(kind)
    rules = [{"contains": trigger, **rule} for trigger, rule, *_ in ROWS]
    rules.append({"contains": "LEAK", "status": 400, "body": {"error": {"message": f"bad key {KEY}"}}})
    up.set_rules(rules, default="x = 1\n")
    up.start()
    yield kind, up
    up.stop()


async def _fail(backend: Backend, trigger: str) -> ErrorInfo:
    prompt: Any = [HumanMessage(trigger)] if backend.chat else trigger
    try:
        with pytest.raises(Exception) as e:
            await collect(backend, prompt)
    finally:
        await aclose_backend(backend)
    return error_info_from(e.value, backend.config.secrets())


@pytest.mark.parametrize(("trigger", "rule", "kind", "retry", "status"), ROWS, ids=[r[0] for r in ROWS])
async def test_every_backend_maps_the_same(
    served: tuple[str, OpenAIUpstream],
    trigger: str,
    rule: dict[str, Any],
    kind: str,
    retry: float | None,
    status: int | None,
) -> None:
    backend_kind, up = served
    # a short client timeout for the hanging row (behaviour, not timing: the server never answers)
    backend = make_backend(_config(backend_kind, _url(backend_kind, up), first_request_timeout=1.0))
    info = await _fail(backend, trigger)
    assert (info.type, info.retry_after) == (kind, retry), info
    if status is not None:
        assert info.title == f"The model server answered HTTP {status}"
        assert info.message == f"HTTP {status}: scripted status {status}"
    elif trigger == "ERRBODY":
        assert info.message == "The model server reported an error: model exploded"
    elif trigger == "NOTJSON":
        assert info.title == "The model server sent an invalid answer"
    else:
        assert info.title == "The model took too long" and info.message.startswith("The model server at ")


async def test_secrets_are_scrubbed_on_every_backend(served: tuple[str, OpenAIUpstream]) -> None:
    backend_kind, up = served
    info = await _fail(make_backend(_config(backend_kind, _url(backend_kind, up))), "LEAK")
    assert KEY not in info.message and info.message == "HTTP 400: bad key ***"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("backend_kind", KINDS)
async def test_connection_refused_is_the_same_everywhere(backend_kind: str) -> None:
    port = _closed_port()
    suffix = "/v1" if backend_kind in ("openai", "openai-chat", "mistral") else ""
    backend = make_backend(_config(backend_kind, f"http://127.0.0.1:{port}{suffix}"))
    info = await _fail(backend, "x")
    assert info.type == "backend_unreachable"
    assert info.title == "The model server cannot be reached"
    pattern = rf"Cannot reach the model server at http://127\.0\.0\.1:{port}/\S+: (.+)"
    found = re.fullmatch(pattern, info.message)
    assert found is not None, info.message
    assert found.group(1) == "Connection refused"


@pytest.mark.parametrize("backend_kind", KINDS)
async def test_a_finished_stream_leaves_its_connection_for_the_next_request(backend_kind: str) -> None:
    """Every backend reads a finished answer to its end ([DONE], Ollama's `done`, llama.cpp's `stop`),
    so the next request reuses the connection (a new TCP and TLS connection per keystroke otherwise)."""
    up = _upstream(backend_kind)
    up.set_rules([], default="x = compute(a, b)\n")
    up.start()
    backend = make_backend(_config(backend_kind, _url(backend_kind, up)))
    prompt: Any = [HumanMessage("hello")] if backend.chat else "hello"
    try:
        for _ in range(3):
            assert await collect(backend, prompt) == "x = compute(a, b)\n"
        peers = [r.peer for r in up.records]
        # the model server saw the three requests come from one client port: one connection
        assert len(peers) == 3 and peers[0] and len(set(peers)) == 1, peers
    finally:
        await aclose_backend(backend)
        up.stop()
