"""The GGUF file, read without loading the model: the bundled demo model's path, the model's name,
architecture, context length and FIM tokens from its metadata, and whether llama-cpp-python is there
(:func:`is_available`; the numpy engine needs no such check, see :mod:`.engines`)."""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
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


class _Reader:
    """Reads from a GGUF file, never asking for more than the file holds: a length field of a
    corrupt file can say anything."""

    def __init__(self, f: BinaryIO) -> None:
        self.f = f
        self.size = os.fstat(f.fileno()).st_size
        self.pos = f.tell()

    def exact(self, n: int) -> bytes:
        if n < 0 or n > self.size - self.pos:
            raise ValueError("truncated GGUF file")
        data = self.f.read(n)
        if len(data) != n:
            raise ValueError("truncated GGUF file")
        self.pos += n
        return data

    def skip(self, n: int) -> None:
        if n < 0 or n > self.size - self.pos:
            raise ValueError("truncated GGUF file")
        self.pos = self.f.seek(n, os.SEEK_CUR)

    def unpack(self, fmt: str) -> tuple[Any, ...]:
        return struct.unpack(fmt, self.exact(struct.calcsize(fmt)))

    def string(self) -> str:
        (n,) = self.unpack("<Q")
        return self.exact(n).decode("utf-8", errors="replace")

    def value(self, vtype: int, keep: bool = True) -> Any:
        if vtype in _GGUF_SCALARS:
            return self.unpack(_GGUF_SCALARS[vtype])[0]
        if vtype == _GGUF_STRING:
            (n,) = self.unpack("<Q")
            if not keep:
                self.skip(n)
                return None
            return self.exact(n).decode("utf-8", errors="replace")
        if vtype == _GGUF_ARRAY:
            itype, count = self.unpack("<IQ")
            if itype in _GGUF_SCALARS:
                fmt = _GGUF_SCALARS[itype]
                width = struct.calcsize(fmt)
                if not keep:
                    self.skip(count * width)
                    return None
                raw = self.exact(count * width)
                return list(struct.unpack(f"<{count}{fmt[1]}", raw))
            items = [self.value(itype, keep) for _ in range(count)]
            return items if keep else None
        raise ValueError(f"unknown GGUF value type {vtype}")


@dataclass(frozen=True)
class TensorInfo:
    """Where one tensor lies in the file: ``shape`` in GGUF order (the row length first), the ggml
    type id, and the absolute byte offset of its data."""

    name: str
    shape: tuple[int, ...]
    ggml_type: int
    offset: int


def _read_header(
    f: BinaryIO, path: str | os.PathLike[str], wanted: Callable[[str], bool] | None, tensors: bool
) -> tuple[dict[str, Any], list[TensorInfo]]:
    r = _Reader(f)
    if r.exact(4) != b"GGUF":
        raise ValueError(f"{path} is not a GGUF file")
    version, n_tensors, n_kv = r.unpack("<IQQ")
    if version < 2:
        raise ValueError(f"GGUF version {version} is not supported")
    out: dict[str, Any] = {}
    for _ in range(n_kv):
        key = r.string()
        (vtype,) = r.unpack("<I")
        keep = wanted is None or wanted(key) or key == "general.alignment"
        value = r.value(vtype, keep)
        if keep:
            out[key] = value
    infos: list[TensorInfo] = []
    if not tensors:
        return out, infos
    raw: list[tuple[str, tuple[int, ...], int, int]] = []
    for _ in range(n_tensors):
        name = r.string()
        (n_dims,) = r.unpack("<I")
        if not 1 <= n_dims <= 4:
            raise ValueError(f"tensor {name!r} has {n_dims} dimensions")
        dims = r.unpack(f"<{n_dims}Q")
        ggml_type, offset = r.unpack("<IQ")
        raw.append((name, tuple(int(d) for d in dims), int(ggml_type), int(offset)))
    align = out.get("general.alignment", 32)
    if not isinstance(align, int) or not 1 <= align <= 1 << 20:
        raise ValueError(f"general.alignment is {align!r}")
    start = -(-r.pos // align) * align
    for name, dims, ggml_type, offset in raw:
        if offset > r.size - start:
            raise ValueError(f"tensor {name!r} lies past the end of the file")
        infos.append(TensorInfo(name, dims, ggml_type, start + offset))
    return out, infos


def read_gguf_metadata(
    path: str | os.PathLike[str], wanted: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """The GGUF key/value metadata (all keys, or those ``wanted`` accepts); tensors are not read."""
    with open(path, "rb") as f:
        return _read_header(f, path, wanted, tensors=False)[0]


def read_gguf_tensors(
    path: str | os.PathLike[str], wanted: Callable[[str], bool] | None = None
) -> tuple[dict[str, Any], list[TensorInfo]]:
    """The metadata (all keys, or those ``wanted`` accepts) and where each tensor lies (nothing of
    the tensors' data is read)."""
    with open(path, "rb") as f:
        return _read_header(f, path, wanted, tensors=True)


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
