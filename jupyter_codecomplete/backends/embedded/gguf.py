"""The GGUF file, read without loading the model: the bundled demo model's path, the model's name,
architecture, context length and FIM tokens from its metadata, and whether llama-cpp-python is there."""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

DEMO_MODEL_FILE = "codecomplete-demo.Q8_0.gguf"
DEFAULT_MAX_CTX = 4096  # n_ctx=0 means the model's training context, at most this


def is_available() -> bool:
    """True when llama-cpp-python can be imported (the ``local`` extra is installed)."""
    return importlib.util.find_spec("llama_cpp") is not None


def default_model_path() -> str:
    """The bundled demo model (a small demo that shows the mechanics, not a useful model)."""
    ref = importlib.resources.files("jupyter_codecomplete") / "models" / DEMO_MODEL_FILE
    return str(ref)


# ------------------------------------------------------------------------------------ GGUF metadata

_GGUF_SCALARS: dict[int, str] = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_GGUF_STRING, _GGUF_ARRAY = 8, 9
_FIM_KEYS: dict[str, tuple[str, ...]] = {
    # current key names first, then the older ones
    "prefix": ("tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.prefix_token_id"),
    "suffix": ("tokenizer.ggml.fim_suf_token_id", "tokenizer.ggml.suffix_token_id"),
    "middle": ("tokenizer.ggml.fim_mid_token_id", "tokenizer.ggml.middle_token_id"),
    "pad": ("tokenizer.ggml.fim_pad_token_id",),
    "repo_name": ("tokenizer.ggml.fim_rep_token_id",),
    "file_sep": ("tokenizer.ggml.fim_sep_token_id",),
}


def _read_exact(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ValueError("truncated GGUF file")
    return data


def _read_value(f: BinaryIO, vtype: int, keep: bool = True) -> Any:
    if vtype in _GGUF_SCALARS:
        fmt = _GGUF_SCALARS[vtype]
        return struct.unpack(fmt, _read_exact(f, struct.calcsize(fmt)))[0]
    if vtype == _GGUF_STRING:
        (n,) = struct.unpack("<Q", _read_exact(f, 8))
        raw = _read_exact(f, n)
        return raw.decode("utf-8", errors="replace") if keep else None
    if vtype == _GGUF_ARRAY:
        itype, count = struct.unpack("<IQ", _read_exact(f, 12))
        if not keep and itype in _GGUF_SCALARS:
            f.seek(count * struct.calcsize(_GGUF_SCALARS[itype]), os.SEEK_CUR)
            return None
        items = [_read_value(f, itype, keep) for _ in range(count)]
        return items if keep else None
    raise ValueError(f"unknown GGUF value type {vtype}")


def read_gguf_metadata(
    path: str | os.PathLike[str], wanted: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """The GGUF key/value metadata (all keys, or those ``wanted`` accepts); tensors are not read."""
    out: dict[str, Any] = {}
    with open(path, "rb") as f:
        if _read_exact(f, 4) != b"GGUF":
            raise ValueError(f"{path} is not a GGUF file")
        version, _n_tensors, n_kv = struct.unpack("<IQQ", _read_exact(f, 20))
        if version < 2:
            raise ValueError(f"GGUF version {version} is not supported")
        for _ in range(n_kv):
            (klen,) = struct.unpack("<Q", _read_exact(f, 8))
            key = _read_exact(f, klen).decode("utf-8", errors="replace")
            (vtype,) = struct.unpack("<I", _read_exact(f, 4))
            keep = wanted is None or wanted(key)
            value = _read_value(f, vtype, keep)
            if keep:
                out[key] = value
    return out


def read_gguf_info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What a prompt style can be chosen from: name, architecture, context length, FIM tokens.

    Returns ``{"name", "architecture", "context_length", "file_name", "tokenizer_pre",
    "eos_token", "fim": {"prefix", "suffix", "middle", "pad", "repo_name", "file_sep"}}``; a value is
    ``None`` (or absent from ``fim``) when the file does not declare it.
    """
    wanted = {
        "general.name",
        "general.architecture",
        "tokenizer.ggml.tokens",
        "tokenizer.ggml.pre",
        "tokenizer.ggml.eos_token_id",
    }
    wanted |= {k for keys in _FIM_KEYS.values() for k in keys}
    meta = read_gguf_metadata(path, lambda key: key in wanted or key.endswith(".context_length"))
    arch = meta.get("general.architecture")
    tokens: list[str] = meta.get("tokenizer.ggml.tokens") or []

    def token(idx: Any) -> str | None:
        return tokens[idx] if isinstance(idx, int) and 0 <= idx < len(tokens) else None

    fim: dict[str, str] = {}
    for role, keys in _FIM_KEYS.items():
        for key in keys:
            text = token(meta.get(key))
            if text is not None:
                fim[role] = text
                break
    return {
        "name": meta.get("general.name"),
        "architecture": arch,
        "context_length": meta.get(f"{arch}.context_length") if arch else None,
        "file_name": Path(path).name,
        "tokenizer_pre": meta.get("tokenizer.ggml.pre"),
        "eos_token": token(meta.get("tokenizer.ggml.eos_token_id")),
        "fim": fim,
    }
