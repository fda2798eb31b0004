from __future__ import annotations

import pytest

from jupyter_codecomplete.postprocess import LANGUAGES, analyze, rules_for
from jupyter_codecomplete.postprocess.cursor import indent_width
from jupyter_codecomplete.postprocess.scanner import CLOSE, UNMATCHED, Scanner, scan_text


def test_rules_lookup_and_aliases() -> None:
    assert rules_for("python3").name == "python"
    assert rules_for("IPython").name == "python"
    assert rules_for("ts").name == "typescript"  # its own record (and grammar), JavaScript's rules
    assert rules_for("ts").block_comments == rules_for("javascript").block_comments
    assert rules_for("md").name == "markdown"
    assert rules_for(None).name == "plaintext"
    assert rules_for("cobol").name == "plaintext"


def test_cell_magic_switches_language() -> None:
    assert rules_for("python", "%%sql\nSELECT").name == "sql"
    assert rules_for("python", "%%bash\nls").name == "shell"
    assert rules_for("python", "%%time\nx = 1").name == "python"
    assert rules_for("python", "%%unknownmagic\nx").name == "python"


def test_language_table_has_required_languages() -> None:
    names = {r.name for r in LANGUAGES}
    assert {"python", "r", "julia", "sql", "javascript", "markdown"} <= names


def test_scanner_strings_and_comments() -> None:
    py = rules_for("python")
    assert scan_text(py, 'f("(", [1, 2  # ]\n').stack == ["(", "["]
    assert scan_text(py, 'x = """(\n').in_string
    assert not scan_text(py, "x = '(\n").stack  # a single-quoted string ends at the newline
    assert scan_text(rules_for("julia"), "#= ( =# (").stack == ["("]
    assert scan_text(rules_for("sql"), "-- (\n/* ( */ ('a(''b").stack == ["(", "'"]


def test_scanner_waits_for_ambiguous_tokens() -> None:
    s = Scanner(rules_for("python"))
    assert s.step('x""', 1, False) == (1, 0, 0)  # may be the start of a triple quote
    s = Scanner(rules_for("sql"))
    assert s.step("a -", 2, False) == (2, 0, 0)  # may be '--'


def test_scanner_events() -> None:
    s = Scanner(rules_for("python"))
    s.scan("f(")
    assert s.step(")", 0, True) == (1, CLOSE, 0)
    assert s.step(")", 0, True) == (1, UNMATCHED, 0)


@pytest.mark.parametrize(
    ("language", "prefix", "suffix", "multiline"),
    [
        ("python", "def f():", "", True),
        ("python", "def f():\n    ", "", True),
        ("python", "x = foo(", ")", True),
        ("python", "x = foo(", "a)", False),
        ("python", "x = 1", "", False),
        ("python", "", "", True),
        ("markdown", "", "", False),
        ("julia", "function f(x)", "", True),
        ("javascript", "if (a) {", "}", True),
    ],
)
def test_multiline_decision(language: str, prefix: str, suffix: str, multiline: bool) -> None:
    assert analyze(language, prefix, suffix).multiline is multiline


def test_opener_indent() -> None:
    assert analyze("python", "    if a:", "").opener_indent == 4
    assert analyze("python", "def f():\n    ", "").opener_indent == 0
    assert analyze("python", "def f():\n    x = 1\n    ", "").opener_indent == 3
    assert analyze("python", "x = 1\n", "").opener_indent is None


def test_protected_frames() -> None:
    c = analyze("python", 'print("', '")')
    assert len(c.scanner.stack) == 2 and c.protected_from == 0
    c = analyze("python", "f(", "")
    assert c.protected_from == 1


def test_indent_width() -> None:
    assert indent_width("\tx") == 4
    assert indent_width("  x") == 2
    assert indent_width("x") == 0
