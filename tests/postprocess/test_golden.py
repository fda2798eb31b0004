"""Golden cases: each runs whole (its chunks) and split into single characters; same result."""

from __future__ import annotations

import pytest

from jupyter_codecomplete.postprocess import make_pipeline, postprocess

from .golden import GoldenCase, load_cases

CASES = load_cases()


def stream(case: GoldenCase, chunks: list[str]) -> tuple[str, list[str]]:
    """Drive the pipeline like the completion handler: returns (result, deltas)."""
    p = make_pipeline(case.context())
    deltas: list[str] = []
    for c in chunks:
        deltas.append(p.feed(c))
        if p.done:
            break
    deltas.append(p.finish(case.truncated))
    assert p.done
    assert p.feed("more") == "" and p.finish() == ""
    return "".join(deltas), deltas


# the failure classes of issue 14, one golden file each
CLASS_FILES = (
    "blocks",  # 1 unclosed blocks left behind
    "open_contexts",  # 2 open strings and brackets are multi-line contexts
    "suffix_repeat",  # 3 the suffix repeated
    "allman",  # 4 braces on their own line
    "block_openers",  # 5 a block opened at the end of a line
    "leading_newline",  # 6 output starting with a newline at the end of a line
    "spaces",  # 7 spaces
    "near_repetition",  # 8 near-repetition, truncated last line
    "family_tokens",  # 9 special tokens of every family
)


def test_enough_cases() -> None:
    assert len(CASES) >= 300
    names = [n for n, _ in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    languages = {c.language for _, c in CASES if c.language}
    assert len(languages) >= 12, sorted(languages)
    for stem in CLASS_FILES:
        in_class = [c for n, c in CASES if n.startswith(stem + ":")]
        assert len(in_class) >= 5, stem
        assert len({c.language for c in in_class}) >= 3, stem


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[n for n, _ in CASES])
def test_golden_whole(case: GoldenCase) -> None:
    result, _ = stream(case, case.chunks)
    assert result == case.expected
    assert postprocess(case.context(), case.chunks, case.truncated) == case.expected


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[n for n, _ in CASES])
def test_golden_single_chars(case: GoldenCase) -> None:
    raw = "".join(case.chunks)
    result, deltas = stream(case, list(raw))
    assert result == case.expected
    # streaming invariant: what was shown is always a prefix of the final suggestion
    shown = ""
    for d in deltas:
        shown += d
        assert case.expected.startswith(shown)
