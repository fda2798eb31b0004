from __future__ import annotations

from jupyter_codecomplete.postprocess import analyze
from jupyter_codecomplete.postprocess.keep_first_lines import FirstLines

from .helpers import both


def test_end_of_an_ordinary_line_is_one_line() -> None:
    c = analyze("python", "x = f(a)", "")
    assert both(lambda: FirstLines(c), " + 1\nprint(x)") == " + 1\n"  # (the newline: trimmed later)


def test_output_starting_with_a_newline_gives_the_next_line() -> None:
    c = analyze("go", "x := 1", "")
    assert both(lambda: FirstLines(c), "\ny := 2\nz := 3") == "\ny := 2\n"


def test_a_line_that_opens_a_block_gives_the_block() -> None:
    c = analyze("python", "x = 1", "")
    text = "\nfor i in range(3):\n    print(i)\nprint('done')"
    assert both(lambda: FirstLines(c), text) == "\nfor i in range(3):\n    print(i)\n"


def test_allman_brace_on_the_next_line_opens_the_block() -> None:
    c = analyze("c", "int x = 1;", "")
    text = "\nif (x)\n{\n    x++;\n}\nx--;"
    assert both(lambda: FirstLines(c), text) == "\nif (x)\n{\n    x++;\n}"
