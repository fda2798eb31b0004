"""The Ollama backend against a scripted Ollama server (NDJSON /api/generate, /api/show)."""

from __future__ import annotations

from typing import Any

import pytest
from backends.helpers import cancel_after_first_chunk, collect, wait_for

from jupyter_codecomplete.backends import BackendError, ModelConfig, make_backend, native_suffix
from jupyter_codecomplete.backends.ollama import OllamaLLM
from jupyter_codecomplete.testing import OllamaUpstream


def ollama(up: OllamaUpstream, **extra: Any) -> Any:
    cfg = {"backend": "ollama", "base_url": up.root_url, "model": "qwen2.5-coder:1.5b", **extra}
    return make_backend(ModelConfig.model_validate(cfg))


async def test_raw_prompt_streams_and_sends_options(ollama_up: OllamaUpstream) -> None:
    b = ollama(ollama_up, keep_alive="30m", max_tokens=99, temperature=0.1, top_p=0.9)
    assert isinstance(b.llm, OllamaLLM)
    text = await collect(
        b, "<|fim_prefix|>def add(a, b):<|fim_suffix|><|fim_middle|>", stop=["\n\n"], max_tokens=12
    )
    assert text == "\n    return a + b\n"
    body = ollama_up.last().body
    assert ollama_up.last().path == "/api/generate"
    assert body["raw"] is True and "suffix" not in body
    assert body["stream"] is True
    assert body["keep_alive"] == "30m"
    assert body["options"] == {"num_predict": 12, "temperature": 0.1, "top_p": 0.9, "stop": ["\n\n"]}


async def test_native_suffix_goes_without_raw(ollama_up: OllamaUpstream) -> None:
    b = ollama(ollama_up)
    text = await collect(b, "def add(a, b):", suffix="\nprint(add(1, 2))\n")
    assert text == "\n    return a + b\n"
    body = ollama_up.last().body
    assert body["suffix"] == "\nprint(add(1, 2))\n" and "raw" not in body


async def test_a_base_url_with_v1_is_taken_as_the_root(ollama_up: OllamaUpstream) -> None:
    b = ollama(ollama_up, base_url=ollama_up.root_url + "/v1")
    assert await collect(b, "hello") == "x = 1\n"


async def test_describe_detects_fim_from_api_show(ollama_up: OllamaUpstream) -> None:
    b = ollama(ollama_up)
    assert b.native_suffix is False  # not known before asking
    assert b.describe is not None
    d = await b.describe()
    assert d.model == "qwen2.5-coder:1.5b" and d.native_suffix is True and d.context_length == 32768
    assert b.native_suffix is False  # describe() returns a record; the backend is unchanged
    assert native_suffix(b, None, d) is True


async def test_describe_without_insert_capability_keeps_prompt_tokens() -> None:
    models = {"llama3:8b": {"capabilities": ["completion"], "template": "{{ .Prompt }}"}}
    with OllamaUpstream(models=models) as up:
        b = make_backend(ModelConfig(backend="ollama", base_url=up.root_url, model="llama3:8b"))
        assert b.describe is not None
        d = await b.describe()
        assert d.native_suffix is False and native_suffix(b, None, d) is False


async def test_configured_native_suffix_wins_over_detection(ollama_up: OllamaUpstream) -> None:
    b = ollama(ollama_up, options={"native_suffix": False})
    assert b.describe is not None
    assert native_suffix(b, None, await b.describe()) is False


async def test_literal_newlines_are_repaired_outside_strings(ollama_up: OllamaUpstream) -> None:
    text = await collect(ollama(ollama_up), "NEWLINES")
    # the two-character \n inside the string literal stays as the model wrote it
    assert text == "x = 1\nprint('a\\nb')\ny = 2\n"


async def test_literal_newline_repair_can_be_switched_off(ollama_up: OllamaUpstream) -> None:
    text = await collect(ollama(ollama_up, quirks={"literal_newlines": False}), "NEWLINES")
    assert "\n" not in text and "\\n" in text


async def test_unknown_model_is_a_backend_error(ollama_up: OllamaUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(ollama(ollama_up, model="nope:1b"), "x")
    assert e.value.type == "backend_error" and "not found" in str(e.value)


@pytest.mark.parametrize(
    ("trigger", "kind", "retry"), [("RATE", "rate_limited", 7.0), ("BUSY", "backend_unavailable", 3.0)]
)
async def test_status_with_retry_after(
    ollama_up: OllamaUpstream, trigger: str, kind: str, retry: float
) -> None:
    with pytest.raises(BackendError) as e:
        await collect(ollama(ollama_up), trigger)
    assert e.value.type == kind and e.value.retry_after == retry


async def test_200_with_error_body(ollama_up: OllamaUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(ollama(ollama_up), "ERRBODY")
    assert e.value.type == "backend_error" and "model exploded" in str(e.value)


async def test_error_line_inside_the_stream(ollama_up: OllamaUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(ollama(ollama_up), "STREAMERR")
    assert "scripted stream error" in str(e.value)


async def test_stream_without_done_line_ends_cleanly(ollama_up: OllamaUpstream) -> None:
    assert await collect(ollama(ollama_up), "NOFINISH") == "done = True\n"


async def test_unreachable_server() -> None:
    b = make_backend(ModelConfig(backend="ollama", base_url="http://127.0.0.1:9", model="m"))
    with pytest.raises(BackendError) as e:
        await collect(b, "x")
    assert e.value.type == "backend_unreachable"


async def test_cancel_closes_the_upstream_connection(ollama_up: OllamaUpstream) -> None:
    got = await cancel_after_first_chunk(ollama(ollama_up), "LONG")
    assert got.startswith("word")
    rec = ollama_up.last()
    assert await wait_for(lambda: rec.client_closed)
    assert rec.tokens_sent < 400


async def test_non_streaming(ollama_up: OllamaUpstream) -> None:
    b = ollama(ollama_up, streaming=False)
    assert await collect(b, "def add(a, b):") == "\n    return a + b\n"
    assert ollama_up.last().body["stream"] is False


def test_sync_invoke(ollama_up: OllamaUpstream) -> None:
    assert ollama(ollama_up).llm.invoke("def add(a, b):") == "\n    return a + b\n"
