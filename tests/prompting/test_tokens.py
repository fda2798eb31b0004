"""Token counters: exact ones from real tokenizers or callables, and the estimate."""

from __future__ import annotations

import pytest

from jupyter_codecomplete.prompting import (
    CallableCounter,
    EstimateCounter,
    TokenCounter,
    TokenizersCounter,
    make_counter,
)


def test_tokenizers_counter_counts_special_tokens_as_one(bpe_counter: TokenizersCounter) -> None:
    plain = bpe_counter.count("def f(): pass")
    assert bpe_counter.count("<|fim_prefix|>def f(): pass") == plain + 1
    assert bpe_counter.exact and bpe_counter.count("") == 0


def test_tokenizers_counter_from_a_tokenizer_json(tmp_path, bpe_counter: TokenizersCounter) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "tokenizer.json"
    bpe_counter._tok.save(str(path))
    counter = make_counter(path)
    assert isinstance(counter, TokenizersCounter)
    assert counter.name == "tokenizers:tokenizer.json"
    assert counter.count("import os\n") == bpe_counter.count("import os\n")


def test_make_counter_kinds(bpe_counter: TokenizersCounter) -> None:
    assert isinstance(make_counter(None), EstimateCounter)
    assert make_counter(bpe_counter) is bpe_counter
    assert isinstance(make_counter(bpe_counter._tok), TokenizersCounter)
    c = make_counter(lambda s: s.split())
    assert isinstance(c, CallableCounter) and c.exact and c.count("a b c") == 3
    assert isinstance(c, TokenCounter)
    with pytest.raises(TypeError):
        make_counter(42)


def test_llama_cpp_style_tokenize_is_wrapped() -> None:
    from jupyter_codecomplete.prompting import llama_cpp_counter

    class FakeLlama:
        def tokenize(self, data: bytes, add_bos: bool, special: bool) -> list[int]:
            assert isinstance(data, bytes) and add_bos is False and special is True
            return list(range(len(data.split())))

    assert llama_cpp_counter(FakeLlama()).count("a b c d") == 4


def test_estimate_is_monotonic_in_length() -> None:
    est = EstimateCounter()
    counts = [est.count("x" * n) for n in range(0, 200, 7)]
    assert counts == sorted(counts)
    with pytest.raises(ValueError):
        EstimateCounter(0)
