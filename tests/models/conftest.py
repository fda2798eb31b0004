"""Fixtures for the model service: a fake hub, a fake Ollama, private folders, a running server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from models.leaks import LeakWatch

from jupyter_codecomplete.testing import FIM_TEMPLATE, FakeHub, OllamaUpstream, UpstreamConfig, demo_entry

OLLAMA_MODELS = {
    "qwen2.5-coder:1.5b": {"capabilities": ["completion", "insert"], "template": FIM_TEMPLATE},
    "llama3.1:8b": {"capabilities": ["completion"], "template": "{{ .Prompt }}"},
}


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as h:
        yield h


@pytest.fixture
def ollama() -> Iterator[OllamaUpstream]:
    up = OllamaUpstream(
        UpstreamConfig(
            model="qwen2.5-coder:1.5b",
            rules=[{"contains": "def add(a, b):", "completion": "\n    return a + b  # ollama\n"}],
            default="ollama_says = 1\n",
        ),
        models=dict(OLLAMA_MODELS),
    )
    up.start()
    yield up
    up.stop()


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    return tmp_path / "models"


@pytest.fixture
def service_config(hub: FakeHub, ollama: OllamaUpstream, models_dir: Path, tmp_path: Path) -> dict[str, Any]:
    return {
        "models_dir": str(models_dir),
        "store_dir": str(tmp_path / "store"),
        "hub_endpoint": hub.endpoint,
        "extra_catalogue": [demo_entry()],
        "scan_default_dirs": False,
        "detect_servers": [["ollama", ollama.port]],
        "probe_timeout": 30.0,
    }


@pytest.fixture
def jp_server_config(codecomplete_config: dict[str, Any], service_config: dict[str, Any]) -> dict[str, Any]:
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_codecomplete": True}},
        "CodeCompleteApp": codecomplete_config,
        "ModelService": service_config,
    }


@pytest.fixture
def watch(jp_fetch: Any, jp_serverapp: Any) -> Iterator[LeakWatch]:
    """After the test: no key of the store, the administrator's config or the test in any response
    body or log line (the root logger sees every logger's records, tornado's tracebacks too)."""
    w = LeakWatch(jp_fetch)
    loggers = [logging.getLogger(), jp_serverapp.log]
    old_levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(w)
        lg.setLevel(logging.DEBUG)
    try:
        yield w
    finally:
        for lg, level in zip(loggers, old_levels, strict=True):
            lg.removeHandler(w)
            lg.setLevel(level)
    w.check()
