"""The embedded backend against the shipped demo model, run in-process by each engine: the numpy
engine (always there) and llama-cpp-python (when installed: ``./scripts/setup.sh --local``, which
``scripts/test.sh`` runs).

These load the real GGUF (one load per engine for the whole module) and check behaviour: streaming,
cancellation, FIFO queueing of concurrent requests, FIM prompts with special tokens, stops, GGUF
metadata.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from jupyter_codecomplete.backends.embedded import (
    LLAMA_CPP,
    NUMPY,
    EmbeddedLlamaLLM,
    SharedLlama,
    default_model_path,
    is_available,
    read_gguf_info,
    shared_model,
)
from jupyter_codecomplete.backends.embedded.worker import held_back, utf8_complete_prefix

needs_llama_cpp = pytest.mark.skipif(not is_available(), reason="needs llama-cpp-python (setup.sh --local)")
ENGINES = [NUMPY, pytest.param(LLAMA_CPP, marks=[pytest.mark.llamacpp, needs_llama_cpp])]

CODE_PROMPT = "import os\nimport sys\n\n\ndef main(argv):\n"
FIM_PROMPT = "<|fim_prefix|>def add(a, b):\n<|fim_suffix|>\n\n\nprint(add(1, 2))\n<|fim_middle|>"
LONG = 800  # more tokens than any test lets the model generate before it is cancelled


@pytest.fixture(scope="module", params=ENGINES)
def llm(request: pytest.FixtureRequest) -> EmbeddedLlamaLLM:
    return EmbeddedLlamaLLM(temperature=0.0, max_tokens=48, engine=request.param)


@pytest.fixture(scope="module")
def shared(llm: EmbeddedLlamaLLM) -> SharedLlama:
    model = llm.shared
    model.engine(timeout=120)  # loaded once for the module
    assert model.engine_name == llm.engine
    return model


@pytest.mark.skipif(
    os.environ.get("CODECOMPLETE_REQUIRE_LLAMA_CPP") != "1", reason="scripts/test.sh requires llama.cpp"
)
def test_llama_cpp_is_installed() -> None:
    assert is_available()  # scripts/test.sh sets up --local: CI covers the llama.cpp engine too


def test_the_demo_is_served_by_the_numpy_engine_unless_llama_cpp_is_asked_for() -> None:
    assert EmbeddedLlamaLLM().engine_name == NUMPY


def test_shipped_model_is_small() -> None:
    path = Path(default_model_path())
    assert path.is_file()
    assert path.stat().st_size <= 10 * 1024 * 1024


def test_gguf_info_reports_fim_tokens() -> None:
    info = read_gguf_info(default_model_path())
    assert info["architecture"] == "llama"
    assert info["name"] == "codecomplete-demo"
    assert info["context_length"] == 1024
    assert info["tokenizer_pre"] == "qwen2"
    assert info["eos_token"] == "<|endoftext|>"
    assert info["fim"] == {
        "prefix": "<|fim_prefix|>",
        "suffix": "<|fim_suffix|>",
        "middle": "<|fim_middle|>",
        "pad": "<|fim_pad|>",
        "repo_name": "<|repo_name|>",
        "file_sep": "<|file_sep|>",
    }


def test_one_model_per_path(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    same_file = Path(default_model_path()).parent / "." / Path(llm.model_path).name
    other = EmbeddedLlamaLLM(model_path=str(same_file), engine=llm.engine)
    assert other.shared is shared
    assert shared_model(os.path.realpath(llm.model_path), engine=llm.engine) is shared


def test_special_tokens_in_prompt_are_parsed(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    ids = llm.get_token_ids("<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>")
    assert len(ids) == 5
    assert shared._special_ids(shared.engine(), ["<|endoftext|>", "<|file_sep|>", "\n"]) == {
        ids_ for text in ("<|endoftext|>", "<|file_sep|>") for ids_ in llm.get_token_ids(text)
    }


def test_stream_yields_several_chunks_and_matches_invoke(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    chunks = list(llm.stream(CODE_PROMPT))
    assert len(chunks) >= 3
    assert all(isinstance(c, str) for c in chunks)
    assert "".join(chunks) == llm.invoke(CODE_PROMPT)  # greedy: the same text either way


async def test_astream_yields_several_chunks_and_leaves_the_loop_free(llm: EmbeddedLlamaLLM) -> None:
    ticks = 0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    chunks = [c async for c in llm.astream(CODE_PROMPT)]
    done.set()
    await task
    assert len(chunks) >= 3
    assert ticks > len(chunks)  # the loop kept running other tasks while the model generated


async def _wait_idle(shared: SharedLlama) -> None:
    assert await asyncio.to_thread(shared.wait_idle, 60.0)


async def test_closing_the_stream_stops_generation(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    stream = llm.astream(CODE_PROMPT, max_tokens=LONG)
    first = await stream.__anext__()
    assert isinstance(first, str)
    await stream.aclose()
    await _wait_idle(shared)
    stats = shared.history[-1]
    assert stats.finish_reason == "cancelled"
    assert stats.tokens_at_cancel is not None
    assert stats.tokens - stats.tokens_at_cancel <= 2
    assert stats.tokens < LONG


async def test_cancelling_the_task_stops_generation(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    got_one = asyncio.Event()

    async def consume() -> None:
        async for _ in llm.astream(CODE_PROMPT, max_tokens=LONG):
            got_one.set()

    task = asyncio.create_task(consume())
    await got_one.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _wait_idle(shared)
    stats = shared.history[-1]
    assert stats.finish_reason == "cancelled"
    assert stats.tokens_at_cancel is not None
    assert stats.tokens - stats.tokens_at_cancel <= 2
    assert stats.tokens < LONG


def test_closing_a_sync_stream_stops_generation(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    stream = llm.stream(CODE_PROMPT, max_tokens=LONG)
    next(stream)
    stream.close()
    assert shared.wait_idle(60.0)
    stats = shared.history[-1]
    assert stats.finish_reason == "cancelled"
    assert stats.tokens < LONG


async def test_concurrent_requests_are_queued_and_both_complete(
    llm: EmbeddedLlamaLLM, shared: SharedLlama
) -> None:
    order: list[str] = []

    async def run(name: str, prompt: str) -> str:
        text = "".join([c async for c in llm.astream(prompt, max_tokens=32)])
        order.append(name)
        return text

    before = len(shared.history)
    first, second = await asyncio.gather(run("first", CODE_PROMPT), run("second", "class Config:\n"))
    assert first and second
    assert order == ["first", "second"]  # one generation at a time, first come first served
    assert len(shared.history) - before == 2


async def test_fim_prompt_produces_text(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    text = await llm.ainvoke(FIM_PROMPT, stop=["<|endoftext|>", "<|file_sep|>"])
    assert text.strip()
    assert "<|" not in text
    stats = shared.history[-1]
    assert stats.finish_reason in {"stop", "length"}
    assert stats.prompt_tokens == len(llm.get_token_ids(FIM_PROMPT))


def test_text_stop_ends_the_completion(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    text = llm.invoke(CODE_PROMPT + "    ", stop=["\n"], max_tokens=64)
    assert "\n" not in text
    assert shared.history[-1].finish_reason == "stop"


def test_too_long_prompt_keeps_the_fim_prefix_token(llm: EmbeddedLlamaLLM, shared: SharedLlama) -> None:
    body = "value = compute(value)\n" * 400
    text = llm.invoke(f"<|fim_prefix|>{body}<|fim_suffix|>\n<|fim_middle|>", max_tokens=8)
    assert isinstance(text, str)
    stats = shared.history[-1]
    assert stats.prompt_tokens <= 1024 - 8


@pytest.mark.parametrize("engine", ENGINES)
def test_missing_model_raises(engine: str) -> None:
    bad = EmbeddedLlamaLLM(model_path="/nonexistent/model.gguf", engine=engine)
    with pytest.raises(Exception):  # noqa: B017 - each engine's own error type
        bad.invoke("x")


def test_utf8_and_stop_helpers() -> None:
    euro = "€".encode()
    assert utf8_complete_prefix(b"ab" + euro[:2]) == 2
    assert utf8_complete_prefix(b"ab" + euro) == 5
    assert held_back("foo\n<|end", ["<|endoftext|>"]) == 5
    assert held_back("foo", ["\n\n"]) == 0
