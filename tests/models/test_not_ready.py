"""Start with the model's server down: not ready (with the reason) from the first hello, until a
model that answers is chosen; through a running server and a real upstream."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_codecomplete.testing import OpenAIUpstream, free_port, open_socket, request

from .test_models_api import api, choices


@pytest.fixture
def codecomplete_config() -> dict[str, Any]:
    down = f"http://127.0.0.1:{free_port()}/v1"
    return {
        "completion_model": {
            "backend": "openai",
            "base_url": down,
            "model": "down-coder",
            "style": "raw",
            "timeout": 5.0,
        }
    }


async def until_problem(jp_fetch: Any) -> dict[str, Any]:
    for _ in range(100):
        serving = (await choices(jp_fetch, detect=False))["serving"]
        if serving.get("problem"):
            return serving  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError("the start-up check never reported the server down")


async def test_a_server_down_at_start_is_not_ready_until_a_use(
    jp_fetch: Any, jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    serving = await until_problem(jp_fetch)
    assert "Cannot reach the model server" in serving["problem"]
    sock = await open_socket(jp_ws_fetch)
    assert sock.hello["model"]["name"] == "down-coder" and sock.hello["model"]["problem"]
    await sock.send(request(1, "def add(a, b):"))
    failed = (await sock.until_done(1))[-1]
    assert failed["error"]["type"] == "backend_unreachable" and failed["model"]["problem"]
    custom = {"backend": "openai", "base_url": upstream.base_url, "model": "test-coder", "style": "raw"}
    code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
    assert code == 200, out
    assert out["serving"]["name"] == "test-coder" and out["serving"]["problem"] is None
    await sock.send(request(2, "def add(a, b):"))
    ok = (await sock.until_done(2))[-1]
    assert ok.get("error") is None and ok["model"]["problem"] is None


async def test_a_server_that_stops_answering_is_not_ready_until_it_answers(
    jp_fetch: Any, jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    custom = {"backend": "openai", "base_url": upstream.base_url, "model": "test-coder", "style": "raw"}
    code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
    assert code == 200 and out["serving"]["problem"] is None, out
    sock = await open_socket(jp_ws_fetch)
    await sock.send(request(1, "def add(a, b):"))
    assert (await sock.until_done(1))[-1]["model"]["problem"] is None
    upstream.set_rules([{"contains": "def add", "status": 503}], default="x = 1\n")  # unavailable
    await sock.send(request(2, "def add(a, b):  # again"))
    failed = (await sock.until_done(2))[-1]
    assert failed["error"]["type"] == "backend_unavailable", failed
    assert "HTTP 503" in failed["model"]["problem"]  # the reply that failed says so
    assert (await choices(jp_fetch, detect=False))["serving"]["problem"]
    upstream.set_rules([], default="x = 1\n")  # it answers again
    await sock.send(request(3, "def add(a, b):  # and again"))
    ok = (await sock.until_done(3))[-1]
    assert ok.get("error") is None and ok["model"]["problem"] is None
    assert (await choices(jp_fetch, detect=False))["serving"]["problem"] is None
