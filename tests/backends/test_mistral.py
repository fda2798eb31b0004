"""The Mistral FIM backend against a scripted /v1/fim/completions server."""

from __future__ import annotations

from typing import Any

import pytest
from backends.helpers import cancel_after_first_chunk, collect, wait_for

from jupyter_codecomplete.backends import BackendError, ModelConfig, make_backend
from jupyter_codecomplete.testing import MistralUpstream

KEY = "sk-test-secret-1234"


def mistral(up: MistralUpstream, **extra: Any) -> Any:
    cfg = {"backend": "mistral", "base_url": up.base_url, "api_key": KEY, **extra}
    return make_backend(ModelConfig.model_validate(cfg))


async def test_fim_request_and_stream(mistral_up: MistralUpstream) -> None:
    b = mistral(mistral_up, max_tokens=40, top_p=0.95)
    assert b.native_suffix is True and b.style_hint == "codestral"
    text = await collect(b, "def add(a, b):", suffix="\nprint(add(1, 2))", stop=["\n\n"])
    assert text == "\n    return a + b\n"
    rec = mistral_up.last()
    assert rec.path == "/v1/fim/completions"
    assert rec.headers["authorization"] == f"Bearer {KEY}"
    assert rec.body == {
        "model": "codestral-latest",
        "prompt": "def add(a, b):",
        "suffix": "\nprint(add(1, 2))",
        "max_tokens": 40,
        "temperature": 0.2,
        "stream": True,
        "top_p": 0.95,
        "stop": ["\n\n"],
    }


async def test_key_from_mistral_api_key_only_for_mistral_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", "sk-env-key-5678")
    assert ModelConfig(backend="mistral").resolved_api_key() == "sk-env-key-5678"
    assert ModelConfig(backend="mistral", base_url="https://codestral.mistral.ai/v1").resolved_api_key()
    assert ModelConfig(backend="mistral", base_url="http://127.0.0.1:1/v1").resolved_api_key() is None
    assert "sk-env-key-5678" in ModelConfig(backend="mistral").secrets()


async def test_wrong_key_is_401_and_the_key_is_not_in_the_message(mistral_up: MistralUpstream) -> None:
    b = make_backend(
        ModelConfig(backend="mistral", base_url=mistral_up.base_url, api_key="sk-wrong-key-0000")
    )
    with pytest.raises(BackendError) as e:
        await collect(b, "x")
    assert e.value.type == "backend_error" and "401" in str(e.value)
    assert "sk-wrong-key-0000" not in str(e.value)


async def test_non_streaming(mistral_up: MistralUpstream) -> None:
    b = mistral(mistral_up, streaming=False)
    assert await collect(b, "def add(a, b):", suffix="") == "\n    return a + b\n"
    assert mistral_up.last().body["stream"] is False


async def test_describe_lists_models(mistral_up: MistralUpstream) -> None:
    b = mistral(mistral_up)
    assert b.describe is not None
    assert (await b.describe()).model == "codestral-latest"


async def test_rate_limit(mistral_up: MistralUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(mistral(mistral_up), "RATE")
    assert e.value.type == "rate_limited" and e.value.retry_after == 7.0


async def test_error_event_in_stream(mistral_up: MistralUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(mistral(mistral_up), "STREAMERR")
    assert "scripted stream error" in str(e.value)


async def test_missing_finish_reason(mistral_up: MistralUpstream) -> None:
    assert await collect(mistral(mistral_up), "NOFINISH") == "done = True\n"


async def test_cancel_closes_the_upstream_connection(mistral_up: MistralUpstream) -> None:
    await cancel_after_first_chunk(mistral(mistral_up), "LONG", suffix="")
    rec = mistral_up.last()
    assert await wait_for(lambda: rec.client_closed)
    assert rec.tokens_sent < 400
