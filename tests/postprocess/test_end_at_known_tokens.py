from __future__ import annotations

from jupyter_codecomplete.postprocess.end_at_known_tokens import KnownTokens

from .helpers import both, run


def test_an_end_token_ends_the_suggestion() -> None:
    assert both(KnownTokens, "return a + b\n<|file_sep|>test.py\nmore") == "return a + b\n"
    f = KnownTokens()
    f.feed("x = 1<|endoftext|>y")
    assert f.done


def test_pad_tokens_are_removed_wherever_they_are() -> None:
    assert both(KnownTokens, "x<|fim_pad|> = 1<fim_pad>") == "x = 1"


def test_a_possible_token_start_is_held_then_released() -> None:
    f = KnownTokens()
    assert f.feed("a <|file") == "a "
    assert f.feed("s|> b") == "<|files|> b"
    assert both(KnownTokens, "if a < b:") == "if a < b:"


def test_only_the_tokens_passed_are_known() -> None:
    out, _ = run(KnownTokens(ends=("<END>",), pads=()), ["a<|endoftext|>b<END>c"])
    assert out == "a<|endoftext|>b"
