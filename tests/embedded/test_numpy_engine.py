"""The numpy engine on the shipped demo model: its tokens and greedy choices against llama.cpp's
(skipped only when llama-cpp-python is not installed), the warm cache, the choice of engine, and
corrupt files, which are clear errors."""

from __future__ import annotations

import itertools
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from jupyter_codecomplete.backends import BackendError, ModelConfig
from jupyter_codecomplete.backends.embedded import (
    LLAMA_CPP,
    NUMPY,
    EmbeddedBackend,
    EngineUnavailable,
    default_model_path,
    is_available,
)
from jupyter_codecomplete.backends.embedded.engines import (
    INSTALL_HINT,
    GenerationParams,
    LlamaCppEngine,
    NumpyEngine,
    _choose,
)
from jupyter_codecomplete.backends.embedded.numpy_llama import GGUFError, NumpyLlama, check_file

TEXTS = [
    "import os\nimport sys\n\n\ndef main(argv):\n",
    "<|fim_prefix|>def add(a, b):\n<|fim_suffix|>\n\n\nprint(add(1, 2))\n<|fim_middle|>",
    "x = 12345678 + 3.14e-10\n\t\ttabs  and   spaces   \n\n\n",
    "héllo wörld — 日本語 😀 café's don't I'M we'll",
    "<|repo_name|>cpython-json\n<|file_sep|>json/__init__.py\nimport",
    "   \r\n\r\n  x\u00a0y\u2003z",
    "class Config:\n    def __init__(self):\n        self.",
    "",
]
PROMPTS = [
    "import os\nimport sys\n\n\ndef main(argv):\n",
    "<|fim_prefix|>def add(a, b):\n<|fim_suffix|>\n\n\nprint(add(1, 2))\n<|fim_middle|>",
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        ",
    "def parse_args(argv):\n    parser = argparse.ArgumentParser()\n    parser.add_argument(",
    "<|repo_name|>cpython-json\n<|file_sep|>json/__init__.py\nimport",
]
FIRST = 8  # greedy tokens that must be the same as llama.cpp's

needs_llama_cpp = pytest.mark.skipif(not is_available(), reason="needs llama-cpp-python (setup.sh --local)")


@pytest.fixture(scope="module")
def engine() -> NumpyEngine:
    return NumpyEngine(default_model_path(), 1024, None)


@pytest.fixture(scope="module")
def llama() -> LlamaCppEngine:
    return LlamaCppEngine(default_model_path(), 1024, 2)


def greedy(e: Any, tokens: list[int], n: int) -> list[int]:
    gen = e.generate(tokens, GenerationParams(temperature=0.0))
    try:
        return list(itertools.islice(gen, n))
    finally:
        gen.close()


@needs_llama_cpp
@pytest.mark.llamacpp
@pytest.mark.parametrize("text", TEXTS)
def test_token_ids_are_llama_cpps(engine: NumpyEngine, llama: LlamaCppEngine, text: str) -> None:
    assert engine.tokenize(text) == llama.tokenize(text)


@needs_llama_cpp
@pytest.mark.llamacpp
@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_tokens_are_llama_cpps(engine: NumpyEngine, llama: LlamaCppEngine, prompt: str) -> None:
    tokens = llama.tokenize(prompt)
    assert greedy(engine, tokens, FIRST) == greedy(llama, tokens, FIRST)


def test_specials_are_single_tokens_and_have_no_text(engine: NumpyEngine) -> None:
    ids = engine.tokenize("<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>")
    assert len(ids) == 5
    assert [engine.is_control(t) for t in ids] == [True, False, True, False, True]
    assert b"".join(engine.piece(t, []) for t in ids) == b"xy"
    assert engine.is_eog(engine.tokenize("<|endoftext|>")[0])


@pytest.mark.parametrize("text", [t for t in TEXTS if "<|" not in t])
def test_decoding_gives_the_text_back(engine: NumpyEngine, text: str) -> None:
    assert b"".join(engine.piece(t, []) for t in engine.tokenize(text)).decode() == text


def test_warm_cache_computes_only_new_tokens_and_changes_nothing(engine: NumpyEngine) -> None:
    model = engine.model
    tokens = engine.tokenize(PROMPTS[2])
    cold = NumpyLlama(default_model_path()).eval(tokens).copy()
    model.eval(tokens[:-5])  # the prompt of the keystrokes before
    assert model.reused == len(tokens) - 5
    warm = model.eval(tokens)
    assert model.reused == len(tokens)
    np.testing.assert_allclose(warm, cold, rtol=0, atol=1e-4)
    # a prompt that diverges in the middle keeps the shared prefix and recomputes the rest
    other = tokens[:10] + engine.tokenize(" changed")
    model.eval(other)
    assert model.reused == len(other)
    np.testing.assert_allclose(model.eval(tokens), cold, rtol=0, atol=1e-4)


def test_sampling_draws_from_the_most_likely_tokens(engine: NumpyEngine) -> None:
    tokens = engine.tokenize(PROMPTS[0])
    logits = engine.model.eval(tokens)
    top = set(np.argsort(-logits)[:40].tolist())
    for _ in range(10):
        gen = engine.generate(tokens, GenerationParams(temperature=0.8, top_p=0.9))
        assert next(gen) in top
        gen.close()


def test_a_context_full_of_tokens_ends_the_generation(engine: NumpyEngine) -> None:
    tokens = engine.tokenize("x = 1\n" * 400)[: engine.n_ctx() - 3]
    assert len(greedy(engine, tokens, 50)) == 3


# ---------------------------------------------------------------------------------- the choice


def gguf_bytes(meta: dict[str, Any], tensors: tuple[tuple[str, tuple[int, ...], int], ...] = ()) -> bytes:
    """A GGUF header with ``meta`` (strings, ints, string lists) and ``tensors`` (name, shape, ggml
    type) listed but without their data."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)))

    def string(text: str) -> bytes:
        raw = text.encode()
        return struct.pack("<Q", len(raw)) + raw

    for key, value in meta.items():
        out += string(key)
        if isinstance(value, str):
            out += struct.pack("<I", 8) + string(value)
        elif isinstance(value, int):
            out += struct.pack("<II", 4, value)
        else:
            out += struct.pack("<IIQ", 9, 8, len(value)) + b"".join(string(v) for v in value)
    for name, shape, ggml_type in tensors:
        out += string(name) + struct.pack(f"<I{len(shape)}QIQ", len(shape), *shape, ggml_type, 0)
    return bytes(out) + b"\0" * (-len(out) % 32)  # the data would start here


def test_the_demo_runs_on_numpy_and_others_on_llama_cpp_when_it_is_there() -> None:
    demo = default_model_path()
    assert check_file(demo) is None
    assert _choose(demo, "auto", demo=True, have_llama=True) == NUMPY
    assert _choose(demo, "auto", demo=False, have_llama=True) == LLAMA_CPP
    assert _choose(demo, "auto", demo=False, have_llama=False) == NUMPY
    assert _choose(demo, LLAMA_CPP, demo=True, have_llama=True) == LLAMA_CPP


def test_a_model_only_llama_cpp_runs_says_how_to_install_it(tmp_path: Path) -> None:
    path = tmp_path / "qwen-moe.gguf"
    path.write_bytes(gguf_bytes({"general.architecture": "qwen2moe", "tokenizer.ggml.model": "gpt2"}))
    assert "architecture 'qwen2moe'" in str(check_file(str(path)))
    assert _choose(str(path), "auto", demo=False, have_llama=True) == LLAMA_CPP
    with pytest.raises(EngineUnavailable) as err:
        _choose(str(path), "auto", demo=False, have_llama=False)
    assert "qwen-moe.gguf needs llama.cpp" in str(err.value)
    assert "pip install 'jupyter_codecomplete[local]'" in str(err.value)
    assert "./scripts/setup.sh --local" in str(err.value)
    with pytest.raises(EngineUnavailable, match="not installed"):
        _choose(str(path), LLAMA_CPP, demo=False, have_llama=False)
    assert "setup.sh --local" in INSTALL_HINT


def test_a_model_too_big_for_float32_weights_needs_llama_cpp(tmp_path: Path) -> None:
    path = tmp_path / "big.gguf"
    meta = {"general.architecture": "llama", "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2"}
    path.write_bytes(gguf_bytes(meta, (("token_embd.weight", (8192, 152064), 8),)))
    assert check_file(str(path)) == "a model this big (1.2 B weights, 5 GiB as float32)"
    with pytest.raises(EngineUnavailable, match=r"big\.gguf needs llama\.cpp"):
        _choose(str(path), "auto", demo=False, have_llama=False)


def test_an_unknown_tokenizer_needs_llama_cpp(tmp_path: Path) -> None:
    path = tmp_path / "spm.gguf"
    path.write_bytes(gguf_bytes({"general.architecture": "llama", "tokenizer.ggml.model": "llama"}))
    assert "tokenizer model 'llama'" in str(check_file(str(path)))


# -------------------------------------------------------------------------------- corrupt files


def corrupt(tmp_path: Path, how: str) -> Path:
    data = bytearray(Path(default_model_path()).read_bytes())
    if how == "truncated header":
        data = data[:5000]
    elif how == "truncated tensors":
        data = data[: len(data) - 100_000]
    elif how == "not gguf":
        data[:4] = b"GGUX"
    elif how == "huge string":  # the first key's length field says 2**62 bytes
        data[24:32] = struct.pack("<Q", 1 << 62)
    path = tmp_path / f"{how.replace(' ', '-')}.gguf"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", ["truncated header", "truncated tensors", "not gguf", "huge string"])
def test_a_corrupt_file_is_a_clear_error(tmp_path: Path, how: str) -> None:
    path = corrupt(tmp_path, how)
    with pytest.raises(GGUFError) as err:
        NumpyLlama(str(path))
    message = str(err.value)
    assert path.name in message
    assert any(w in message for w in ("truncated", "not a GGUF", "past the end", "not a valid GGUF"))


@pytest.mark.parametrize("how", ["truncated header", "not gguf"])
def test_a_corrupt_file_is_refused_when_the_backend_is_made(tmp_path: Path, how: str) -> None:
    path = corrupt(tmp_path, how)
    with pytest.raises(BackendError) as err:
        config = ModelConfig(backend="embedded", model_path=str(path), options={"engine": "numpy"})
        EmbeddedBackend.create(config)
    assert err.value.type == "backend_unavailable"
    assert path.name in str(err.value)
