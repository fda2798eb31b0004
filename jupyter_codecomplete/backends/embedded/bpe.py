"""The tokenizer of a GGUF model for the numpy engine, built from the file's own vocabulary, token
types and merges (no llama.cpp): byte-level BPE (``tokenizer.ggml.model = gpt2``) with the
pre-tokenizer llama.cpp names in ``tokenizer.ggml.pre``.

It tokenizes as llama.cpp does with ``special=True``: control and user-defined tokens written in the
text (``<|fim_prefix|>``) are single tokens, the rest is split by the pre-tokenizer's regex and merged
by the file's merges. ``tests/embedded/test_numpy_engine.py`` checks the ids against llama.cpp.
Decoding is a table of each token's bytes; control tokens decode to nothing (llama.cpp's
``special=False``), so the worker can tell a special token from text.
"""

from __future__ import annotations

from collections.abc import Sequence

# llama.cpp's token types (llama_token_type / gguf.TokenType)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

# llama.cpp's pre-tokenizer name -> the regex it splits text with before merging. Only the ones
# checked against llama.cpp here are listed; a model with another one is served by llama.cpp.
PRE_TOKENIZERS: dict[str, str] = {
    "qwen2": (
        r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
        r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    ),
}

MAX_VOCAB = 1_000_000  # a larger vocabulary is a corrupt file, not a model


def _byte_level_chars() -> dict[str, int]:
    """Byte-level BPE writes every byte as one printable character: printable Latin-1 bytes stand
    for themselves, the other bytes take the code points from 256 up, in byte order."""
    keep = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table: dict[str, int] = {chr(b): b for b in keep}
    extra = 0
    for b in range(256):
        if b not in table.values():
            table[chr(256 + extra)] = b
            extra += 1
    return table


_CHAR_TO_BYTE = _byte_level_chars()


class TokenizerError(ValueError):
    """The file's tokenizer is one this module cannot run (or its data are inconsistent)."""


def unsupported_reason(model: str | None, pre: str | None) -> str | None:
    """Why the numpy engine cannot tokenize for this model (None: it can)."""
    if model != "gpt2":
        return f"tokenizer model {model!r} (only byte-level BPE, 'gpt2', is built in)"
    if (pre or "default") not in PRE_TOKENIZERS:
        return f"pre-tokenizer {pre!r} (built in: {', '.join(sorted(PRE_TOKENIZERS))})"
    return None


class GgufTokenizer:
    """Text <-> token ids for one GGUF vocabulary (thread-safe for reading once built)."""

    def __init__(
        self,
        tokens: Sequence[str],
        token_types: Sequence[int] | None,
        merges: Sequence[str],
        pre: str | None,
        model: str | None = "gpt2",
    ) -> None:
        reason = unsupported_reason(model, pre)
        if reason is not None:
            raise TokenizerError(f"not supported by the numpy engine: {reason}")
        if not tokens or len(tokens) > MAX_VOCAB:
            raise TokenizerError(f"the vocabulary has {len(tokens)} tokens")
        types = list(token_types) if token_types is not None else [NORMAL] * len(tokens)
        if len(types) != len(tokens):
            raise TokenizerError("tokenizer.ggml.token_type does not match tokenizer.ggml.tokens")
        from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

        vocab: dict[str, int] = {}
        for idx, text in enumerate(tokens):
            vocab.setdefault(text, idx)
        pairs: list[tuple[str, str]] = []
        for merge in merges:
            left, sep, right = merge.partition(" ")
            if not sep or left not in vocab or right not in vocab:
                raise TokenizerError(f"bad merge {merge[:40]!r} in tokenizer.ggml.merges")
            pairs.append((left, right))
        tok = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False, byte_fallback=False))
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(PRE_TOKENIZERS[pre or "default"]), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        tok.decoder = decoders.ByteLevel()
        specials = [
            AddedToken(text, special=True, normalized=False)
            for text, kind in zip(tokens, types, strict=True)
            if kind in (CONTROL, USER_DEFINED) and text
        ]
        tok.add_special_tokens(specials)
        self._tok = tok
        self.n_vocab = len(tokens)
        self.control = frozenset(i for i, kind in enumerate(types) if kind in (CONTROL, UNUSED, UNKNOWN))
        self.pieces: list[bytes] = [self._piece(text, kind) for text, kind in zip(tokens, types, strict=True)]

    @staticmethod
    def _piece(text: str, kind: int) -> bytes:
        if kind in (CONTROL, UNUSED, UNKNOWN):
            return b""
        if kind == USER_DEFINED:
            return text.encode("utf-8")
        if kind == BYTE and text.startswith("<0x") and text.endswith(">"):
            try:
                return bytes([int(text[3:-1], 16)])
            except ValueError:
                pass
        out = bytearray()
        for ch in text:
            b = _CHAR_TO_BYTE.get(ch)
            if b is None:
                out += ch.encode("utf-8")
            else:
                out.append(b)
        return bytes(out)

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` (special tokens in it parsed as specials; no BOS)."""
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def piece(self, token: int) -> bytes:
        """The bytes of one token (nothing for a control token)."""
        return self.pieces[token] if 0 <= token < self.n_vocab else b""

    def decode(self, ids: Sequence[int]) -> bytes:
        return b"".join(self.piece(t) for t in ids)
