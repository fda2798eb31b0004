"""Property tests.

Claims (checked below):

1. The pipeline never raises, for any context and any chunking.
2. The result does not depend on how the output is split into chunks.
3. Streaming: every delta extends what was shown before; the concatenation is the result.
4. The result contains no stop sequence and has no trailing whitespace, except spaces before the
   rest of the cursor's line (a mid-line insertion keeps ``error, `` before ``message);``).
5. For a context without ``heal`` and ``leftovers``, and raw output without ``\\r`` and without
   backticks (so no fences): the result is a prefix of ``raw[k:]`` where ``raw[:k]`` is empty or an
   echo of the prefix (a tail of the prefix that starts at a line start), or spaces after a prefix
   that ends with a space.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_codecomplete.postprocess import PostprocessContext, make_pipeline, postprocess

LANGS = ["python", "r", "julia", "sql", "javascript", "typescript", "markdown", "shell", None, "cobol"]
BASE_CHARS = list("abcxyz019 _=+-*/.,:;#%!'\"()[]{}\n\t")
CODE_ALPHABET = [*BASE_CHARS, "    ", "def ", "end", "<E", "OT>", "\r\n", "`", "```python\n", "```"]
SAFE_ALPHABET = [*BASE_CHARS, "    ", "def ", "end", "else:", "<E", "OT>"]

texts = st.lists(st.sampled_from(CODE_ALPHABET), max_size=40).map("".join)
safe_texts = st.lists(st.sampled_from(SAFE_ALPHABET), max_size=40).map("".join)

contexts = st.builds(
    PostprocessContext,
    language=st.sampled_from(LANGS),
    prefix=texts,
    suffix=texts,
    stop=st.lists(st.sampled_from(["<EOT>", "\n\n", "}", "<|endoftext|>", "x"]), max_size=3),
    leftovers=st.lists(st.sampled_from(["<EOT>", "<think>...</think>", "end"]), max_size=2),
    heal=st.sampled_from(["", " ", "\n    ", "\n"]),
    multiline=st.sampled_from([None, True, False]),
    max_lines=st.sampled_from([None, 1, 3]),
)


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    out, last = [], 0
    for p in points:
        out.append(text[last:p])
        last = p
    out.append(text[last:])
    return out


def deltas_of(ctx: PostprocessContext, chunks: list[str]) -> list[str]:
    p = make_pipeline(ctx)
    out = []
    for c in chunks:
        out.append(p.feed(c))
        if p.done:
            break
    out.append(p.finish())
    return out


@settings(max_examples=300, deadline=None)
@given(ctx=contexts, raw=texts, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_never_raises_and_chunking_does_not_matter(
    ctx: PostprocessContext, raw: str, cuts: list[int]
) -> None:
    whole = postprocess(ctx, [raw])
    assert postprocess(ctx, split(raw, cuts)) == whole
    assert postprocess(ctx, list(raw)) == whole


@settings(max_examples=300, deadline=None)
@given(ctx=contexts, raw=texts, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_streaming_invariant(ctx: PostprocessContext, raw: str, cuts: list[int]) -> None:
    deltas = deltas_of(ctx, split(raw, cuts))
    result = "".join(deltas)
    assert result == postprocess(ctx, [raw])
    tail = result[len(result.rstrip()) :]
    rest = ctx.suffix.replace("\r\n", "\n").split("\n", 1)[0]
    assert not tail or (not tail.strip(" \t") and rest[:1] not in ("", *" \t)]},;:.") and "\n" not in result)
    for s in ctx.stop:
        assert s not in result.replace("\r\n", "\n")


def echo_offsets(prefix: str, raw: str) -> list[int]:
    starts = [0] + [i + 1 for i, c in enumerate(prefix) if c == "\n"]
    return [0] + [len(prefix) - s for s in starts if raw.startswith(prefix[s:])]


@settings(max_examples=400, deadline=None)
@given(
    language=st.sampled_from(LANGS),
    prefix=safe_texts,
    suffix=safe_texts,
    raw=safe_texts,
    stop=st.lists(st.sampled_from(["<EOT>", "\n\n", "}", "x"]), max_size=2),
    multiline=st.sampled_from([None, True, False]),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_result_is_prefix_of_output(
    language: str | None,
    prefix: str,
    suffix: str,
    raw: str,
    stop: list[str],
    multiline: bool | None,
    cuts: list[int],
) -> None:
    ctx = PostprocessContext(language=language, prefix=prefix, suffix=suffix, stop=stop, multiline=multiline)
    result = postprocess(ctx, split(raw, cuts))
    starts = [raw[k:] for k in echo_offsets(prefix, raw)]
    if prefix.endswith((" ", "\t")):
        starts += [t.lstrip(" \t") for t in starts]
    assert any(t.startswith(result) for t in starts), (result, raw)
