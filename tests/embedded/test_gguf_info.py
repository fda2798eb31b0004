"""GGUF metadata reading, on small GGUF files written here byte by byte (no llama-cpp-python needed)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.backends.embedded import read_gguf_info, read_gguf_metadata

U32, F32, STRING, ARRAY = 4, 6, 8, 9


def _string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _value(vtype: int, value: Any) -> bytes:
    if vtype == U32:
        return struct.pack("<I", value)
    if vtype == F32:
        return struct.pack("<f", value)
    if vtype == STRING:
        return _string(value)
    itype, items = value
    return struct.pack("<IQ", itype, len(items)) + b"".join(_value(itype, item) for item in items)


def write_gguf(path: Path, kvs: list[tuple[str, int, Any]]) -> Path:
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs))
    for key, vtype, value in kvs:
        data += _string(key) + struct.pack("<I", vtype) + _value(vtype, value)
    path.write_bytes(data)
    return path


TOKENS = ["<|endoftext|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "a", "b"]


def test_current_fim_keys(tmp_path: Path) -> None:
    path = write_gguf(
        tmp_path / "Qwen2.5-Coder-1.5B.Q4_K_M.gguf",
        [
            ("general.architecture", STRING, "qwen2"),
            ("general.name", STRING, "Qwen2.5 Coder 1.5B"),
            ("qwen2.context_length", U32, 32768),
            ("tokenizer.ggml.scores", ARRAY, (F32, [0.0] * len(TOKENS))),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, TOKENS)),
            ("tokenizer.ggml.eos_token_id", U32, 0),
            ("tokenizer.ggml.fim_pre_token_id", U32, 1),
            ("tokenizer.ggml.fim_suf_token_id", U32, 3),
            ("tokenizer.ggml.fim_mid_token_id", U32, 2),
        ],
    )
    info = read_gguf_info(path)
    assert info == {
        "name": "Qwen2.5 Coder 1.5B",
        "architecture": "qwen2",
        "context_length": 32768,
        "file_name": "Qwen2.5-Coder-1.5B.Q4_K_M.gguf",
        "tokenizer_pre": None,
        "eos_token": "<|endoftext|>",
        "fim": {"prefix": "<fim_prefix>", "suffix": "<fim_suffix>", "middle": "<fim_middle>"},
    }


def test_older_fim_keys_and_out_of_range_ids(tmp_path: Path) -> None:
    path = write_gguf(
        tmp_path / "m.gguf",
        [
            ("general.architecture", STRING, "starcoder2"),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, TOKENS)),
            ("tokenizer.ggml.prefix_token_id", U32, 1),
            ("tokenizer.ggml.suffix_token_id", U32, 3),
            ("tokenizer.ggml.middle_token_id", U32, 2),
            ("tokenizer.ggml.fim_pad_token_id", U32, 99),
        ],
    )
    info = read_gguf_info(path)
    assert info["name"] is None
    assert info["context_length"] is None
    assert info["fim"] == {"prefix": "<fim_prefix>", "suffix": "<fim_suffix>", "middle": "<fim_middle>"}


def test_metadata_filter_and_bad_files(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", [("a", U32, 1), ("b", STRING, "x")])
    assert read_gguf_metadata(path) == {"a": 1, "b": "x"}
    assert read_gguf_metadata(path, lambda key: key == "b") == {"b": "x"}
    (tmp_path / "bad.gguf").write_bytes(b"NOPE" + bytes(20))
    with pytest.raises(ValueError):
        read_gguf_metadata(tmp_path / "bad.gguf")
    (tmp_path / "short.gguf").write_bytes(path.read_bytes()[:30])
    with pytest.raises(ValueError):
        read_gguf_metadata(tmp_path / "short.gguf")
