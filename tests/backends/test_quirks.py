"""The quirk records and the stream repairs, piece by piece (no server needed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_codecomplete.backends.http import error_message, parse_retry_after
from jupyter_codecomplete.backends.quirks import FieldMemory, QuirkFilter, Quirks, resolve_quirks


def run(f: QuirkFilter, pieces: list[str]) -> str:
    return "".join(f.feed(p) for p in pieces) + f.finish()


def test_resolution_layers() -> None:
    assert resolve_quirks("ollama", None).literal_newlines == "auto"
    assert resolve_quirks("openai", "llama-cpp-python").native_suffix is False
    assert resolve_quirks("openai", "TGI").leading_space is True
    assert resolve_quirks("ollama", None, {"literal_newlines": False}).literal_newlines is False
    with pytest.raises(ValueError):
        resolve_quirks("openai", None, {"no_such_quirk": 1})


def test_echo_is_stripped_across_chunks() -> None:
    prompt = "import os\nimport sys\n"
    f = QuirkFilter(Quirks(), prompt=prompt)
    assert run(f, ["import os\n", "import", " sys\n", "print(1)"]) == "print(1)"


def test_text_that_only_starts_like_the_prompt_is_kept() -> None:
    f = QuirkFilter(Quirks(), prompt="import numpy as np\n")
    assert run(f, ["import ", "pandas"]) == "import pandas"
    f = QuirkFilter(Quirks(), prompt="import numpy as np\n")
    assert run(f, ["import"]) == "import"  # ended while still a prefix of the prompt


@given(st.text(max_size=40), st.lists(st.integers(1, 5), max_size=10))
def test_without_echo_the_text_is_unchanged(text: str, cuts: list[int]) -> None:
    prompt = "\x00never in the text\x00"
    pieces, i = [], 0
    for c in cuts:
        pieces.append(text[i : i + c])
        i += c
    pieces.append(text[i:])
    assert run(QuirkFilter(Quirks(), prompt=prompt), pieces) == text


def test_literal_newlines_outside_strings_split_anywhere() -> None:
    raw = "def f():\\n    return 'a\\nb'\\n"
    for cut in range(len(raw) + 1):
        f = QuirkFilter(Quirks(literal_newlines=True))
        assert run(f, [raw[:cut], raw[cut:]]) == "def f():\n    return 'a\\nb'\n"


def test_auto_literal_newlines_stop_at_the_first_real_newline() -> None:
    f = QuirkFilter(Quirks(literal_newlines="auto"))
    assert run(f, ["x = 1\n", "y = r\\n"]) == "x = 1\ny = r\\n"


def test_leading_space_only_after_whitespace() -> None:
    q = Quirks(leading_space=True)
    assert run(QuirkFilter(q, prompt="x =", before_cursor="    x = "), [" 1"]) == "1"
    assert run(QuirkFilter(q, prompt="x =", before_cursor="    x ="), [" 1"]) == " 1"
    assert run(QuirkFilter(Quirks(), prompt="", before_cursor="x = "), [" 1"]) == " 1"


def test_field_memory_learns_only_optional_fields_named_in_the_error() -> None:
    m = FieldMemory(Quirks(unsupported_fields=["top_p"]))
    body = {"model": "m", "prompt": "p", "suffix": "s", "stop": ["\n"], "top_p": 0.9}
    assert m.apply(body) == {"model": "m", "prompt": "p", "suffix": "s", "stop": ["\n"]}
    assert m.learn(body, "Unrecognized request argument supplied: suffix") == "suffix"
    assert m.learn(body, "prompt is too long") is None
    assert m.learn(body, "'stopwatch' is not allowed") is None
    assert m.dropped == {"top_p", "suffix"}
    assert FieldMemory(Quirks(retry_without_rejected=False)).learn(body, "bad suffix") is None


def test_error_bodies_and_retry_after() -> None:
    assert error_message({"error": {"message": "boom"}}) == "boom"
    assert error_message({"error": "model not found"}) == "model not found"
    assert error_message({"object": "error", "message": "bad"}) == "bad"
    assert error_message({"detail": "Not Found"}) == "Not Found"
    assert error_message({"choices": [], "model": "x"}) is None
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
