"""Fixtures for backend tests: real scripted provider servers on ephemeral loopback ports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_codecomplete.testing import (
    LlamaCppUpstream,
    MistralUpstream,
    OllamaUpstream,
    OpenAIUpstream,
    UpstreamConfig,
)

RULES: list[dict[str, Any]] = [
    {"contains": "def add(a, b):", "completion": "\n    return a + b\n"},
    {"contains": "LONG", "completion": " ".join(["word"] * 400), "token_s": 0.02},
    {"contains": "HANG", "hang": True},
    {"contains": "RATE", "status": 429, "retry_after": 7},
    {"contains": "BUSY", "status": 503, "retry_after": 3},
    {"contains": "ERRBODY", "error_body": "model exploded"},
    {"contains": "STREAMERR", "completion": "a b c d e f", "stream_error": 2},
    {"contains": "ECHO", "completion": "tail()\n", "echo_prompt": True},
    {"contains": "NEWLINES", "completion": "x = 1\nprint('a\\nb')\ny = 2\n", "literal_newlines": True},
    {"contains": "SPACE", "completion": "pass\n", "leading_space": True},
    {"contains": "NOFINISH", "completion": "done = True\n", "no_finish_reason": True},
    {"contains": "NOSUFFIX", "completion": "ok\n", "reject_fields": ["suffix"]},
    {"contains": "NOSTOP", "completion": "ok\n", "reject_fields": ["stop"]},
    {"contains": "NOINDENT", "completion": "ok\n", "reject_fields": ["n_indent"]},
    {"contains": "CLOSE", "completion": "a b c d e f g", "close_after": 2},
]


def _start(up: OpenAIUpstream) -> OpenAIUpstream:
    up.set_rules([dict(r) for r in RULES], default="x = 1\n")
    return up.start()


@pytest.fixture
def openai_up() -> Iterator[OpenAIUpstream]:
    up = _start(OpenAIUpstream(UpstreamConfig(model="test-coder")))
    yield up
    up.stop()


@pytest.fixture
def ollama_up() -> Iterator[OllamaUpstream]:
    up = OllamaUpstream(UpstreamConfig(model="qwen2.5-coder:1.5b"))
    _start(up)
    yield up
    up.stop()


@pytest.fixture
def llamacpp_up() -> Iterator[LlamaCppUpstream]:
    up = LlamaCppUpstream(UpstreamConfig(model="qwen2.5-coder-1.5b-q8_0"))
    _start(up)
    yield up
    up.stop()


@pytest.fixture
def mistral_up() -> Iterator[MistralUpstream]:
    up = MistralUpstream(UpstreamConfig(model="codestral-latest"), api_key="sk-test-secret-1234")
    _start(up)
    yield up
    up.stop()
