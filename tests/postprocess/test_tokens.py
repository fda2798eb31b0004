"""Every built-in prompt style's special tokens are known to the post-processor (or deliberately
left to the style because they may be real code)."""

from __future__ import annotations

from jupyter_codecomplete.postprocess import PostprocessContext, postprocess
from jupyter_codecomplete.postprocess.tokens import END_TOKENS, PAD_TOKENS
from jupyter_codecomplete.prompting import BUILTIN_STYLES

# may be code: handled only by the styles that name them
MAY_BE_CODE = {
    "</s>",  # HTML strike-through
    "<eos>",
    "<filename>",  # usage strings
    "<reponame>",
    "<repo_name>",
    "<PRE>",
    "<SUF>",
    "<MID>",
    "[PREFIX]",  # a list holding a constant
    "[SUFFIX]",
    "[MIDDLE]",
    "<COMPLETION>",
    "</COMPLETION>",
}


def test_every_style_token_is_known() -> None:
    known = {*END_TOKENS, *PAD_TOKENS}
    for style in BUILTIN_STYLES.values():
        tokens = {*style.stop, *style.eot, *(t.strip() for t in style.leftovers)}
        if style.fim is not None:
            tokens |= {style.fim.prefix.strip(), style.fim.suffix.strip(), style.fim.middle.strip()}
            if style.fim.pad:
                tokens.add(style.fim.pad)
        tokens.discard("")
        unknown = tokens - known - MAY_BE_CODE
        assert not unknown, (style.name, sorted(unknown))


def test_end_tokens_end_in_every_style() -> None:
    for token in END_TOKENS:
        ctx = PostprocessContext(language="python", prefix="x = ", suffix="\n")
        assert postprocess(ctx, ["1", token, "\ny = 2"]) == "1", token
    for token in PAD_TOKENS:
        ctx = PostprocessContext(language="python", prefix="x = ", suffix="\n")
        assert postprocess(ctx, [token, "1", token]) == "1", token
