from __future__ import annotations

from jupyter_codecomplete.postprocess.remove_blocks import LeftoverBlocks

from .helpers import both


def test_leftover_blocks() -> None:
    make = lambda: LeftoverBlocks([("<think>", "</think>")])  # noqa: E731
    assert both(make, "<think>x</think>\n\ncode") == "code"
    assert both(make, "a<think>x</think>b<think>y") == "ab"
    assert both(make, "no block <thin") == "no block <thin"
