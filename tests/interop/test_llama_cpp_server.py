"""Interop with a real OpenAI-compatible model server: ``python -m llama_cpp.server`` serving the
bundled demo model on a loopback port, driven through our websocket and REST endpoints."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jupyter_codecomplete.testing import LlamaCppServer, llama_cpp_server, open_socket, request, suggestion

pytest.importorskip(
    "llama_cpp.server", reason="install the [local] extra: pip install llama-cpp-python[server]"
)

MODELS = Path(__file__).resolve().parents[2] / "jupyter_codecomplete" / "models"
N_CTX = 2048

pytestmark = pytest.mark.llamacpp


def demo_model() -> Path:
    found = sorted(MODELS.glob("*.gguf"))
    assert found, f"no GGUF model in {MODELS}"
    return found[0]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_cpp_server(demo_model(), log, n_ctx=N_CTX, n_threads=2) as server:
        yield server


@pytest.fixture
def codecomplete_config(llama_server: LlamaCppServer) -> dict[str, Any]:
    common = {
        "base_url": llama_server.base_url,
        "model": "codecomplete-demo",
        "temperature": 0.0,
        "timeout": 60.0,
        "context_window": N_CTX,
    }
    return {
        "completion_model": {"backend": "openai", "style": "qwen2.5-coder", "max_tokens": 200, **common},
        "chat_model": {"backend": "openai-chat", "max_tokens": 16, **common},
        "routes": {"markdown": "chat"},
    }


PREFIX = "import os\n\n\ndef read_file(path):\n    with open(path) as f:\n        "
SUFFIX = "\n\n\ndef main():\n    print(read_file('x'))\n"


def direct(server: LlamaCppServer, body: dict[str, Any]) -> dict[str, Any]:
    r = httpx.post(
        f"{server.base_url}/completions", json={"repeat_penalty": 1.0, "temperature": 0, **body}, timeout=60
    )
    r.raise_for_status()
    return r.json()


def test_server_honours_max_tokens_and_stop(llama_server: LlamaCppServer) -> None:
    out = direct(llama_server, {"prompt": "def add(a, b):\n", "max_tokens": 3})
    assert out["usage"]["completion_tokens"] <= 3
    assert out["choices"][0]["finish_reason"] == "length"
    out = direct(llama_server, {"prompt": "import os\nimport sys\n", "max_tokens": 64, "stop": ["\n"]})
    assert "\n" not in out["choices"][0]["text"]


def test_fim_prompt_is_reproducible(llama_server: LlamaCppServer) -> None:
    prompt = f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>"
    a = direct(llama_server, {"prompt": prompt, "max_tokens": 16})
    b = direct(llama_server, {"prompt": prompt, "max_tokens": 16})
    assert a["choices"][0]["text"] == b["choices"][0]["text"]
    assert a["choices"][0]["finish_reason"] in {"stop", "length"}


async def test_infill_through_the_websocket(jp_ws_fetch: Any, jp_fetch: Any) -> None:
    r = await jp_fetch(
        "api", "codecomplete", "prompt", method="POST", body=json.dumps({"prompt": PREFIX, "suffix": SUFFIX})
    )
    built = json.loads(r.body)
    assert built["style"] == "qwen2.5-coder" and "<|fim_middle|>" in built["prompt"]
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello and socket.hello["model"]["name"] == "codecomplete-demo"
    await socket.send(request(1, PREFIX, SUFFIX))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply["error"]
    for item in reply["list"]["items"]:
        assert "<|" not in item["insertText"]


async def test_stream_through_the_websocket(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "import os\nimport sys\n\n\ndef main():\n    ", "", stream=True))
    msgs = await socket.until_done(1)
    assert msgs[-1]["type"] == "stream" and msgs[-1]["done"] is True
    assert msgs[-1]["error"] is None, msgs[-1]["error"]


@pytest.fixture
def log_start(llama_server: LlamaCppServer) -> int:
    """Where the model server's log stood before the Jupyter server app of the test started (its
    own model lookup may be done before the test's body runs)."""
    return len(llama_server.output())


async def test_first_stream_is_not_interrupted_by_the_model_lookup(
    log_start: int, jp_ws_fetch: Any, llama_server: LlamaCppServer
) -> None:
    """llama-cpp-python's server ends a running stream (``[DONE]``, then it drops the connection) when
    another request arrives (``interrupt_requests``, on by default): the engine's own ``GET /v1/models``
    (what the server serves) must come before the first completion, not during it. A fresh server
    app per test: this is its first request."""
    start = log_start
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "x = [\n    1,\n    2,\n    3,\n", "", stream=True))
    msgs = await socket.until_done(1)
    assert msgs[-1]["error"] is None, msgs[-1]["error"]
    log = llama_server.output()[start:]
    assert "disconnected" not in log, log
    assert 0 <= log.find("GET /v1/models") < log.find("POST /v1/completions"), log
    assert suggestion(msgs), "an empty suggestion: the stream was ended early"


async def test_chat_model_through_routing(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "# Notes\nThe function ", "", language="markdown"))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply["error"]
    assert reply["model"]["backend"] == "openai-chat"


async def test_cancel_stops_generation_on_the_server(jp_ws_fetch: Any, llama_server: LlamaCppServer) -> None:
    before = llama_server.output().count("disconnected")
    socket = await open_socket(jp_ws_fetch)
    # a long generation: many tokens allowed, no stop that the model can reach early
    await socket.send(request(1, "x = [\n    1,\n    2,\n    3,\n", "", stream=True))
    while (msg := await socket.recv())["type"] != "stream":
        pass
    await socket.cancel(1)
    while True:
        msg = await socket.recv()
        if msg["reply_to"] == 1 and (msg["type"] == "error" or msg.get("done")):
            break
    assert msg["type"] == "error", "the generation ended before the cancel reached it"
    assert msg["error"]["type"] == "cancelled"
    for _ in range(600):
        if llama_server.output().count("disconnected") > before:
            break
        await asyncio.sleep(0.05)
    assert llama_server.output().count("disconnected") > before, llama_server.output()[-2000:]
    # and the server serves the next request
    await socket.send(request(2, "import os\n", ""))
    [reply] = await socket.until_done(2)
    assert reply["error"] is None, llama_server.output()[-3000:]


# llama.cpp's own report of each request: how many prompt tokens it evaluated (the rest came from
# its cache of the previous prompt)
PERF = re.compile(r"prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")
LONG = "".join(f"def step_{i}(x):\n    return x * {i} + {i % 7}\n\n\n" for i in range(30))


async def evaluated_after(server: LlamaCppServer, start: int, count: int = 1) -> list[int]:
    """The prompt tokens of the next ``count`` requests the server reported after offset ``start``."""
    for _ in range(200):
        found = [int(n) for n in PERF.findall(server.output()[start:])]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(server.output()[start:][-2000:])


async def warm_reply(socket: Any, number: int) -> dict[str, Any]:
    while True:
        msg = await socket.recv(timeout=60)
        if msg.get("reply_to") == number and msg["type"] == "warm":
            return dict(msg)


async def test_warm_up_fills_the_servers_cache(jp_ws_fetch: Any, llama_server: LlamaCppServer) -> None:
    """The warm-up reaches the server as one request that evaluates the whole prompt; the request
    for the same context then evaluates almost nothing (llama-cpp-python keeps the last prompt)."""
    socket = await open_socket(jp_ws_fetch, protocol=3)
    assert socket.hello is not None and socket.hello["warm"] is True
    prefix = LONG + "def main(path):\n    "
    start = len(llama_server.output())
    await socket.send({**request(1, prefix, "\n"), "type": "warm"})
    answer = await warm_reply(socket, 1)
    assert answer["warmed"] is True, answer
    [warm_tokens] = await evaluated_after(llama_server, start)
    assert warm_tokens > 300
    middle = len(llama_server.output())
    msgs = await socket.complete(2, prefix, "\n")
    assert msgs[-1]["error"] is None, msgs[-1]["error"]
    await asyncio.sleep(0.2)
    log = llama_server.output()[middle:]
    assert "POST /v1/completions" in log
    # the whole prompt was in the cache (nothing evaluated), or at most a few tokens
    asked = [int(n) for n in PERF.findall(log)]
    assert "full prompt already cached" in log or (asked and asked[0] <= 8), log[-2000:]


async def test_a_request_right_after_a_warm_up_is_served_whole(
    jp_ws_fetch: Any, llama_server: LlamaCppServer
) -> None:
    """A completion request cancels the warm-up in flight (its request is closed before the next
    is sent: that server would otherwise end the next stream early); a newer warm-up supersedes an
    older; every warm-up is answered; the suggestion comes whole."""
    socket = await open_socket(jp_ws_fetch, protocol=3)
    await socket.send({**request(1, LONG.replace("step", "phase"), "\n"), "type": "warm"})
    await socket.send({**request(2, LONG.replace("step", "part"), "\n"), "type": "warm"})
    await socket.send(request(3, LONG.replace("step", "stage") + "def run(items):\n    ", "\n", stream=True))
    warm: dict[int, dict[str, Any]] = {}
    chunks: list[dict[str, Any]] = []
    while len(warm) < 2 or not (chunks and chunks[-1].get("done")):
        msg = await socket.recv(timeout=60)
        if msg["type"] == "warm":
            warm[msg["reply_to"]] = msg
        elif msg.get("reply_to") == 3:
            chunks.append(msg)
    assert chunks[-1]["error"] is None, chunks[-1]["error"]
    assert suggestion(chunks)
    assert warm[1]["reason"] == "superseded"
    assert warm[2]["reason"] in ("superseded", None)  # the model may have finished it first
