"""What serves, said the same way everywhere: the dialog's list, the status (hello and replies),
the requests, and the recent-completions cache, through a running server and real upstreams."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.testing import OllamaUpstream, OpenAIUpstream, UpstreamConfig, open_socket, request

from .test_models_api import api, by_id, choices

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def second() -> Iterator[OpenAIUpstream]:
    """Another server with the same model name and prompt style as ``upstream``, other answers."""
    rules = [{"contains": "def add(a, b):", "completion": "\n    return b + a  # second\n"}]
    with OpenAIUpstream(UpstreamConfig(model="test-coder", rules=rules, default="second = 1\n")) as up:
        yield up


def text_of(messages: list[dict[str, Any]]) -> str:
    last = messages[-1]
    if last.get("type") == "stream":
        return "".join(m["response"]["insertText"] for m in messages if m.get("type") == "stream")
    items = last["list"]["items"]
    return str(items[0]["insertText"]) if items else ""


@pytest.mark.parametrize("stream", [False, True])
async def test_a_switch_never_answers_from_the_old_models_cache(
    jp_fetch: Any, jp_ws_fetch: Any, upstream: OpenAIUpstream, second: OpenAIUpstream, stream: bool
) -> None:
    sock = await open_socket(jp_ws_fetch, protocol=2)
    await sock.send(request(1, "def add(a, b):", stream=stream))
    assert "a + b" in text_of(await sock.until_done(1))
    await sock.send(request(2, "def add(a, b):", stream=stream))
    again = await sock.until_done(2)
    assert "answered from recent completions" in again[-1]["notes"]  # the cache works
    custom = {"backend": "openai", "base_url": second.base_url, "model": "test-coder", "style": "raw"}
    code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
    assert code == 200, out
    before = len(second.records)
    await sock.send(request(3, "def add(a, b):", stream=stream))
    after = await sock.until_done(3)
    assert "second" in text_of(after), after
    assert "answered from recent completions" not in after[-1]["notes"]
    assert len(second.records) > before


async def test_a_reply_in_flight_names_the_model_that_wrote_it(
    jp_fetch: Any, jp_ws_fetch: Any, ollama: OllamaUpstream, upstream: OpenAIUpstream
) -> None:
    sock = await open_socket(jp_ws_fetch)
    await sock.send(request(1, "SLOW"))  # not streamed: one reply at the end
    for _ in range(250):  # until the old model has the request
        if [r for r in upstream.records if "SLOW" in json.dumps(r.body)]:
            break
        await asyncio.sleep(0.02)
    listing = await choices(jp_fetch)
    qwen = next(e for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
    code, out = await api(jp_fetch, "POST", "use", body={"id": qwen["id"]})
    assert code == 200, out
    reply = (await sock.until_done(1))[-1]
    assert reply["list"]["items"][0]["insertText"].startswith("word0 word1")  # the old model's text
    assert reply["model"]["name"] == "test-coder" and reply["model"]["style"] == "raw"
    await sock.send(request(2, "def add(a, b):"))
    assert (await sock.until_done(2))[-1]["model"]["name"] == "qwen2.5-coder:1.5b"


def use_from_a_terminal(tmp_path: Path, store: Path, entry_id: str) -> subprocess.CompletedProcess[str]:
    """``jupyter codecomplete models use ID`` in another process, on the server's store."""
    conf = tmp_path / "cli-config"
    conf.mkdir(exist_ok=True)
    (conf / "jupyter_server_config.py").write_text(
        f"c.ModelService.store_dir = {str(store)!r}\nc.ModelService.detect_servers = []\n"
        "c.ModelService.scan_default_dirs = False\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPLETE_")}
    env.update(
        {"JUPYTER_CONFIG_DIR": str(conf), "JUPYTER_CONFIG_PATH": "", "JUPYTER_DATA_DIR": str(tmp_path)}
    )
    cmd = [sys.executable, "-m", "jupyter_codecomplete.cli", "models", "--config-dir", str(conf)]
    return subprocess.run(
        [*cmd, "use", entry_id], capture_output=True, text=True, env=env, cwd=ROOT, timeout=180
    )


async def test_a_choice_saved_in_a_terminal_does_not_claim_to_serve(
    jp_fetch: Any, jp_ws_fetch: Any, upstream: OpenAIUpstream, tmp_path: Path
) -> None:
    listing = await choices(jp_fetch, detect=False)
    assert listing["active"] is None and listing["saved"] is None  # the administrator's model
    proc = use_from_a_terminal(tmp_path, tmp_path / "store", "demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listing = await choices(jp_fetch, detect=False)
    rows = by_id(listing)
    # the running server still serves test-coder: the list, the status and the requests agree
    assert listing["saved"] == "demo" and listing["active"] is None
    assert not any(e["active"] for e in listing["entries"])
    assert listing["serving"]["name"] == "test-coder"
    sock = await open_socket(jp_ws_fetch)
    assert sock.hello["model"]["name"] == "test-coder"
    await sock.send(request(1, "def add(a, b):"))
    reply = (await sock.until_done(1))[-1]
    assert reply["model"]["name"] == "test-coder" and "a + b" in reply["list"]["items"][0]["insertText"]
    # a model chosen in the server (the dialog), then another saved from a terminal
    custom = {"backend": "openai", "base_url": upstream.base_url, "model": "test-coder", "style": "raw"}
    code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
    assert code == 200, out
    assert (await choices(jp_fetch, detect=False))["active"] == "custom"
    proc = use_from_a_terminal(tmp_path, tmp_path / "store", "demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listing = await choices(jp_fetch, detect=False)
    rows = by_id(listing)
    assert listing["active"] == "custom" and listing["saved"] == "demo"
    assert rows["custom"]["active"] and not rows["demo"]["active"]
    assert listing["serving"]["name"] == "test-coder"


async def test_the_model_in_use_is_listed_when_it_stops_answering(
    jp_fetch: Any, ollama: OllamaUpstream
) -> None:
    listing = await choices(jp_fetch)
    qwen = next(e for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
    code, out = await api(jp_fetch, "POST", "use", body={"id": qwen["id"]})
    assert code == 200, out
    assert by_id(await choices(jp_fetch))[qwen["id"]]["active"]
    ollama.stop()
    listing = await choices(jp_fetch)
    row = by_id(listing)[qwen["id"]]
    assert row["active"] and row["status"] == "not answering" and listing["active"] == qwen["id"]


@pytest.mark.parametrize(
    ("backend", "suffix", "hint"),
    [
        ("openai", "", "did you mean http://127.0.0.1:{port}/v1?"),
        ("llamacpp", "", "choose the OpenAI-compatible backend (openai)"),
    ],
)
async def test_a_wrong_url_or_backend_says_what_to_try(
    jp_fetch: Any, upstream: OpenAIUpstream, backend: str, suffix: str, hint: str
) -> None:
    root = upstream.base_url.removesuffix("/v1")
    custom = {"backend": backend, "base_url": root + suffix, "model": "test-coder"}
    code, out = await api(jp_fetch, "POST", "test", body={"id": "custom", "custom": custom})
    message = json.dumps(out)
    assert "HTTP 404" in message and hint.format(port=upstream.port) in message, message
    code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
    assert code == 502 and hint.format(port=upstream.port) in out["error"]["message"], out


async def test_a_custom_endpoint_without_a_model_shows_the_served_one(
    jp_fetch: Any, upstream: OpenAIUpstream
) -> None:
    custom = {"backend": "openai", "base_url": upstream.base_url, "model": "", "style": "raw"}
    code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
    assert code == 200, out
    assert out["serving"]["name"] == "test-coder"  # what /v1/models reports, not "openai"
    assert (await choices(jp_fetch, detect=False))["serving"]["name"] == "test-coder"
