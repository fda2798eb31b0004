"""The ``openai`` backend against a real ``llama_cpp.server`` process with the demo model."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from backends.helpers import collect

from jupyter_codecomplete.backends import ModelConfig, make_backend
from jupyter_codecomplete.backends.embedded import default_model_path, is_available

pytestmark = pytest.mark.llamacpp


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = default_model_path()
    if not is_available() or not Path(model).is_file():
        pytest.skip("llama-cpp-python or the demo model is not installed")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                model,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "512",
                "--model_alias",
                "codecomplete-demo",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(base + "/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not start:\n" + log.read_text(errors="replace")[-2000:])
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(20)


async def test_streams_and_reports_the_model(server: str) -> None:
    cfg = ModelConfig(
        backend="openai",
        base_url=server,
        model="codecomplete-demo",
        server="llama-cpp-python",
        options={"native_suffix": True},
        max_tokens=8,
        temperature=0.0,
    )
    b = make_backend(cfg)
    assert b.native_suffix is False  # the declared quirk wins over the option
    assert b.describe is not None
    assert (await b.describe()).model == "codecomplete-demo"
    text = await collect(b, "def add(a, b):\n    return", max_tokens=8, stop=["\n\n"])
    assert isinstance(text, str)
    assert b.llm.reported_model == "codecomplete-demo"
