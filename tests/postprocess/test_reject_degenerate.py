"""Degenerate output (what a tiny model writes when it loops) becomes no suggestion; ordinary code,
short closers and legitimate numbers pass. One row per case."""

from __future__ import annotations

import pytest

from jupyter_codecomplete.postprocess import PostprocessContext, is_degenerate, postprocess

DEGENERATE = [
    "name name name name",
    "self.self.self.self",
    "value, value, value, value",
    "os.path.path.path.path",
    "0x00, 0x01, 0x02, 0x03, 0x04",
    "1, 2, 3, 4, 5, 6",
    "= 0 0 0 0 0 0 0",
    "deadbeefdeadbeefdeadbeef",
    "00000000000000000000",
    "))))))",
    "...........",
    "= = = = =",
    "'', '', '', '',",
]

ORDINARY = [
    "",
    ")",
    "):",
    "]",
    "return a + b",
    "for i in range(10):",
    "self.name = name",
    "print(f'{x} {y}')",
    "x = np.zeros((3, 4))",
    "result = compute(a, b, c)",
    "colors = ['red', 'green', 'blue']",
    "port = 8080",
    "# sha: 3f2a9c0e1b4d5a6f7e8d9c0b1a2f3e4d",
    "if n < 2:",
]


@pytest.mark.parametrize("text", DEGENERATE)
def test_degenerate(text: str) -> None:
    assert is_degenerate(text)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary(text: str) -> None:
    assert not is_degenerate(text)


@pytest.mark.parametrize("chunking", [1, 1000])
def test_pipeline_drops_degenerate_only_when_asked(chunking: int) -> None:
    raw = "name name name name name\n"
    chunks = [raw[i : i + chunking] for i in range(0, len(raw), chunking)]
    asked = PostprocessContext(language="python", prefix="x = ", reject_degenerate=True)
    assert postprocess(asked, chunks) == ""
    plain = PostprocessContext(language="python", prefix="x = ")
    assert postprocess(plain, chunks) == "name name name name name"


@pytest.mark.parametrize("chunking", [1, 1000])
def test_pipeline_keeps_ordinary_whole(chunking: int) -> None:
    raw = "compute(a, b)\n"
    chunks = [raw[i : i + chunking] for i in range(0, len(raw), chunking)]
    ctx = PostprocessContext(language="python", prefix="x = ", reject_degenerate=True)
    assert postprocess(ctx, chunks) == "compute(a, b)"
