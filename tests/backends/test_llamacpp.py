"""The llama.cpp server backend against a scripted llama-server (/infill, /completion, /props)."""

from __future__ import annotations

from typing import Any

import pytest
from backends.helpers import cancel_after_first_chunk, collect, wait_for

from jupyter_codecomplete.backends import BackendError, ModelConfig, make_backend
from jupyter_codecomplete.backends.llamacpp import files_as_input_extra
from jupyter_codecomplete.testing import LlamaCppUpstream


def llamacpp(up: LlamaCppUpstream, **extra: Any) -> Any:
    cfg = {"backend": "llamacpp", "base_url": up.root_url, "model": "qwen2.5-coder", **extra}
    return make_backend(ModelConfig.model_validate(cfg))


async def test_infill_fields(llamacpp_up: LlamaCppUpstream) -> None:
    b = llamacpp(llamacpp_up, options={"t_max_predict_ms": 500, "n_indent": 4}, top_p=0.8)
    assert b.native_suffix is True
    extra = files_as_input_extra({"utils.py": "def helper():\n    pass\n"})
    text = await collect(
        b, "def add(a, b):", suffix="\n\nprint(add(1, 2))\n", input_extra=extra, max_tokens=32, stop=["\n\n"]
    )
    assert text == "\n    return a + b\n"
    rec = llamacpp_up.last()
    assert rec.path == "/infill"
    body = rec.body
    assert body["input_prefix"] == "def add(a, b):"
    assert body["input_suffix"] == "\n\nprint(add(1, 2))\n"
    assert body["input_extra"] == [{"filename": "utils.py", "text": "def helper():\n    pass\n"}]
    assert body["n_predict"] == 32 and body["stop"] == ["\n\n"] and body["stream"] is True
    assert body["cache_prompt"] is True and body["t_max_predict_ms"] == 500 and body["n_indent"] == 4
    assert body["top_p"] == 0.8


async def test_prompt_without_suffix_goes_to_completion(llamacpp_up: LlamaCppUpstream) -> None:
    text = await collect(llamacpp(llamacpp_up), "<|fim_prefix|>def add(a, b):<|fim_suffix|><|fim_middle|>")
    assert text == "\n    return a + b\n"
    assert llamacpp_up.last().path == "/completion"
    assert "input_prefix" not in llamacpp_up.last().body


async def test_n_predict_limit_is_respected(llamacpp_up: LlamaCppUpstream) -> None:
    text = await collect(llamacpp(llamacpp_up), "LONG", max_tokens=5)
    assert text == "word word word"


async def test_describe_reads_props(llamacpp_up: LlamaCppUpstream) -> None:
    b = llamacpp(llamacpp_up)
    assert b.describe is not None
    d = await b.describe()
    assert d.model == "qwen2.5-coder-1.5b-q8_0.gguf" and d.context_length == 8192


async def test_rejected_field_is_dropped_and_remembered(llamacpp_up: LlamaCppUpstream) -> None:
    b = llamacpp(llamacpp_up, options={"n_indent": 4})
    assert await collect(b, "NOINDENT", suffix="x") == "ok\n"
    first, retry = llamacpp_up.records[-2:]
    assert "n_indent" in first.body and "n_indent" not in retry.body
    assert await collect(b, "NOINDENT", suffix="x") == "ok\n"
    assert "n_indent" not in llamacpp_up.last().body
    assert len(llamacpp_up.records) == 3  # no second rejection


async def test_model_without_fim_tokens_is_an_error() -> None:
    with LlamaCppUpstream(fim=False) as up:
        with pytest.raises(BackendError) as e:
            await collect(llamacpp(up), "a", suffix="b")
        assert e.value.type == "backend_error" and "Infill is not supported" in str(e.value)


async def test_stream_without_final_stop_event(llamacpp_up: LlamaCppUpstream) -> None:
    assert await collect(llamacpp(llamacpp_up), "NOFINISH", suffix="z") == "done = True\n"


async def test_server_closing_mid_stream_is_an_error(llamacpp_up: LlamaCppUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(llamacpp(llamacpp_up), "CLOSE", suffix="z")
    assert e.value.type == "backend_error"


async def test_503_loading_model(llamacpp_up: LlamaCppUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(llamacpp(llamacpp_up), "BUSY", suffix="z")
    assert e.value.type == "backend_unavailable" and e.value.retry_after == 3.0


async def test_200_with_error_body(llamacpp_up: LlamaCppUpstream) -> None:
    with pytest.raises(BackendError) as e:
        await collect(llamacpp(llamacpp_up), "ERRBODY", suffix="z")
    assert "model exploded" in str(e.value)


async def test_cancel_closes_the_upstream_connection(llamacpp_up: LlamaCppUpstream) -> None:
    await cancel_after_first_chunk(llamacpp(llamacpp_up), "LONG", suffix="end")
    rec = llamacpp_up.last()
    assert await wait_for(lambda: rec.client_closed)
    assert rec.tokens_sent < 400


async def test_echoed_prompt_is_stripped(llamacpp_up: LlamaCppUpstream) -> None:
    prompt = "# ECHO test\nresult = compute("
    assert await collect(llamacpp(llamacpp_up), prompt) == "tail()\n"


async def test_key_is_sent_and_scrubbed_from_errors(llamacpp_up: LlamaCppUpstream) -> None:
    key = "sk-llama-secret-3131"
    llamacpp_up.set_rules(
        [{"contains": "LEAK", "status": 400, "body": {"error": {"message": f"bad key {key}"}}}]
    )
    with pytest.raises(BackendError) as e:
        await collect(llamacpp(llamacpp_up, api_key=key), "LEAK", suffix="z")
    assert key not in str(e.value) and "***" in str(e.value) and e.value.status == 400
    assert llamacpp_up.last().headers["authorization"] == f"Bearer {key}"
