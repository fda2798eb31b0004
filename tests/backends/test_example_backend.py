"""The example package ``examples/backend_package`` adds a backend kind through the entry point.

pip installs it into a temporary folder (its entry point included), the folder goes on
``sys.path``, and ``make_backend`` finds the ``tgi`` kind in the installed metadata exactly as it
finds the built-in kinds; the backend then streams from a scripted TGI server over real HTTP, and a
Jupyter server configured with it answers a websocket request.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from backends.helpers import aclose_backend, collect
from tornado import web

from jupyter_codecomplete.backends import ENTRY_POINT_GROUP, BackendError, ModelConfig, make_backend
from jupyter_codecomplete.completion import error_info_from
from jupyter_codecomplete.testing import (
    CompletionSocket,
    OpenAIUpstream,
    RequestRecord,
    request,
    split_tokens,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "backend_package"


class _Generate(web.RequestHandler):
    """TGI's ``/generate_stream`` and ``/generate``: tokens of the first rule whose ``contains`` is in
    the inputs (``status`` scripts an error answer)."""

    def initialize(self, upstream: OpenAIUpstream) -> None:
        self.upstream = upstream

    def check_xsrf_cookie(self) -> None:
        return

    async def post(self) -> None:
        body = json.loads(self.request.body)
        self.upstream.records.append(RequestRecord(self.request.path, body, dict(self.request.headers)))
        inputs = str(body.get("inputs", ""))
        rule = next((r for r in self.upstream.config.rules if str(r["contains"]) in inputs), {})
        if "status" in rule:
            self.set_status(int(rule["status"]))
            self.set_header("Retry-After", str(rule.get("retry_after", "")))
            self.write({"error": f"scripted status {rule['status']}", "error_type": "overloaded"})
            return
        text = str(rule.get("completion", self.upstream.config.default))
        if self.request.path == "/generate":
            self.write({"generated_text": text})
            return
        self.set_header("Content-Type", "text/event-stream")
        tokens = split_tokens(text)
        for i, token in enumerate(tokens):
            last = i == len(tokens) - 1
            event = {"index": i, "token": {"id": i, "text": token, "special": False}}
            event["generated_text"] = text if last else None
            self.write(f"data:{json.dumps(event)}\n\n")
            await self.flush()


class _Info(web.RequestHandler):
    def get(self) -> None:
        self.write({"model_id": "bigcode/starcoder2-3b", "max_input_tokens": 4095})


class TgiUpstream(OpenAIUpstream):
    def make_app(self) -> web.Application:
        args = {"upstream": self}
        return web.Application(
            [(r"/generate_stream", _Generate, args), (r"/generate", _Generate, args), (r"/info", _Info)]
        )

    @property
    def root_url(self) -> str:
        return f"http://{self.host}:{self.port}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(PACKAGE)],
        check=True,
        cwd=build,
    )  # fmt: skip
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    yield target
    sys.path.remove(str(target))
    for name in [m for m in sys.modules if m.startswith("codecomplete_tgi")]:
        del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture
def tgi_up() -> Iterator[TgiUpstream]:
    up = TgiUpstream()
    up.set_rules(
        [
            {"contains": "def add(a, b):", "completion": "\n    return a + b\n"},
            {"contains": "BUSY", "status": 503, "retry_after": 3},
        ],
        default="x = 1\n",
    )
    up.start()
    yield up
    up.stop()


def test_built_in_kinds_come_from_the_same_entry_point_group() -> None:
    names = {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    assert {"openai", "openai-chat", "ollama", "llamacpp", "mistral", "langchain", "embedded"} <= names


async def test_the_example_backend_streams_through_its_entry_point(
    installed: Path, tgi_up: TgiUpstream
) -> None:
    assert "tgi" in {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    backend = make_backend(ModelConfig(backend="tgi", base_url=tgi_up.root_url, max_tokens=20))
    assert backend.kind == "tgi" and backend.native_suffix is False
    assert Path(sys.modules[type(backend.llm).__module__].__file__ or "").is_relative_to(installed)
    try:
        assert await collect(backend, "def add(a, b):") == "\n    return a + b\n"
        assert tgi_up.records[-1].body["parameters"]["max_new_tokens"] == 20
        assert backend.describe is not None
        described = await backend.describe()
        assert (described.model, described.context_length) == ("bigcode/starcoder2-3b", 4095)
        with pytest.raises(BackendError) as e:  # the one error mapping comes with the base class
            await collect(backend, "BUSY")
        info = error_info_from(e.value)
        assert (info.type, info.retry_after, info.message) == (
            "backend_unavailable",
            3.0,
            "HTTP 503: scripted status 503",
        )
    finally:
        await aclose_backend(backend)


@pytest.fixture
def codecomplete_config(installed: Path, tgi_up: TgiUpstream) -> dict[str, Any]:
    model = {"backend": "tgi", "base_url": tgi_up.root_url, "model": "starcoder2-3b"}
    return {"completion_model": model, "discover_local_servers": False}


async def test_a_server_serves_completions_from_the_example_backend(
    jp_ws_fetch: Any, installed: Path, tgi_up: TgiUpstream
) -> None:
    s = await CompletionSocket.open(jp_ws_fetch)
    await s.send(request(1, "def add(a, b):\n", stream=True))
    chunks = await s.until_done(1)
    last = chunks[-1]
    assert last["type"] == "stream" and last["done"] and last.get("error") is None, last
    assert last["model"]["backend"] == "tgi"
    assert last["response"]["insertText"].strip() == "return a + b"
    assert tgi_up.records[-1].path == "/generate_stream"
    s.ws.close()
