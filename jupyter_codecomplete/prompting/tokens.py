"""Token counting for budgets: exact counters and a calibrated character estimate.

A :class:`TokenCounter` counts tokens in a string. Exact counters wrap the model's real tokenizer:
a ``tokenizers`` ``tokenizer.json``, a ``tiktoken`` encoding, a llama.cpp model's ``tokenize``, or
any callable ``str -> list[int]``. :class:`EstimateCounter` is a character-based estimate, used
only when no exact counter is available (``make_counter(None)``); it errs on the high side so a
prompt it passes fits.

Nothing here downloads anything: ``tiktoken`` encodings must already be in its local cache.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

# Characters per token for source code, measured with code-model BPE tokenizers (StarCoder2,
# Qwen2.5-Coder, cl100k) on Python/JS: 3.4-4.2 chars per token for ASCII code. We take the low end
# so the estimate over-counts. Non-ASCII text is counted from UTF-8 bytes (CJK ~ 1 token per char).
ESTIMATE_CHARS_PER_TOKEN = 3.2
ESTIMATE_BYTES_PER_TOKEN_NON_ASCII = 2.5


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens. ``exact`` is False only for estimates."""

    name: str
    exact: bool

    def count(self, text: str) -> int: ...


class EstimateCounter:
    """Calibrated character estimate (see ``ESTIMATE_CHARS_PER_TOKEN``)."""

    exact = False

    def __init__(self, chars_per_token: float = ESTIMATE_CHARS_PER_TOKEN) -> None:
        if chars_per_token <= 0:
            raise ValueError("chars_per_token must be positive")
        self.chars_per_token = chars_per_token
        self.name = f"estimate({chars_per_token:g} chars/token)"

    def count(self, text: str) -> int:
        if not text:
            return 0
        if text.isascii():
            return math.ceil(len(text) / self.chars_per_token)
        n_bytes = len(text.encode("utf-8", "surrogatepass"))
        n_ascii = sum(1 for ch in text if ch < "\x80")
        return math.ceil(
            n_ascii / self.chars_per_token + (n_bytes - n_ascii) / ESTIMATE_BYTES_PER_TOKEN_NON_ASCII
        )


class CallableCounter:
    """Exact counter from any ``str -> sequence of token ids`` (e.g. ``llama.tokenize`` wrapped)."""

    exact = True

    def __init__(self, tokenize: Callable[[str], Sequence[Any]], name: str = "callable") -> None:
        self._tokenize = tokenize
        self.name = name

    def count(self, text: str) -> int:
        return len(self._tokenize(text)) if text else 0


class TokenizersCounter:
    """Exact counter from a Hugging Face ``tokenizers.Tokenizer`` (or a ``tokenizer.json`` path).

    Special tokens named in the tokenizer (``<|fim_prefix|>`` ...) count as one token each.
    """

    exact = True

    def __init__(self, tokenizer: Any, name: str | None = None) -> None:
        if isinstance(tokenizer, (str, Path)):
            from tokenizers import Tokenizer

            path = Path(tokenizer)
            tokenizer = Tokenizer.from_file(str(path))
            name = name or f"tokenizers:{path.name}"
        self._tok = tokenizer
        self.name = name or "tokenizers"

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tok.encode(text, add_special_tokens=False).ids)


class TiktokenCounter:
    """Exact counter from a ``tiktoken`` encoding (an ``Encoding`` or a name in the local cache)."""

    exact = True

    def __init__(self, encoding: Any) -> None:
        if isinstance(encoding, str):
            import tiktoken

            encoding = tiktoken.get_encoding(encoding)
        self._enc = encoding
        self.name = f"tiktoken:{encoding.name}"

    def count(self, text: str) -> int:
        if not text:
            return 0
        # special-token text in a prompt counts as ordinary text here (the model's own tokenizer
        # would count it as one token: this over-counts, which is the safe side)
        return len(self._enc.encode_ordinary(text))


def llama_cpp_counter(llama: Any) -> CallableCounter:
    """Exact counter from a ``llama_cpp.Llama`` (special tokens parsed, no BOS added)."""

    def tokenize(text: str) -> list[int]:
        return list(llama.tokenize(text.encode("utf-8", "surrogatepass"), add_bos=False, special=True))

    return CallableCounter(tokenize, name="llama.cpp")


def make_counter(spec: Any = None) -> TokenCounter:
    """A counter from a loose description.

    ``None`` -> the estimate; a :class:`TokenCounter` -> itself; ``"tiktoken:<encoding>"``; a path
    to a ``tokenizer.json``; a ``tokenizers.Tokenizer``; a ``tiktoken.Encoding``; a
    ``llama_cpp.Llama``; any callable ``str -> list``.
    """
    if spec is None:
        return EstimateCounter()
    if isinstance(spec, TokenCounter):
        return spec
    if isinstance(spec, str) and spec.startswith("tiktoken:"):
        return TiktokenCounter(spec.split(":", 1)[1])
    if isinstance(spec, (str, Path)):
        return TokenizersCounter(spec)
    kind = type(spec).__module__.split(".", 1)[0]
    if kind == "tokenizers":
        return TokenizersCounter(spec)
    if kind == "tiktoken":
        return TiktokenCounter(spec)
    if kind == "llama_cpp":
        return llama_cpp_counter(spec)
    if callable(spec):
        return CallableCounter(spec)
    raise TypeError(f"cannot make a token counter from {type(spec).__name__}")
