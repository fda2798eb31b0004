"""The ``openai`` backend against a real ``llama_cpp.server`` process with the demo model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from backends.helpers import collect

from jupyter_codecomplete.backends import ModelConfig, make_backend
from jupyter_codecomplete.backends.embedded import default_model_path, is_available
from jupyter_codecomplete.testing import llama_cpp_server

pytestmark = pytest.mark.llamacpp


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = default_model_path()
    if not is_available() or not Path(model).is_file():
        pytest.skip("llama-cpp-python or the demo model is not installed")
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    with llama_cpp_server(model, log, n_ctx=512) as proc:
        yield proc.base_url


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
    assert b.llm.answered_model == "codecomplete-demo"
