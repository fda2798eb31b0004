"""The special tokens of every model family, removed whatever prompt style serves the model.

A vLLM model served as "coder" gets the raw style; its output still carries its family's tokens.
They never belong in code, so every pipeline handles them:

- :data:`END_TOKENS` end the suggestion (end of text, end of turn, a file or FIM separator: what
  follows belongs to another file or turn);
- :data:`PAD_TOKENS` are removed wherever they appear;
- :data:`THINK_BLOCKS` (reasoning models) are removed with their content.

Tokens that may be real code (``</s>`` in HTML, ``<filename>`` in a usage string, ``[PREFIX]`` as a
list, ``<PRE>``) are not here: only the style that names them as stops handles them. A test checks
that every built-in prompt style's special token is here or deliberately left out.
"""

from __future__ import annotations

import functools
import re

from .base import Filter

END_TOKENS: tuple[str, ...] = (
    # GPT-2 / StarCoder / Qwen / CodeGeeX end of text; Granite 3.x/4.x end of text and chat roles
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|start_of_role|>",
    "<|end_of_role|>",
    # Qwen2.5-Coder, Qwen3-Coder (repository and FIM tokens, ChatML)
    "<|file_sep|>",
    "<|repo_name|>",
    "<|fim_prefix|>",
    "<|fim_suffix|>",
    "<|fim_middle|>",
    "<|im_start|>",
    "<|im_end|>",
    # StarCoder2, CodeQwen1.5, stable-code, Granite (StarCoder tokenizer)
    "<file_sep>",
    "<fim_prefix>",
    "<fim_suffix>",
    "<fim_middle>",
    # CodeGemma / Gemma
    "<|file_separator|>",
    "<end_of_turn>",
    "<start_of_turn>",
    # DeepSeek-Coder (full-width bars, U+2581 in the names)
    "<｜end▁of▁sentence｜>",
    "<｜fim▁begin｜>",
    "<｜fim▁hole｜>",
    "<｜fim▁end｜>",
    "<|EOT|>",
    # Code Llama
    "<EOT>",
    # Llama 3, Phi
    "<|eot_id|>",
    "<|end|>",
    # Seed-Coder
    "<[end▁of▁sentence]>",
    "<[fim-prefix]>",
    "<[fim-suffix]>",
    "<[fim-middle]>",
    # CodeGeeX4
    "<|code_prefix|>",
    "<|code_suffix|>",
    "<|code_middle|>",
    "<|user|>",
    "<|assistant|>",
    "<|observation|>",
)

PAD_TOKENS: tuple[str, ...] = ("<fim_pad>", "<|fim_pad|>")

THINK_BLOCKS: tuple[tuple[str, str], ...] = (("<think>", "</think>"),)


@functools.lru_cache(maxsize=32)
def _compiled(
    ends: tuple[str, ...], pads: tuple[str, ...]
) -> tuple[re.Pattern[str], frozenset[str], frozenset[str], int]:
    tokens = sorted({*ends, *pads}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(t) for t in tokens))
    partials = frozenset(t[:k] for t in tokens for k in range(1, len(t)))
    return pattern, frozenset(ends), partials, max(len(t) for t in tokens)


class KnownTokens(Filter):
    """End at the first end token; remove pad tokens. Cheap when the text has no ``<``."""

    stage = "text"

    def __init__(self, ends: tuple[str, ...] = END_TOKENS, pads: tuple[str, ...] = PAD_TOKENS) -> None:
        super().__init__()
        self._re, self._ends, self._partials, self._longest = _compiled(ends, pads)
        self._buf = ""

    def feed(self, text: str) -> str:
        if self.done:
            return ""
        buf = self._buf + text
        self._buf = ""
        if "<" not in buf:
            return buf
        out: list[str] = []
        pos = 0
        for m in self._re.finditer(buf):
            out.append(buf[pos : m.start()])
            if m.group() in self._ends:
                self.done = True
                return "".join(out)
            pos = m.end()
        rest = buf[pos:]
        i = rest.rfind("<", max(0, len(rest) - self._longest))
        if i >= 0 and rest[i:] in self._partials:
            self._buf = rest[i:]
            rest = rest[:i]
        out.append(rest)
        return "".join(out)

    def finish(self) -> str:
        if self.done:
            return ""
        self.done = True
        out, self._buf = self._buf, ""
        return out
