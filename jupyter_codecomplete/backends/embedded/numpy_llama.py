"""The numpy engine: a llama-architecture GGUF run with numpy, no compiler and no llama.cpp.

Made for small models (the bundled demo: 7.4 M parameters, thousands of tokens per second are not
needed, hundreds are plenty). The file is read by :mod:`.gguf` (bounded reads of the header, then
each tensor's bytes); Q8_0 / F16 / F32 weights are turned into float32 once, at load. The forward
pass is llama.cpp's for the llama architecture: RMSNorm, RoPE on adjacent pairs (llama.cpp's
"normal" RoPE for this architecture) with the file's ``rope.freq_base``, grouped-query attention
when the file has fewer KV heads, SwiGLU. The KV cache lives as long as the model and is reused
for the prompt prefix a request shares with the previous one (the warm cache: a prompt that only
grew since the last keystroke computes only its new tokens). Keys and values are rounded through
float16 as llama.cpp's default cache is, and activations to Q8_0 blocks before a product with Q8_0
weights as llama.cpp does, so that greedy outputs follow llama.cpp's
(``tests/embedded/test_numpy_engine.py`` compares them).

:func:`unsupported_reason` says, from the metadata alone, why a file needs llama.cpp instead.
Everything read from the file is checked against the shapes the metadata promise: a corrupt or
truncated file is a :class:`GGUFError` with the reason, never an index error deep in a matmul.
"""

from __future__ import annotations

import math
import os
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from .bpe import GgufTokenizer, TokenizerError
from .bpe import unsupported_reason as tokenizer_unsupported
from .gguf import TensorInfo, read_gguf_tensors

F32 = npt.NDArray[np.float32]

SUPPORTED_ARCHS = ("llama",)
# ggml type ids the engine can turn into float32: F32, F16, Q8_0
SUPPORTED_TYPES = {0: "F32", 1: "F16", 8: "Q8_0"}
MAX_CTX_NUMPY = 4096
# Weights are float32 in memory: above this many (4 GiB) a model is llama.cpp's job, not numpy's
MAX_WEIGHTS = 1 << 30


class GGUFError(ValueError):
    """The GGUF file is corrupt, truncated or not what its metadata say."""


@dataclass(frozen=True)
class Hyper:
    """The llama hyper-parameters of one file."""

    n_vocab: int
    n_embd: int
    n_layer: int
    n_head: int
    n_head_kv: int
    n_ff: int
    n_ctx_train: int
    n_rot: int
    rope_theta: float
    rope_scale: float
    eps: float

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


_VOCABULARY = (
    "tokenizer.ggml.tokens",
    "tokenizer.ggml.token_type",
    "tokenizer.ggml.merges",
    "tokenizer.ggml.scores",
)


def _header(path: str, vocabulary: bool = True) -> tuple[dict[str, Any], list[TensorInfo]]:
    """The metadata and the tensors' places (bounded reads; a corrupt file is a GGUFError);
    without the vocabulary's long arrays unless ``vocabulary``."""
    wanted = None if vocabulary else (lambda key: not key.startswith(_VOCABULARY))
    try:
        return read_gguf_tensors(path, wanted)
    except (OSError, MemoryError) as exc:
        raise GGUFError(f"{path}: cannot be read: {exc}") from exc
    except (ValueError, struct.error, OverflowError) as exc:
        raise GGUFError(f"{path} is not a valid GGUF file: {exc}") from exc


def unsupported_reason(meta: dict[str, Any], tensor_types: Sequence[int] = ()) -> str | None:
    """Why the numpy engine cannot run a file with this metadata (None: it can)."""
    arch = meta.get("general.architecture")
    if arch not in SUPPORTED_ARCHS:
        return f"architecture {arch!r} (the numpy engine runs {', '.join(SUPPORTED_ARCHS)})"
    scaling = meta.get(f"{arch}.rope.scaling.type")
    if scaling not in (None, "none", "linear"):
        return f"RoPE scaling {scaling!r}"
    if meta.get(f"{arch}.expert_count"):
        return "a mixture of experts"
    bad = sorted({SUPPORTED_TYPES.get(t, str(t)) for t in tensor_types if t not in SUPPORTED_TYPES})
    if bad:
        return f"tensor types {', '.join(bad)} (the numpy engine reads F32, F16 and Q8_0)"
    return tokenizer_unsupported(meta.get("tokenizer.ggml.model"), meta.get("tokenizer.ggml.pre"))


def _size_reason(tensors: Sequence[TensorInfo]) -> str | None:
    weights = sum(math.prod(t.shape) for t in tensors)
    if weights > MAX_WEIGHTS:
        return f"a model this big ({weights / 1e9:.1f} B weights, {weights * 4 / 2**30:.0f} GiB as float32)"
    return None


def check_file(path: str) -> str | None:
    """Why the numpy engine cannot run the GGUF at ``path`` (None: it can). Reads the header only;
    raises :class:`GGUFError` for a corrupt file."""
    meta, tensors = _header(path, vocabulary=False)
    return unsupported_reason(meta, [t.ggml_type for t in tensors]) or _size_reason(tensors)


def _int(
    meta: dict[str, Any], key: str, default: int | None = None, low: int = 1, high: int = 1 << 24
) -> int:
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GGUFError(f"metadata {key!r} is {value!r}, not an integer in [{low}, {high}]")
    return value


def _float(meta: dict[str, Any], key: str, default: float) -> float:
    value = meta.get(key, default)
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise GGUFError(f"metadata {key!r} is {value!r}, not a positive number")
    return float(value)


def _hyper(meta: dict[str, Any], n_vocab: int) -> Hyper:
    a = meta["general.architecture"]
    n_embd = _int(meta, f"{a}.embedding_length")
    n_head = _int(meta, f"{a}.attention.head_count", high=4096)
    n_head_kv = _int(meta, f"{a}.attention.head_count_kv", n_head, high=4096)
    if n_embd % n_head or n_head % n_head_kv:
        raise GGUFError(f"{n_embd} dimensions do not split into {n_head} heads / {n_head_kv} KV heads")
    head_dim = n_embd // n_head
    n_rot = _int(meta, f"{a}.rope.dimension_count", head_dim, high=head_dim)
    if n_rot % 2:
        raise GGUFError(f"rope.dimension_count {n_rot} is odd")
    scale = 1.0
    if meta.get(f"{a}.rope.scaling.type") == "linear":
        scale = 1.0 / _float(meta, f"{a}.rope.scaling.factor", 1.0)
    return Hyper(
        n_vocab=n_vocab,
        n_embd=n_embd,
        n_layer=_int(meta, f"{a}.block_count", high=1024),
        n_head=n_head,
        n_head_kv=n_head_kv,
        n_ff=_int(meta, f"{a}.feed_forward_length"),
        n_ctx_train=_int(meta, f"{a}.context_length", 2048, high=1 << 22),
        n_rot=n_rot,
        rope_theta=_float(meta, f"{a}.rope.freq_base", 10000.0),
        rope_scale=scale,
        eps=_float(meta, f"{a}.attention.layer_norm_rms_epsilon", 1e-5),
    )


def _nbytes(info: TensorInfo) -> int:
    count = math.prod(info.shape)
    if info.ggml_type == 0:
        return 4 * count
    if info.ggml_type == 1:
        return 2 * count
    if info.ggml_type == 8:
        if info.shape[0] % 32:
            raise GGUFError(f"tensor {info.name!r}: rows of {info.shape[0]} do not split into Q8_0 blocks")
        return count // 32 * 34
    raise GGUFError(f"tensor {info.name!r} has type {info.ggml_type}, which the numpy engine does not read")


def _load_tensor(f: BinaryIO, size: int, info: TensorInfo) -> F32:
    """One tensor as float32 in numpy's (rows, columns) order, read from its place in the file."""
    n = _nbytes(info)
    if info.offset + n > size:
        raise GGUFError(f"tensor {info.name!r} runs past the end of the file (truncated?)")
    f.seek(info.offset)
    raw = np.frombuffer(f.read(n), dtype=np.uint8)
    if raw.size != n:
        raise GGUFError(f"tensor {info.name!r} is truncated")
    if info.ggml_type == 0:
        values = raw.view(np.float32)
    elif info.ggml_type == 1:
        values = raw.view(np.float16).astype(np.float32)
    else:  # Q8_0: blocks of a float16 scale and 32 int8 values
        blocks = raw.reshape(-1, 34)
        scales = blocks[:, :2].copy().view(np.float16).astype(np.float32)
        values = (blocks[:, 2:].view(np.int8).astype(np.float32) * scales).reshape(-1)
    out = np.ascontiguousarray(values.reshape(tuple(reversed(info.shape))), dtype=np.float32)
    if not np.isfinite(out).all():
        raise GGUFError(f"tensor {info.name!r} holds values that are not finite")
    return out


class NumpyLlama:
    """One loaded model: weights as float32, the tokenizer, and one KV cache (not thread-safe: the
    worker thread is its only user)."""

    def __init__(self, path: str, n_ctx: int = 0) -> None:
        meta, infos = _header(path)
        reason = unsupported_reason(meta, [t.ggml_type for t in infos]) or _size_reason(infos)
        if reason is not None:
            raise GGUFError(f"{path}: the numpy engine cannot run it: {reason}")
        self.metadata = meta
        tokens = meta.get("tokenizer.ggml.tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise GGUFError("tokenizer.ggml.tokens is missing or not a list of strings")
        try:
            self.tokenizer = GgufTokenizer(
                tokens,
                meta.get("tokenizer.ggml.token_type"),
                meta.get("tokenizer.ggml.merges") or [],
                meta.get("tokenizer.ggml.pre"),
                meta.get("tokenizer.ggml.model"),
            )
        except TokenizerError as exc:
            raise GGUFError(f"{path}: {exc}") from exc
        hp = self.hp = _hyper(meta, len(tokens))
        with open(path, "rb") as f:
            self._load_weights(f, path, hp, {t.name: t for t in infos})
        # With Q8_0 matrices llama.cpp rounds each activation to Q8_0 blocks before the product;
        # the same here, so that greedy choices follow llama.cpp's (a 10 % cost)
        all_q8 = all(t.ggml_type == 8 for t in infos if len(t.shape) == 2)
        self._act = self._q8 if all_q8 else self._same
        self.n_ctx = min(n_ctx if n_ctx > 0 else hp.n_ctx_train, hp.n_ctx_train, MAX_CTX_NUMPY)
        inv = hp.rope_theta ** (-np.arange(0, hp.n_rot, 2, dtype=np.float64) / hp.n_rot)
        if self.rope_factors is not None:
            inv = inv / self.rope_factors.astype(np.float64)
        angles = np.outer(np.arange(self.n_ctx, dtype=np.float64) * hp.rope_scale, inv)
        self._cos = np.cos(angles).astype(np.float32)
        self._sin = np.sin(angles).astype(np.float32)
        shape = (hp.n_layer, hp.n_head_kv, self.n_ctx, hp.head_dim)
        self._k = np.zeros(shape, dtype=np.float32)
        self._v = np.zeros(shape, dtype=np.float32)
        self._cached: list[int] = []  # the tokens whose keys and values are in the cache, in order
        self._logits: F32 | None = None  # the logits after the last cached token
        self.bos = meta.get("tokenizer.ggml.bos_token_id")
        self.add_bos = bool(meta.get("tokenizer.ggml.add_bos_token", False))
        eog = {meta.get(k) for k in ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id")}
        self.eog = frozenset(t for t in eog if isinstance(t, int))

    def _load_weights(self, f: BinaryIO, path: str, hp: Hyper, tensors: dict[str, TensorInfo]) -> None:
        size = os.fstat(f.fileno()).st_size

        def weight(name: str, shape: tuple[int, ...], required: bool = True) -> F32 | None:
            t = tensors.get(name)
            if t is None:
                if required:
                    raise GGUFError(f"{path}: tensor {name!r} is missing")
                return None
            if tuple(reversed(t.shape)) != shape:
                raise GGUFError(f"{path}: tensor {name!r} has shape {t.shape[::-1]}, expected {shape}")
            try:
                w = _load_tensor(f, size, t)
            except GGUFError as exc:
                raise GGUFError(f"{path}: {exc}") from exc
            except OSError as exc:
                raise GGUFError(f"{path}: tensor {name!r} cannot be read: {exc}") from exc
            return w

        def need(name: str, shape: tuple[int, ...]) -> F32:
            w = weight(name, shape)
            assert w is not None
            return w

        e, hd, kv = hp.n_embd, hp.head_dim, hp.n_head_kv * hp.head_dim
        self.tok_embd = need("token_embd.weight", (hp.n_vocab, e))
        self.layers: list[dict[str, F32]] = []
        for i in range(hp.n_layer):
            p = f"blk.{i}."
            self.layers.append(
                {
                    "attn_norm": need(p + "attn_norm.weight", (e,)),
                    # stored transposed (in, out) so that activations (T, in) @ W give (T, out)
                    # q, k and v in one product, gate and up in another (fewer calls per token)
                    "wqkv": np.concatenate(
                        [
                            need(p + "attn_q.weight", (hp.n_head * hd, e)).T,
                            need(p + "attn_k.weight", (kv, e)).T,
                            need(p + "attn_v.weight", (kv, e)).T,
                        ],
                        axis=1,
                    ),
                    "wo": need(p + "attn_output.weight", (e, hp.n_head * hd)).T.copy(),
                    "ffn_norm": need(p + "ffn_norm.weight", (e,)),
                    "w_gate_up": np.concatenate(
                        [
                            need(p + "ffn_gate.weight", (hp.n_ff, e)).T,
                            need(p + "ffn_up.weight", (hp.n_ff, e)).T,
                        ],
                        axis=1,
                    ),
                    "w_down": need(p + "ffn_down.weight", (e, hp.n_ff)).T.copy(),
                }
            )
        self.output_norm = need("output_norm.weight", (e,))
        out = weight("output.weight", (hp.n_vocab, e), required=False)
        self.output = (out if out is not None else self.tok_embd).T.copy()  # tied when absent
        self.rope_factors = weight("rope_freqs.weight", (hp.n_rot // 2,), required=False)

    # ------------------------------------------------------------------------------- forward pass
    def _rms(self, x: F32, w: F32) -> F32:
        scale = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.hp.eps)
        out: F32 = (x * scale.astype(np.float32)) * w
        return out

    @staticmethod
    def _same(x: F32) -> F32:
        return x

    @staticmethod
    def _q8(x: F32) -> F32:
        """``x`` rounded as llama.cpp rounds an activation before multiplying it by Q8_0 weights:
        blocks of 32 values, each an int8 times the block's float16 scale (max |x| / 127)."""
        blocks = x.reshape(*x.shape[:-1], -1, 32)
        amax = np.abs(blocks).max(axis=-1, keepdims=True)
        d = amax / np.float32(127.0)
        q = np.rint(blocks / np.where(d == 0, np.float32(1.0), d))
        out: F32 = (q * d.astype(np.float16).astype(np.float32)).reshape(x.shape)
        return out

    def _rope(self, x: F32, start: int) -> F32:
        """Rotate adjacent pairs (x0, x1), (x2, x3), … of the first n_rot dimensions; x: (heads, T, hd)."""
        t = x.shape[1]
        n_rot = self.hp.n_rot
        cos = self._cos[start : start + t]
        sin = self._sin[start : start + t]
        even, odd = x[..., 0:n_rot:2], x[..., 1:n_rot:2]
        out: F32 = x.copy()
        out[..., 0:n_rot:2] = even * cos - odd * sin
        out[..., 1:n_rot:2] = even * sin + odd * cos
        return out

    def _forward(self, tokens: Sequence[int], start: int) -> F32:
        """Run ``tokens`` at positions ``start``…, filling the cache; the logits of the last one."""
        hp = self.hp
        t = len(tokens)
        hd, group = hp.head_dim, hp.n_head // hp.n_head_kv
        nkv = hp.n_head_kv * hd
        end = start + t
        x = self.tok_embd[np.asarray(tokens, dtype=np.int64)]
        scale = np.float32(1.0 / math.sqrt(hd))
        mask: F32 | None = None
        if t > 1:
            causal = np.triu(np.ones((t, end), dtype=bool), k=start + 1)
            mask = np.where(causal, np.float32(-np.inf), np.float32(0.0)).astype(np.float32)
        for i, w in enumerate(self.layers):
            h = self._rms(x, w["attn_norm"])
            h = self._act(h)
            qkv = h @ w["wqkv"]
            nq = hp.n_head * hd
            q = qkv[:, :nq].reshape(t, hp.n_head, hd).transpose(1, 0, 2)
            k = qkv[:, nq : nq + nkv].reshape(t, hp.n_head_kv, hd).transpose(1, 0, 2)
            v = qkv[:, nq + nkv :].reshape(t, hp.n_head_kv, hd).transpose(1, 0, 2)
            q, k = self._rope(q, start), self._rope(k, start)
            # llama.cpp keeps keys and values as float16: the same rounding here
            self._k[i, :, start:end] = k.astype(np.float16)
            self._v[i, :, start:end] = v.astype(np.float16)
            keys, values = self._k[i, :, :end], self._v[i, :, :end]  # (kv heads, L, hd)
            qg = q.reshape(hp.n_head_kv, group * t, hd)
            scores = (qg @ keys.transpose(0, 2, 1)) * scale  # (kv heads, group*T, L)
            if mask is not None:
                scores = (scores.reshape(hp.n_head_kv, group, t, end) + mask).reshape(scores.shape)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            att = (scores @ values).reshape(hp.n_head, t, hd).transpose(1, 0, 2).reshape(t, hp.n_embd)
            x = x + self._act(att) @ w["wo"]
            h = self._act(self._rms(x, w["ffn_norm"]))
            gate_up = h @ w["w_gate_up"]
            gate, up = gate_up[:, : hp.n_ff], gate_up[:, hp.n_ff :]
            act = gate / (1.0 + np.exp(-gate)) * up
            x = x + self._act(act) @ w["w_down"]
        last = self._rms(x[-1:], self.output_norm)
        logits: F32 = (self._act(last) @ self.output)[0]
        return logits

    def eval(self, tokens: Sequence[int]) -> F32:
        """The logits after ``tokens``, reusing the cache for the prefix they share with the cached
        tokens (at least the last token is computed again, so there are logits to return)."""
        if not tokens:
            raise ValueError("no tokens to evaluate")
        if len(tokens) > self.n_ctx:
            raise ValueError(f"{len(tokens)} tokens do not fit the context of {self.n_ctx}")
        bad = [t for t in tokens if not 0 <= t < self.hp.n_vocab]
        if bad:
            raise ValueError(f"token id {bad[0]} is outside the vocabulary")
        same = 0
        for a, b in zip(self._cached, tokens, strict=False):
            if a != b:
                break
            same += 1
        if same == len(tokens) == len(self._cached) and self._logits is not None:
            return self._logits
        same = min(same, len(tokens) - 1)
        del self._cached[same:]
        logits = self._forward(tokens[same:], same)
        self._cached.extend(tokens[same:])
        self._logits = logits
        return logits

    @property
    def reused(self) -> int:
        """Tokens in the cache (for stats and tests)."""
        return len(self._cached)

    # ------------------------------------------------------------------------------------ sampling
    def generate(
        self,
        tokens: Sequence[int],
        *,
        temperature: float,
        top_p: float,
        top_k: int = 40,
        min_p: float = 0.05,
        repeat_penalty: float = 1.0,
        repeat_last_n: int = 64,
        seed: int | None = None,
    ) -> Iterator[int]:
        """Tokens after ``tokens``, one at a time, until the caller stops or the context is full.
        ``temperature <= 0``: greedy. Otherwise llama.cpp's chain: repeat penalty, top-k, top-p,
        min-p, temperature, a draw."""
        rng = np.random.default_rng(seed)
        context = list(tokens)
        logits = self.eval(context)
        while True:
            token = self._sample(
                logits, context, temperature, top_p, top_k, min_p, repeat_penalty, repeat_last_n, rng
            )
            yield token
            context.append(token)
            if len(context) >= self.n_ctx:
                return
            logits = self.eval(context)

    @staticmethod
    def _sample(
        logits: F32,
        context: list[int],
        temperature: float,
        top_p: float,
        top_k: int,
        min_p: float,
        repeat_penalty: float,
        repeat_last_n: int,
        rng: np.random.Generator,
    ) -> int:
        if repeat_penalty != 1.0 and context:
            logits = logits.copy()
            recent = np.unique(np.asarray(context[-repeat_last_n:], dtype=np.int64))
            picked = logits[recent]
            logits[recent] = np.where(picked > 0, picked / repeat_penalty, picked * repeat_penalty)
        if temperature <= 0:
            return int(np.argmax(logits))
        k = min(top_k, logits.size) if top_k > 0 else logits.size
        ids = np.argpartition(-logits, k - 1)[:k]
        ids = ids[np.argsort(-logits[ids], kind="stable")]
        top = logits[ids].astype(np.float64)
        probs = np.exp(top - top[0])
        probs /= probs.sum()
        if top_p < 1.0:
            keep = int(np.searchsorted(np.cumsum(probs), top_p) + 1)
            ids, top, probs = ids[:keep], top[:keep], probs[:keep]
        if min_p > 0:
            keep = int(np.sum(probs >= min_p * probs[0]))
            ids, top = ids[: max(keep, 1)], top[: max(keep, 1)]
        scaled = np.exp((top - top[0]) / temperature)
        return int(ids[rng.choice(len(ids), p=scaled / scaled.sum())])
