from __future__ import annotations

from jupyter_codecomplete.postprocess.textfilters import (
    CrlfNormalize,
    Heal,
    LeftoverBlocks,
    LeftoverTokens,
    LineEnding,
    Sentence,
    StopSequences,
    TrailingWhitespace,
    partial_tail,
)

from .helpers import both, run


def test_partial_tail() -> None:
    assert partial_tail("abc<|end", "<|endoftext|>") == 5
    assert partial_tail("abc", "<|endoftext|>") == 0
    assert partial_tail("a<", "<<x") == 1
    assert partial_tail("a<<", "<<x") == 2
    assert partial_tail("", "<x") == 0
    assert partial_tail("x<", "<") == 0  # a whole one-char needle is a match, not a partial


def test_stop_holds_possible_start_then_releases() -> None:
    f = StopSequences(["<EOT>"])
    assert f.feed("abc<E") == "abc"
    assert f.feed("x") == "<Ex"
    assert not f.done


def test_stop_cuts_across_chunks_and_is_done() -> None:
    f = StopSequences(["<EOT>", "\n\n"])
    assert f.feed("abc<E") == "abc"
    assert f.feed("OT>tail") == ""
    assert f.done
    assert f.finish() == ""


def test_stop_earliest_wins() -> None:
    assert both(lambda: StopSequences(["bb", "a"]), "xxbbya") == "xx"


def test_stop_empty_strings_ignored() -> None:
    assert both(lambda: StopSequences(["", "z"]), "abc") == "abc"


def test_leftover_tokens_removed_everywhere() -> None:
    assert both(lambda: LeftoverTokens(["<EOT>", "<|file_sep|>"]), "a<EOT>b<|file_sep|>c<EO") == "abc<EO"


def test_leftover_blocks() -> None:
    make = lambda: LeftoverBlocks([("<think>", "</think>")])  # noqa: E731
    assert both(make, "<think>x</think>\n\ncode") == "code"
    assert both(make, "a<think>x</think>b<think>y") == "ab"
    assert both(make, "no block <thin") == "no block <thin"


def test_heal() -> None:
    assert both(lambda: Heal("\n    "), "\n    return") == "return"
    assert both(lambda: Heal("\n    "), "\n  return") == "return"
    assert both(lambda: Heal("\n    "), "return") == "return"
    assert both(lambda: Heal(" "), " ") == ""


def test_crlf_normalize_split_pair() -> None:
    out, _ = run(CrlfNormalize(), ["a\r", "\nb\r"])
    assert out == "a\nb\r"


def test_line_ending() -> None:
    assert LineEnding("\r\n").feed("a\nb\n") == "a\r\nb\r\n"


def test_trailing_whitespace_held_and_dropped() -> None:
    f = TrailingWhitespace()
    assert f.feed("a  \n") == "a"
    assert f.feed("  b ") == "  \n  b"
    assert f.finish() == ""


def test_sentence() -> None:
    assert both(Sentence, "It works. Then") == "It works."
    assert both(Sentence, "Version 3.5 is out") == "Version 3.5 is out"
    assert both(Sentence, " Leading space. x") == " Leading space."
