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
