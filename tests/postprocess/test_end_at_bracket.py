from __future__ import annotations

from jupyter_codecomplete.postprocess import analyze
from jupyter_codecomplete.postprocess.end_at_bracket import Brackets

from .helpers import both


def make(language: str, prefix: str, suffix: str = "", multiline: bool = False):  # type: ignore[no-untyped-def]
    c = analyze(language, prefix, suffix)
    return lambda: Brackets(c.scanner.copy(), c.protected_from, multiline, end_with_string=c.in_block_string)


def test_an_unmatched_closing_bracket_ends_the_suggestion() -> None:
    assert both(make("python", "items = ["), "1, 2)") == "1, 2"
    assert both(make("python", "x = "), "g(a, (b)))") == "g(a, (b))"


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    assert both(make("python", "x = "), "')' + y  # )\nz") == "')' + y  # )\nz"


def test_sql_statement_end_is_kept_and_ends() -> None:
    assert both(make("sql", "SELECT a "), "FROM t; DROP") == "FROM t;"
