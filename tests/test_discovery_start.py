"""Start with nothing configured and a local model server running: the server found is used when it
can fill in the middle (its family learned from its vocabulary, whatever its file is called), and
when it is not used the user is told why (the log and ``ServingModel.notice``, which the status
item shows). Real servers: ``llama_cpp.server`` on the demo GGUF under a neutral file name, and the
scripted OpenAI-compatible upstream for a server whose model cannot fill in the middle."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.backends.embedded import default_model_path, is_available
from jupyter_codecomplete.testing import (
    LlamaCppServer,
    OpenAIUpstream,
    UpstreamConfig,
    llama_cpp_server,
    open_socket,
    request,
)

pytestmark = pytest.mark.skipif(
    not is_available() or not Path(default_model_path()).is_file(),
    reason="needs llama-cpp-python and the demo model",
)


@pytest.fixture(scope="module")
def neutral_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    folder = tmp_path_factory.mktemp("neutral-start")
    model = folder / "model.gguf"
    shutil.copyfile(default_model_path(), model)
    with llama_cpp_server(model, folder / "server.log", n_ctx=512, alias=None) as proc:
        yield proc


@pytest.fixture
def plain_server() -> Iterator[OpenAIUpstream]:
    """An OpenAI-compatible server whose model has no FIM family (no tokenizer routes either)."""
    with OpenAIUpstream(UpstreamConfig(model="general-chat-7b", default="x = 1\n")) as up:
        yield up


@pytest.fixture
def port(request: pytest.FixtureRequest) -> int:
    server = request.getfixturevalue(request.param)
    return int(server.port)


@pytest.fixture
def jp_server_config(port: int, tmp_path: Path) -> dict[str, Any]:
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_codecomplete": True}},
        "CodeCompleteApp": {},
        "ModelService": {
            "detect_servers": [["llamacpp", port]],
            "detect_timeout": 5.0,
            "store_dir": str(tmp_path / "store"),
            "scan_default_dirs": False,
        },
    }


def start_log(capfd: pytest.CaptureFixture[str]) -> str:
    """What the server wrote to its log (stderr) while it started and since."""
    captured = capfd.readouterr()
    return captured.err + captured.out


@pytest.mark.parametrize("port", ["neutral_server"], indirect=True)
async def test_a_gguf_server_is_used_by_its_vocabulary(
    capfd: pytest.CaptureFixture[str], jp_fetch: Any, jp_ws_fetch: Any, neutral_server: LlamaCppServer
) -> None:
    sock = await open_socket(jp_ws_fetch)
    model = sock.hello["model"]
    assert model["backend"] == "openai" and model["name"].endswith("model.gguf"), model
    assert model["style"] == "qwen2.5-coder" and not model["demo"] and model["notice"] is None
    await sock.send(request(1, "def add(a, b):\n    return"))
    reply = (await sock.until_done(1))[-1]
    assert reply.get("error") is None and reply["model"]["style"] == "qwen2.5-coder"
    # the dialog lists it with its family and FIM, not "raw · no FIM"
    r = await jp_fetch("api", "codecomplete", "models", "choices")
    rows = [e for e in json.loads(r.body)["entries"] if e["source"] == "detected"]
    assert [(e["style"], e["fim"]) for e in rows] == [("qwen2.5-coder", True)]
    log = start_log(capfd)
    assert "found openai at" in log and "style qwen2.5-coder" in log, log


@pytest.mark.parametrize("port", ["plain_server"], indirect=True)
async def test_a_server_that_cannot_fill_in_the_middle_is_named(
    capfd: pytest.CaptureFixture[str], jp_ws_fetch: Any, plain_server: OpenAIUpstream
) -> None:
    sock = await open_socket(jp_ws_fetch)
    model = sock.hello["model"]
    assert model["demo"] and model["backend"] == "embedded"
    notice = model["notice"] or ""
    assert "general-chat-7b" in notice and "cannot fill in the middle" in notice, notice
    assert plain_server.base_url in notice
    warned = [line for line in start_log(capfd).splitlines() if line.startswith("[W")]
    assert any("general-chat-7b" in line and "demo model serves" in line for line in warned), warned
