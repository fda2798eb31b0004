"""Token healing at the cursor.

A cursor after a newline or inside indentation leaves the prompt ending in whitespace that the
model's tokenizer would have merged with the next token (``"\\n    return"`` is one or two tokens in
code tokenizers, ``"\\n    "`` alone is a rare, badly-trained one). We move that whitespace out of
the prompt; the model then writes it itself, and the post-processor strips it (``BuiltPrompt.heal``)
from the start of the output.
"""

from __future__ import annotations

_WS = " \t\r\n\f\v"


def split_heal(prefix: str) -> tuple[str, str]:
    """``(prompt_prefix, heal)`` with ``prompt_prefix + heal == prefix``.

    ``heal`` is the trailing whitespace when the cursor's line holds only whitespace (the whitespace
    contains a newline, or it is all of ``prefix``); otherwise ``""`` (a space after code, as in
    ``x = ``, is left alone).
    """
    kept = prefix.rstrip(_WS)
    tail = prefix[len(kept) :]
    if tail and ("\n" in tail or not kept):
        return kept, tail
    return prefix, ""
