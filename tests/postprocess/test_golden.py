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


def test_enough_cases() -> None:
    assert len(CASES) >= 80
    names = [n for n, _ in CASES]
    assert len(names) == len(set(names)), "duplicate case names"


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
