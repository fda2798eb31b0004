"""OpenAI-compatible backends and the provider quirks, over real HTTP to the scripted server."""

from __future__ import annotations

from typing import Any

import pytest
from backends.helpers import cancel_after_first_chunk, collect, wait_for
from langchain_core.messages import HumanMessage

from jupyter_codecomplete.backends import BackendError, ModelConfig, make_backend
from jupyter_codecomplete.completion import error_info_from
from jupyter_codecomplete.testing import OpenAIUpstream


def compat(up: OpenAIUpstream, **extra: Any) -> Any:
    cfg = {"backend": "openai", "base_url": up.base_url, "model": "test-coder", **extra}
    return make_backend(ModelConfig.model_validate(cfg))


def chat(up: OpenAIUpstream, **extra: Any) -> Any:
    return compat(up, backend="openai-chat", **extra)


async def test_completion_streams(openai_up: OpenAIUpstream) -> None:
    assert await collect(compat(openai_up), "def add(a, b):", max_tokens=20) == "\n    return a + b\n"
    assert openai_up.last().body["stream"] is True and openai_up.last().body["max_tokens"] == 20


async def test_rejected_suffix_is_retried_without_it_and_remembered(openai_up: OpenAIUpstream) -> None:
    b = compat(openai_up, options={"native_suffix": True})
    assert b.native_suffix is True
    assert await collect(b, "NOSUFFIX", suffix="tail") == "ok\n"
    first, retry = openai_up.records[-2:]
    assert first.body["suffix"] == "tail" and "suffix" not in retry.body
    assert await collect(b, "NOSUFFIX", suffix="tail") == "ok\n"
    assert len(openai_up.records) == 3 and "suffix" not in openai_up.last().body


async def test_rejected_stop_is_retried_without_it(openai_up: OpenAIUpstream) -> None:
    b = compat(openai_up)
    assert await collect(b, "NOSTOP", stop=["\n\n"]) == "ok\n"
    assert "stop" in openai_up.records[-2].body and "stop" not in openai_up.last().body


async def test_chat_rejected_stop_is_retried_without_it(openai_up: OpenAIUpstream) -> None:
    b = chat(openai_up)
    assert await collect(b, [HumanMessage("NOSTOP")], stop=["\n\n"]) == "ok\n"
    assert "stop" not in openai_up.last().body and len(openai_up.records) == 2


async def test_unsupported_fields_declared_in_config_are_never_sent(openai_up: OpenAIUpstream) -> None:
    b = compat(openai_up, quirks={"unsupported_fields": ["stop"]})
    await collect(b, "hello", stop=["\n"])
    assert "stop" not in openai_up.last().body and len(openai_up.records) == 1


async def test_200_with_error_body(openai_up: OpenAIUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(compat(openai_up), "ERRBODY")
    assert e.value.type == "backend_error" and "model exploded" in str(e.value)


async def test_200_with_error_body_non_streaming(openai_up: OpenAIUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(compat(openai_up, streaming=False), "ERRBODY")
    assert "model exploded" in str(e.value)


@pytest.mark.parametrize(
    ("trigger", "kind", "retry"), [("RATE", "rate_limited", 7.0), ("BUSY", "backend_unavailable", 3.0)]
)
@pytest.mark.parametrize("maker", [compat, chat])
async def test_status_with_retry_after(
    openai_up: OpenAIUpstream, trigger: str, kind: str, retry: float, maker: Any
) -> None:
    b = maker(openai_up)
    prompt: Any = trigger if not b.chat else [HumanMessage(trigger)]
    with pytest.raises(Exception) as e:
        await collect(b, prompt)
    info = error_info_from(e.value)
    assert info.type == kind and info.retry_after == retry


async def test_missing_finish_reason(openai_up: OpenAIUpstream) -> None:
    assert await collect(compat(openai_up), "NOFINISH") == "done = True\n"
    assert await collect(chat(openai_up), [HumanMessage("NOFINISH")]) == "done = True\n"


async def test_echoed_prompt_is_stripped(openai_up: OpenAIUpstream) -> None:
    assert await collect(compat(openai_up), "# ECHO\nvalue = compute(") == "tail()\n"


async def test_leading_space_declared_for_tgi(openai_up: OpenAIUpstream) -> None:
    prompt = "def f():\n    SPACE = 1\n    "
    assert await collect(compat(openai_up, server="tgi"), prompt) == "pass\n"
    assert await collect(compat(openai_up), prompt) == " pass\n"  # not declared: left alone


async def test_literal_newlines_with_ollama_openai_route(openai_up: OpenAIUpstream) -> None:
    text = await collect(compat(openai_up, server="ollama"), "NEWLINES")
    assert text == "x = 1\nprint('a\\nb')\ny = 2\n"


async def test_empty_completion_is_not_an_error(openai_up: OpenAIUpstream) -> None:
    openai_up.set_rules([{"contains": "EMPTY", "completion": ""}])
    assert await collect(compat(openai_up), "EMPTY") == ""


async def test_llama_cpp_python_suffix_quirk(openai_up: OpenAIUpstream) -> None:
    b = compat(openai_up, server="llama-cpp-python", options={"native_suffix": True})
    assert b.native_suffix is False  # infill must go through the prompt style's tokens


async def test_unreachable(openai_up: OpenAIUpstream) -> None:
    b = make_backend(ModelConfig(backend="openai", base_url="http://127.0.0.1:9/v1", model="m"))
    with pytest.raises(BackendError) as e:
        await collect(b, "x")
    assert e.value.type == "backend_unreachable"


async def test_cancel_closes_the_upstream_connection(openai_up: OpenAIUpstream) -> None:
    await cancel_after_first_chunk(compat(openai_up), "LONG")
    rec = openai_up.last()
    assert await wait_for(lambda: rec.client_closed)
    assert rec.tokens_sent < 400


async def test_describe_reports_the_served_model(openai_up: OpenAIUpstream) -> None:
    b = compat(openai_up, model="alias")
    assert b.describe is not None
    assert (await b.describe()).model == "test-coder"


async def test_openai_key_fallback_only_for_openai_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-env-9999")
    assert ModelConfig(backend="openai").resolved_api_key() == "sk-openai-env-9999"
    assert ModelConfig(backend="openai", base_url="http://127.0.0.1:8080/v1").resolved_api_key() is None
    assert ModelConfig(backend="openai", api_key_env="NOPE_NOT_SET").resolved_api_key() is None


async def test_key_is_sent_and_scrubbed_from_errors(openai_up: OpenAIUpstream) -> None:
    key = "sk-local-secret-4242"
    openai_up.set_rules(
        [{"contains": "LEAK", "status": 400, "body": {"error": {"message": f"bad key {key}"}}}]
    )
    b = compat(openai_up, api_key=key)
    with pytest.raises(Exception) as e:
        await collect(b, "LEAK")
    info = error_info_from(e.value, ModelConfig(api_key=key).secrets())
    assert key not in info.message and "***" in info.message and "400" in info.title
    assert openai_up.last().headers["authorization"] == f"Bearer {key}"
