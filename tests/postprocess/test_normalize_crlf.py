from __future__ import annotations

from jupyter_codecomplete.postprocess.normalize_crlf import CrlfNormalize

from .helpers import run


def test_crlf_normalize_split_pair() -> None:
    out, _ = run(CrlfNormalize(), ["a\r", "\nb\r"])
    assert out == "a\nb\r"
