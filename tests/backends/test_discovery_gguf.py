"""Discovery identifies a GGUF served by a real ``llama_cpp.server`` by its vocabulary, not its name.

The bundled demo GGUF is copied under a neutral file name (``model.gguf``) and served without an
alias, so ``/v1/models`` names only ``…/model.gguf``: the family (Qwen2.5-Coder's FIM and
repository tokens) must come from the server's tokenizer (``/extras/tokenize``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from jupyter_codecomplete.backends.discovery import (
    adiscover_local_models,
    identify_style,
    probe_local_servers,
)
from jupyter_codecomplete.backends.embedded import default_model_path, is_available
from jupyter_codecomplete.testing import LlamaCppServer, llama_cpp_server

pytestmark = pytest.mark.llamacpp


@pytest.fixture(scope="module")
def neutral_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    demo = default_model_path()
    if not is_available() or not Path(demo).is_file():
        pytest.skip("llama-cpp-python or the demo model is not installed")
    folder = tmp_path_factory.mktemp("neutral")
    model = folder / "model.gguf"
    shutil.copyfile(demo, model)
    with llama_cpp_server(model, folder / "server.log", n_ctx=512, alias=None) as proc:
        yield proc


async def test_the_served_model_is_named_only_by_its_file(neutral_server: LlamaCppServer) -> None:
    async with httpx.AsyncClient(trust_env=False) as client:
        ids = [m["id"] for m in (await client.get(neutral_server.base_url + "/models")).json()["data"]]
    assert [i.rsplit("/", 1)[-1] for i in ids] == ["model.gguf"]


async def test_identify_style_from_the_vocabulary(neutral_server: LlamaCppServer) -> None:
    root = neutral_server.base_url.removesuffix("/v1")
    async with httpx.AsyncClient(timeout=5, trust_env=False) as client:
        style = await identify_style(client, root, "llama-cpp-python")
    assert style is not None and style.name == "qwen2.5-coder"


async def test_discovery_uses_the_server_with_its_family(neutral_server: LlamaCppServer) -> None:
    cfg = await adiscover_local_models(servers=[("llamacpp", neutral_server.port)], timeout=5)
    assert cfg is not None
    assert (cfg.backend, cfg.server, cfg.style) == ("openai", "llama-cpp-python", "qwen2.5-coder")
    assert cfg.base_url == neutral_server.base_url and cfg.model.endswith("model.gguf")


async def test_the_report_names_the_family(neutral_server: LlamaCppServer) -> None:
    report: list[str] = []
    found = await probe_local_servers([("llamacpp", neutral_server.port)], timeout=5, report=report)
    assert [c.fim for c in found] == [True]
    assert "model.gguf" in report[0] and "qwen2.5-coder" in report[0], report
