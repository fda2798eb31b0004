"""Shared fixtures: a running Jupyter server with the extension, and a real scripted upstream."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from jupyter_codecomplete.backends import PRESSURE
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig

pytest_plugins = ("pytest_jupyter.jupyter_server",)

# Property tests explore the same examples on every run (a failure is reproducible, never a coin
# toss in CI); HYPOTHESIS_PROFILE=explore searches new examples each run.
settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

RULES: list[dict[str, Any]] = [
    {"contains": "def add(a, b):", "completion": "\n    return a + b\n"},
    {"contains": "import num", "completion": "py as np\n"},
    # distinct words: a long stream that is not a runaway (one word repeated is cut by the cleaning)
    {"contains": "SLOW", "completion": " ".join(f"word{i}" for i in range(400)), "token_s": 0.02},
    {"contains": "HANG", "hang": True},
    {"contains": "FAIL500", "status": 500, "body": {"error": {"message": "boom"}}},
]


@pytest.fixture
def upstream() -> Iterator[OpenAIUpstream]:
    with OpenAIUpstream(UpstreamConfig(rules=[dict(r) for r in RULES], default="x = 1\n")) as up:
        yield up


@pytest.fixture
def model_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    return upstream.model_config()


@pytest.fixture
def codecomplete_config(model_config: dict[str, Any]) -> dict[str, Any]:
    """Extra ``CodeCompleteApp`` settings; tests override this fixture."""
    return {"completion_model": model_config}


@pytest.fixture
def authorizer_class() -> type | None:
    """The server's ``authorizer_class`` (None: jupyter_server's); tests override this fixture."""
    return None


@pytest.fixture
def jp_server_config(codecomplete_config: dict[str, Any], authorizer_class: type | None) -> dict[str, Any]:
    server: dict[str, Any] = {"jpserver_extensions": {"jupyter_codecomplete": True}}
    if authorizer_class is not None:
        server["authorizer_class"] = authorizer_class
    return {"ServerApp": server, "CodeCompleteApp": codecomplete_config}


@pytest.fixture(autouse=True)
def no_server_pauses() -> Iterator[None]:
    """A model server's pause (429/503, backends/pressure.py) is the server process's state: each
    test starts without one, as a new server process would."""
    PRESSURE.clear()
    yield
    PRESSURE.clear()
