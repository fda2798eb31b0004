from __future__ import annotations

from jupyter_codecomplete.postprocess.remove_tokens import LeftoverTokens

from .helpers import both


def test_leftover_tokens_removed_everywhere() -> None:
    assert both(lambda: LeftoverTokens(["<EOT>", "<|file_sep|>"]), "a<EOT>b<|file_sep|>c<EO") == "abc<EO"
