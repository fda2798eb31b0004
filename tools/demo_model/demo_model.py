"""Train, export and evaluate the bundled demo code model (a small demo that shows the mechanics).

One command does everything (deterministic for a given seed)::

    nice -n 15 python tools/demo_model/demo_model.py all

Steps (each is also a subcommand): ``data`` (split the CPython stdlib sources into train / held-out
files by seed), ``tokenizer`` (byte-level BPE with a Qwen2-style pre-tokenizer and Qwen2.5-Coder
special tokens), ``train`` (a small Llama-architecture model in PyTorch, with fill-in-the-middle and
repository-format samples), ``export`` (GGUF F16 and Q8_0 with the ``gguf`` package), ``eval``
(held-out next-line exact match / edit similarity through llama-cpp-python, tokens/s) and ``card``
(the JSON model card next to the shipped GGUF).

Intermediate files go to ``build/demo_model/`` (ignored by git); the shipped files are
``jupyter_codecomplete/models/codecomplete-demo.Q8_0.gguf`` and ``codecomplete-demo.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import sysconfig
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[2]
WORK = REPO / "build" / "demo_model"
MODELS = REPO / "jupyter_codecomplete" / "models"
GGUF_NAME = "codecomplete-demo.Q8_0.gguf"
CARD_NAME = "codecomplete-demo.json"
MODEL_NAME = "codecomplete-demo"

EOT = "<|endoftext|>"
FIM_PREFIX, FIM_MIDDLE = "<|fim_prefix|>", "<|fim_middle|>"
FIM_SUFFIX, FIM_PAD = "<|fim_suffix|>", "<|fim_pad|>"
REPO_NAME, FILE_SEP = "<|repo_name|>", "<|file_sep|>"
SPECIALS = [EOT, FIM_PREFIX, FIM_MIDDLE, FIM_SUFFIX, FIM_PAD, REPO_NAME, FILE_SEP]

# The pre-tokenizer regex of Qwen2 (llama.cpp knows it as pre-tokenizer "qwen2").
QWEN2_SPLIT = (
    r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


@dataclass
class Settings:
    seed: int = 1234
    heldout_fraction: float = 0.05
    vocab_size: int = 8192
    n_layer: int = 4
    n_embd: int = 256
    n_head: int = 8
    n_ff: int = 704  # a multiple of 32, so that every matrix row quantizes to Q8_0 blocks
    ctx: int = 1024
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    batch: int = 4
    steps: int = 1000
    lr: float = 2e-3
    min_lr_ratio: float = 0.1
    warmup: int = 40
    weight_decay: float = 0.05
    fim_rate: float = 0.5
    repo_rate: float = 0.25
    max_chars: int = 3600
    threads: int = 2
    eval_samples: int = 300


# ----------------------------------------------------------------------------------------------- data


def stdlib_files() -> list[tuple[str, str]]:
    """(relative path, text) of the CPython standard library's own modules, tests excluded."""
    root = Path(sysconfig.get_paths()["stdlib"])
    skip_dirs = {"site-packages", "__pycache__", "test", "tests", "idle_test", "dist-packages"}
    out: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in skip_dirs or part.startswith("test_") for part in rel.parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if len(text.strip()) < 200 or any(tok in text for tok in SPECIALS):
            continue
        out.append((rel.as_posix(), text.replace("\r\n", "\n")))
    return out


def split_files(s: Settings) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    files = stdlib_files()
    rng = random.Random(s.seed)
    order = list(range(len(files)))
    rng.shuffle(order)
    n_held = max(20, int(len(files) * s.heldout_fraction))
    held = sorted(order[:n_held])
    train = sorted(order[n_held:])
    return [files[i] for i in train], [files[i] for i in held]


def write_split(s: Settings) -> None:
    train, held = split_files(s)
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "split.json").write_text(
        json.dumps({"train": [p for p, _ in train], "heldout": [p for p, _ in held]}, indent=1)
    )
    chars = sum(len(t) for _, t in train)
    print(f"data: {len(train)} train files ({chars / 1e6:.1f} M chars), {len(held)} held-out files")


# ------------------------------------------------------------------------------------------ tokenizer


def train_tokenizer(s: Settings) -> None:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    train, _ = split_files(s)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=s.vocab_size,
        min_frequency=2,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator((t for _, t in train), trainer=trainer)
    WORK.mkdir(parents=True, exist_ok=True)
    tok.save(str(WORK / "tokenizer.json"))
    print(f"tokenizer: {tok.get_vocab_size()} tokens")


def load_tokenizer() -> Any:
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(WORK / "tokenizer.json"))


# ------------------------------------------------------------------------------------------- samples


def line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n" and i + 1 < len(text):
            starts.append(i + 1)
    return starts


def chunk(text: str, rng: random.Random, max_chars: int) -> str:
    """A window of ``text`` that starts at a line start (or the whole text when short)."""
    if len(text) <= max_chars:
        return text
    starts = line_starts(text)
    candidates = [p for p in starts if p <= len(text) - max_chars // 2] or [0]
    begin = rng.choice(candidates)
    end = min(len(text), begin + max_chars)
    nl = text.rfind("\n", begin, end)
    if nl > begin + max_chars // 2:
        end = nl + 1
    return text[begin:end]


def cursor_split(text: str, rng: random.Random) -> tuple[int, int]:
    """A (start, end) span to hide, biased towards what an editor cursor completes."""
    if rng.random() < 0.1:  # anywhere (rarely: mid-word starts teach the wrong habit for an editor)
        a, b = sorted(rng.randrange(len(text) + 1) for _ in range(2))
        return a, b
    starts = line_starts(text)
    li = rng.randrange(len(starts))
    line_start = starts[li]
    line_end = text.find("\n", line_start)
    line_end = len(text) if line_end < 0 else line_end
    line = text[line_start:line_end]
    indent = line_start + len(line) - len(line.lstrip(" \t"))
    r = rng.random()
    if r < 0.45:
        a = indent  # cursor after the indentation
    elif r < 0.6:
        a = line_start  # cursor at column 0
    else:
        a = rng.randint(indent, line_end)  # cursor inside the line
    n_lines = 1
    while rng.random() < 0.45 and li + n_lines < len(starts):
        n_lines += 1
    last = li + n_lines - 1
    b = text.find("\n", starts[last])
    b = len(text) if b < 0 else b
    if rng.random() < 0.02:
        b = a  # sometimes nothing is missing
    return a, max(a, b)


class SampleMaker:
    """Training/eval token sequences: plain, FIM (PSM) and repository-format samples."""

    def __init__(self, files: list[tuple[str, str]], s: Settings, tok: Any, seed: int) -> None:
        self.files = files
        self.s = s
        self.tok = tok
        self.rng = random.Random(seed)
        self.ids = {t: tok.token_to_id(t) for t in SPECIALS}
        groups: dict[str, list[int]] = {}
        for i, (path, _) in enumerate(files):
            groups.setdefault(path.split("/")[0] if "/" in path else "", []).append(i)
        self.packages = {k: v for k, v in groups.items() if k and len(v) >= 2}
        self.package_names = sorted(self.packages)

    def enc(self, text: str) -> list[int]:
        return list(self.tok.encode(text, add_special_tokens=False).ids)

    def fim_ids(self, text: str) -> list[int]:
        a, b = cursor_split(text, self.rng)
        i = self.ids
        return [
            i[FIM_PREFIX], *self.enc(text[:a]), i[FIM_SUFFIX], *self.enc(text[b:]),
            i[FIM_MIDDLE], *self.enc(text[a:b]), i[EOT],
        ]

    def plain_ids(self, text: str) -> list[int]:
        # Half the time, tokenize the text in two pieces at a cursor-like position, so the model
        # also sees the non-canonical token boundaries that an editor prompt ends with.
        if self.rng.random() < 0.5 and len(text) > 10:
            a, _ = cursor_split(text, self.rng)
            return [*self.enc(text[:a]), *self.enc(text[a:]), self.ids[EOT]]
        return [*self.enc(text), self.ids[EOT]]

    def repo_ids(self) -> list[int]:
        pkg = self.rng.choice(self.package_names)
        members = self.packages[pkg][:]
        self.rng.shuffle(members)
        members = members[: self.rng.randint(2, 4)]
        budget = self.s.max_chars
        ids = [self.ids[REPO_NAME], *self.enc(f"cpython-{pkg}\n")]
        for n, idx in enumerate(members):
            path, text = self.files[idx]
            last = n == len(members) - 1
            share = budget if last else max(300, budget // 3)
            content = text if len(text) <= share else chunk(text, self.rng, share)
            budget = max(300, budget - len(content))
            if not content.endswith("\n"):
                content += "\n"
            ids += [self.ids[FILE_SEP], *self.enc(path + "\n")]
            if last and self.rng.random() < 0.5:
                ids += self.fim_ids(content)[:-1]
            else:
                ids += self.enc(content)
        return [*ids, self.ids[EOT]]

    def sample(self) -> list[int]:
        r = self.rng.random()
        if r < self.s.repo_rate:
            return self.repo_ids()
        _, text = self.files[self.rng.randrange(len(self.files))]
        text = chunk(text, self.rng, self.s.max_chars)
        if r < self.s.repo_rate + self.s.fim_rate:
            return self.fim_ids(text)
        return self.plain_ids(text)

    def stream(self, length: int) -> Iterator[list[int]]:
        """Packed windows of ``length`` tokens."""
        buf: list[int] = []
        while True:
            while len(buf) < length:
                buf += self.sample()
            yield buf[:length]
            buf = buf[length:]


# --------------------------------------------------------------------------------------------- model


def build_model(s: Settings) -> Any:
    import torch
    from torch import nn
    from torch.nn import functional as F

    class RMSNorm(nn.Module):
        def __init__(self, dim: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + s.norm_eps) * self.weight

    head_dim = s.n_embd // s.n_head

    def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        # Rotate ADJACENT pairs (x0, x1), (x2, x3), ... as llama.cpp's "normal" RoPE does for the
        # llama architecture, so the export needs no Q/K permutation.
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn_norm = RMSNorm(s.n_embd)
            self.wq = nn.Linear(s.n_embd, s.n_embd, bias=False)
            self.wk = nn.Linear(s.n_embd, s.n_embd, bias=False)
            self.wv = nn.Linear(s.n_embd, s.n_embd, bias=False)
            self.wo = nn.Linear(s.n_embd, s.n_embd, bias=False)
            self.ffn_norm = RMSNorm(s.n_embd)
            self.w_gate = nn.Linear(s.n_embd, s.n_ff, bias=False)
            self.w_up = nn.Linear(s.n_embd, s.n_ff, bias=False)
            self.w_down = nn.Linear(s.n_ff, s.n_embd, bias=False)

        def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
            b, t, _ = x.shape
            h = self.attn_norm(x)
            q = self.wq(h).view(b, t, s.n_head, head_dim).transpose(1, 2)
            k = self.wk(h).view(b, t, s.n_head, head_dim).transpose(1, 2)
            v = self.wv(h).view(b, t, s.n_head, head_dim).transpose(1, 2)
            q, k = rope(q, cos, sin), rope(k, cos, sin)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.wo(a.transpose(1, 2).reshape(b, t, s.n_embd))
            h = self.ffn_norm(x)
            return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))

    class Llama(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok_embd = nn.Embedding(s.vocab_size, s.n_embd)
            self.blocks = nn.ModuleList(Block() for _ in range(s.n_layer))
            self.norm = RMSNorm(s.n_embd)
            self.output = nn.Linear(s.n_embd, s.vocab_size, bias=False)
            inv = 1.0 / (s.rope_theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
            ang = torch.outer(torch.arange(s.ctx).float(), inv)
            self.register_buffer("cos", ang.cos(), persistent=False)
            self.register_buffer("sin", ang.sin(), persistent=False)
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    residual = name.endswith(("wo.weight", "w_down.weight"))
                    std = 0.02 / math.sqrt(2 * s.n_layer) if residual else 0.02
                    nn.init.normal_(p, std=std)

        def forward(self, idx: torch.Tensor) -> torch.Tensor:
            t = idx.shape[1]
            x = self.tok_embd(idx)
            cos, sin = self.cos[:t], self.sin[:t]
            for blk in self.blocks:
                x = blk(x, cos, sin)
            return self.output(self.norm(x))

    return Llama()


def train(s: Settings) -> None:
    import torch
    from torch.nn import functional as F

    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    tok = load_tokenizer()
    train_files, held_files = split_files(s)
    model = build_model(s)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params / 1e6:.2f} M parameters", flush=True)
    decay = [p for p in model.parameters() if p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": s.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=s.lr,
        betas=(0.9, 0.95),
    )
    stream = SampleMaker(train_files, s, tok, s.seed).stream(s.ctx + 1)

    def lr_at(step: int) -> float:
        if step < s.warmup:
            return s.lr * (step + 1) / s.warmup
        frac = (step - s.warmup) / max(1, s.steps - s.warmup)
        return s.lr * (s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * frac)))

    t0 = time.time()
    tokens = 0
    for step in range(s.steps):
        batch = torch.tensor([next(stream) for _ in range(s.batch)], dtype=torch.long)
        x, y = batch[:, :-1], batch[:, 1:]
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = F.cross_entropy(model(x).reshape(-1, s.vocab_size), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens += x.numel()
        if step % 10 == 0 or step == s.steps - 1:
            el = time.time() - t0
            print(f"step {step} loss {loss.item():.3f} lr {lr_at(step):.2e} {tokens / el:.0f} tok/s "
                  f"{el / 60:.1f} min", flush=True)
        if (step + 1) % 100 == 0 or step == s.steps - 1:
            torch.save({"settings": asdict(s), "model": model.state_dict(), "step": step + 1},
                       WORK / "model.pt")
    train_s = time.time() - t0
    losses = eval_loss(model, s, tok, held_files)
    info = {"train_seconds": round(train_s), "train_tokens": tokens, "parameters": n_params, **losses}
    (WORK / "train_info.json").write_text(json.dumps(info, indent=1))
    print("train:", info, flush=True)


def eval_loss(model: Any, s: Settings, tok: Any, held: list[tuple[str, str]]) -> dict[str, float]:
    """Held-out cross-entropy on plain and on FIM samples (fixed seed, 16 windows each)."""
    import torch
    from torch.nn import functional as F

    out: dict[str, float] = {}
    model.eval()
    for kind, fim in (("plain", 0.0), ("fim", 1.0)):
        es = Settings(**{**asdict(s), "fim_rate": fim, "repo_rate": 0.0})
        maker = SampleMaker(held, es, tok, s.seed + 1)
        if fim == 0.0:
            maker.plain_ids = lambda text, m=maker: [*m.enc(text), m.ids[EOT]]  # type: ignore[method-assign]
        stream = maker.stream(s.ctx + 1)
        total = 0.0
        with torch.no_grad():
            for _ in range(4):
                batch = torch.tensor([next(stream) for _ in range(4)], dtype=torch.long)
                logits = model(batch[:, :-1])
                total += F.cross_entropy(logits.reshape(-1, s.vocab_size), batch[:, 1:].reshape(-1)).item()
        out[f"heldout_loss_{kind}"] = round(total / 4, 3)
    model.train()
    return out


# -------------------------------------------------------------------------------------------- export


def export(s: Settings) -> None:
    import gguf
    import numpy as np
    import torch

    ckpt = torch.load(WORK / "model.pt", map_location="cpu")
    s = Settings(**ckpt["settings"])
    sd = {k: v.float().numpy() for k, v in ckpt["model"].items()}
    tok_json = json.loads((WORK / "tokenizer.json").read_text())
    vocab: dict[str, int] = tok_json["model"]["vocab"]
    for added in tok_json["added_tokens"]:
        vocab[added["content"]] = added["id"]
    tokens = [""] * len(vocab)
    for text, idx in vocab.items():
        tokens[idx] = text
    assert all(tokens) and len(tokens) == s.vocab_size, "vocabulary has holes"
    merges = [m if isinstance(m, str) else " ".join(m) for m in tok_json["model"]["merges"]]
    ttypes = [
        gguf.TokenType.CONTROL if t in SPECIALS else gguf.TokenType.NORMAL for t in tokens
    ]
    ids = {t: vocab[t] for t in SPECIALS}

    for ftype, qtype, name in (
        (gguf.LlamaFileType.MOSTLY_F16, gguf.GGMLQuantizationType.F16, "codecomplete-demo.F16.gguf"),
        (gguf.LlamaFileType.MOSTLY_Q8_0, gguf.GGMLQuantizationType.Q8_0, GGUF_NAME),
    ):
        path = WORK / name
        w = gguf.GGUFWriter(str(path), "llama")
        w.add_name(MODEL_NAME)
        w.add_description(
            "A small demo code model of jupyter_codecomplete that shows the mechanics (FIM, repository "
            "prompts, streaming); trained for minutes on CPython standard library sources. Not useful "
            "for real work: use a real code model."
        )
        w.add_license("PSF-2.0 (training data) / BSD-3-Clause (code)")
        w.add_context_length(s.ctx)
        w.add_embedding_length(s.n_embd)
        w.add_block_count(s.n_layer)
        w.add_feed_forward_length(s.n_ff)
        w.add_head_count(s.n_head)
        w.add_head_count_kv(s.n_head)
        w.add_layer_norm_rms_eps(s.norm_eps)
        w.add_rope_dimension_count(s.n_embd // s.n_head)
        w.add_rope_freq_base(s.rope_theta)
        w.add_vocab_size(s.vocab_size)
        w.add_file_type(ftype)
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("qwen2")
        w.add_token_list(tokens)
        w.add_token_types(ttypes)
        w.add_token_merges(merges)
        w.add_bos_token_id(ids[EOT])
        w.add_eos_token_id(ids[EOT])
        w.add_eot_token_id(ids[EOT])
        w.add_pad_token_id(ids[EOT])
        w.add_add_bos_token(False)
        w.add_add_eos_token(False)
        w.add_add_space_prefix(False)
        w.add_uint32(gguf.Keys.Tokenizer.FIM_PRE_ID, ids[FIM_PREFIX])
        w.add_uint32(gguf.Keys.Tokenizer.FIM_SUF_ID, ids[FIM_SUFFIX])
        w.add_uint32(gguf.Keys.Tokenizer.FIM_MID_ID, ids[FIM_MIDDLE])
        w.add_uint32(gguf.Keys.Tokenizer.FIM_PAD_ID, ids[FIM_PAD])
        w.add_uint32(gguf.Keys.Tokenizer.FIM_REP_ID, ids[REPO_NAME])
        w.add_uint32(gguf.Keys.Tokenizer.FIM_SEP_ID, ids[FILE_SEP])
        w.add_quantization_version(gguf.GGML_QUANT_VERSION)

        def put(gname: str, arr: np.ndarray, w: Any = w, qtype: Any = qtype) -> None:
            if arr.ndim == 2 and qtype == gguf.GGMLQuantizationType.Q8_0:
                w.add_tensor(gname, gguf.quants.quantize(arr, qtype), raw_dtype=qtype)
            elif arr.ndim == 2:
                w.add_tensor(gname, arr.astype(np.float16))
            else:  # norms stay F32
                w.add_tensor(gname, arr.astype(np.float32))

        put("token_embd.weight", sd["tok_embd.weight"])
        for i in range(s.n_layer):
            p = f"blocks.{i}."
            put(f"blk.{i}.attn_norm.weight", sd[p + "attn_norm.weight"])
            put(f"blk.{i}.attn_q.weight", sd[p + "wq.weight"])
            put(f"blk.{i}.attn_k.weight", sd[p + "wk.weight"])
            put(f"blk.{i}.attn_v.weight", sd[p + "wv.weight"])
            put(f"blk.{i}.attn_output.weight", sd[p + "wo.weight"])
            put(f"blk.{i}.ffn_norm.weight", sd[p + "ffn_norm.weight"])
            put(f"blk.{i}.ffn_gate.weight", sd[p + "w_gate.weight"])
            put(f"blk.{i}.ffn_up.weight", sd[p + "w_up.weight"])
            put(f"blk.{i}.ffn_down.weight", sd[p + "w_down.weight"])
        put("output_norm.weight", sd["norm.weight"])
        put("output.weight", sd["output.weight"])
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        print(f"export: {path} {path.stat().st_size / 1e6:.1f} MB")
    MODELS.mkdir(parents=True, exist_ok=True)
    (MODELS / GGUF_NAME).write_bytes((WORK / GGUF_NAME).read_bytes())


# ---------------------------------------------------------------------------------------------- eval


def edit_similarity(a: str, b: str) -> float:
    if not a and not b:
        return 1.0
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return 1.0 - prev[-1] / max(len(a), len(b))


def eval_cases(s: Settings, n: int) -> list[tuple[str, str, str]]:
    """(prefix up to the cursor after the line's indentation, expected rest of the line, suffix)."""
    _, held = split_files(s)
    rng = random.Random(s.seed + 7)
    cases: list[tuple[str, str, str]] = []
    while len(cases) < n:
        _, text = held[rng.randrange(len(held))]
        lines = text.split("\n")
        li = rng.randrange(1, len(lines))
        line = lines[li]
        body = line.lstrip(" \t")
        if len(body) < 4 or body.startswith("#"):
            continue
        before = "\n".join(lines[:li]) + "\n" + line[: len(line) - len(body)]
        after = "\n" + "\n".join(lines[li + 1 :])
        cases.append((before, body, after))
    return cases


def evaluate(s: Settings, model_path: Path) -> dict[str, Any]:
    from llama_cpp import Llama

    llm = Llama(model_path=str(model_path), n_ctx=s.ctx, n_threads=s.threads, verbose=False, seed=s.seed)
    cases = eval_cases(s, s.eval_samples)
    budget = s.ctx - 48

    def trim_prefix(text: str, limit: int) -> list[int]:
        return llm.tokenize(text[-limit * 6 :].encode(), add_bos=False, special=False)[-limit:]

    def trim_suffix(text: str, limit: int) -> list[int]:
        return llm.tokenize(text[: limit * 6].encode(), add_bos=False, special=False)[:limit]

    def special(tok: str) -> int:
        return llm.tokenize(tok.encode(), add_bos=False, special=True)[0]

    pre, suf, mid = special(FIM_PREFIX), special(FIM_SUFFIX), special(FIM_MIDDLE)
    results: dict[str, Any] = {}
    gen_tokens = 0
    gen_seconds = 0.0
    # healed: drop the indentation the prompt ends with (spaces/tabs after the last newline) and expect
    # the model to write it; healed_all: drop every trailing whitespace character, newlines included.
    for mode in ("plain", "plain_healed", "plain_healed_all", "fim", "fim_healed"):
        exact = 0
        sim = 0.0
        for before, expected, after in cases:
            if mode.endswith("healed_all"):
                prompt_text = before.rstrip()
            elif mode.endswith("healed"):
                prompt_text = before.rstrip(" \t")
            else:
                prompt_text = before
            removed = before[len(prompt_text) :]
            if mode.startswith("fim"):
                prompt = [pre, *trim_prefix(prompt_text, budget * 2 // 3), suf,
                          *trim_suffix(after, budget // 3), mid]
            else:
                prompt = trim_prefix(prompt_text, budget)
            t0 = time.perf_counter()
            out = llm.create_completion(prompt, max_tokens=32, temperature=0.0, repeat_penalty=1.0,
                                        stop=[EOT])
            gen_seconds += time.perf_counter() - t0
            gen_tokens += out["usage"]["completion_tokens"]
            text = out["choices"][0]["text"]
            if removed:
                text = text[len(removed) :] if text.startswith(removed) else ""
            got = text.split("\n")[0].rstrip()
            exact += got == expected.rstrip()
            sim += edit_similarity(got, expected.rstrip())
        results[mode] = {"exact_match": round(exact / len(cases), 3),
                         "edit_similarity": round(sim / len(cases), 3)}
        print(f"eval {mode}: {results[mode]}", flush=True)
    # Throughput: a longer free generation from a code prompt (greedy, no stop).
    speed_prompt = "import os\n\n\ndef main(argv):\n"
    t0 = time.perf_counter()
    for _ in llm.create_completion(speed_prompt, max_tokens=8, temperature=0.0, stream=True):
        break
    results["first_token_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    t0 = time.perf_counter()
    out = llm.create_completion(speed_prompt, max_tokens=256, temperature=0.0, repeat_penalty=1.0)
    elapsed = time.perf_counter() - t0
    results["tokens_per_second_in_process"] = round(out["usage"]["completion_tokens"] / elapsed)
    results["eval_tokens_per_second_with_prompts"] = round(gen_tokens / gen_seconds)
    results["example"] = speed_prompt + out["choices"][0]["text"][:400]
    # The same through the embedded backend (worker thread + queue), as the extension runs it.
    sys.path.insert(0, str(REPO))
    from jupyter_codecomplete.backends.embedded import EmbeddedLlamaLLM

    backend = EmbeddedLlamaLLM(
        model_path=str(model_path), temperature=0.0, max_tokens=256, engine="llama.cpp"
    )
    backend.shared.engine(timeout=120)
    t0 = time.perf_counter()
    first_chunk: float | None = None
    for _ in backend.stream(speed_prompt):
        first_chunk = first_chunk if first_chunk is not None else time.perf_counter() - t0
    backend_total = time.perf_counter() - t0
    results["tokens_per_second_backend"] = round(backend.shared.history[-1].tokens / backend_total)
    results["first_chunk_ms_backend"] = round((first_chunk or 0.0) * 1000, 1)
    results["samples"] = len(cases)
    return results


NOTES = [
    "Token healing: drop only the indentation a prompt ends with (spaces/tabs after the last newline); "
    "with the Qwen2 pre-tokenizer a prompt ending right after the newline is tokenized as in training.",
    "Infill works mechanically (FIM tokens, stops) but this demo model did not learn where the cursor is; "
    "completion (prefix-only) prompts give it better text. Real code models do both.",
]


def write_card(s: Settings, results: dict[str, Any]) -> None:
    info = json.loads((WORK / "train_info.json").read_text()) if (WORK / "train_info.json").exists() else {}
    path = MODELS / GGUF_NAME
    card = {
        "name": MODEL_NAME,
        "file": GGUF_NAME,
        "description": "A small demo code model that shows the mechanics of jupyter_codecomplete "
        "(FIM, repository prompts, streaming, cancellation). Trained for "
        f"{info.get('train_seconds', 0) // 60} minutes on 2 shared CPU cores; its completions are "
        "Python-shaped but rarely right. Configure a real code model for real work.",
        "architecture": "llama",
        "prompt_style": "qwen2.5-coder",
        "size_bytes": path.stat().st_size,
        "quantization": "Q8_0",
        "training_data": "CPython standard library sources (PSF-2.0), tests excluded; held-out files "
        "split by seed",
        "settings": asdict(s),
        "training": info,
        "eval": {
            "task": "held-out next line: prompt = file up to the cursor after a line's indentation, "
            "greedy, 32 tokens max, compare the first line of the output with the rest of that line",
            "token_healing": "*_healed: the indentation the prompt ends with is dropped from the prompt "
            "and must open the output, where it is stripped (an output not opening with it counts as "
            "empty); *_healed_all: every trailing whitespace character, newlines included, the same way",
            **results,
        },
        "notes": NOTES,
        "retrain": "python tools/demo_model/demo_model.py all",
    }
    (MODELS / CARD_NAME).write_text(json.dumps(card, indent=1) + "\n")
    print(f"card: {MODELS / CARD_NAME}")


# ---------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=["data", "tokenizer", "train", "export", "eval", "all"])
    for field, value in asdict(Settings()).items():
        ap.add_argument(f"--{field.replace('_', '-')}", type=type(value), default=value)
    args = ap.parse_args(argv)
    s = Settings(**{f: getattr(args, f) for f in asdict(Settings())})
    steps = ["data", "tokenizer", "train", "export", "eval"] if args.step == "all" else [args.step]
    for step in steps:
        if step == "data":
            write_split(s)
        elif step == "tokenizer":
            train_tokenizer(s)
        elif step == "train":
            train(s)
        elif step == "export":
            export(s)
        elif step == "eval":
            results = evaluate(s, MODELS / GGUF_NAME)
            write_card(s, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
