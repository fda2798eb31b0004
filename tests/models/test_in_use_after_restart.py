"""The row that serves is marked "(in use)" after a server restart, for every source (custom
included), and the dialog's list agrees with ``jupyter codecomplete models``.

A restart is a server started on a store that an earlier Use wrote: the store is written before the
server starts (by ``jupyter codecomplete models use`` where the source has an id the terminal
knows; for a custom endpoint as the dialog's Use saves it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.backends.base import ModelConfig
from jupyter_codecomplete.models_service import ModelService, UserChoiceStore
from jupyter_codecomplete.testing import FakeHub, OllamaUpstream, OpenAIUpstream

from .test_models_api import by_id, choices
from .test_models_cli import run


def save_custom(store: Path, cfg: ModelConfig) -> None:
    """What Use on a custom endpoint writes (the endpoint, and the choice that names it)."""
    saved = ModelService._stored(cfg)
    UserChoiceStore(store).update(custom=saved, choice={"id": "custom", "config": saved})


def terminal_active(tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream) -> str | None:
    out = run(tmp_path, hub, ollama, "--json")
    assert out.returncode == 0, out.stderr
    listing = json.loads(out.stdout)
    active = [e["id"] for e in listing["entries"] if e["active"]]
    assert len(active) <= 1, active
    return active[0] if active else None


class TestCustomAfterRestart:
    @pytest.fixture
    def service_config(
        self, service_config: dict[str, Any], tmp_path: Path, upstream: OpenAIUpstream
    ) -> dict[str, Any]:
        # another model name than the administrator's: the custom endpoint is what serves
        cfg = ModelConfig(backend="openai", base_url=upstream.base_url, model="my-coder", style="raw")
        save_custom(tmp_path / "store", cfg)
        return service_config

    async def test_the_custom_row_is_in_use(
        self, jp_fetch: Any, tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream
    ) -> None:
        listing = await choices(jp_fetch, detect=False)
        rows = by_id(listing)
        assert listing["active"] == "custom", listing["active"]
        assert rows["custom"]["active"]
        assert [e["id"] for e in listing["entries"] if e["active"]] == ["custom"]
        assert listing["serving"]["name"] == "my-coder"
        assert terminal_active(tmp_path, hub, ollama) == "custom"


class TestCustomLikeTheAdministratorsAfterRestart:
    """A custom endpoint that is the same model as the administrator's still is the one chosen."""

    @pytest.fixture
    def service_config(
        self, service_config: dict[str, Any], tmp_path: Path, upstream: OpenAIUpstream
    ) -> dict[str, Any]:
        cfg = ModelConfig(backend="openai", base_url=upstream.base_url, model="test-coder", style="raw")
        save_custom(tmp_path / "store", cfg)
        return service_config

    async def test_the_custom_row_is_in_use(
        self, jp_fetch: Any, tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream
    ) -> None:
        listing = await choices(jp_fetch, detect=False)
        assert [e["id"] for e in listing["entries"] if e["active"]] == ["custom"]
        assert listing["active"] == "custom"
        assert terminal_active(tmp_path, hub, ollama) == "custom"


class TestEverySourceAfterRestart:
    @pytest.fixture(params=["demo", "detected"])
    def chosen(self, request: Any, tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream) -> str:
        listing = json.loads(run(tmp_path, hub, ollama, "--json").stdout)
        if request.param == "demo":
            entry_id = "demo"
        else:
            entry_id = next(e["id"] for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
        out = run(tmp_path, hub, ollama, "use", entry_id)
        assert out.returncode == 0, out.stdout + out.stderr
        return entry_id

    @pytest.fixture
    def service_config(self, service_config: dict[str, Any], chosen: str) -> dict[str, Any]:
        return service_config

    async def test_the_chosen_row_is_in_use(
        self, jp_fetch: Any, chosen: str, tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream
    ) -> None:
        listing = await choices(jp_fetch)
        assert [e["id"] for e in listing["entries"] if e["active"]] == [chosen]
        assert terminal_active(tmp_path, hub, ollama) == chosen
