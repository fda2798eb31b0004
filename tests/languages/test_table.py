"""The one language table (``jupyter_codecomplete/languages.py``): one row per language and alias.

Each row is written out here (not derived from the table), so a record that changes a name, a
comment marker or a display name fails one row. The client's table is generated from the module;
``test_client_table_is_generated`` fails when ``src/context/languagetable.ts`` is stale.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_codecomplete import languages
from jupyter_codecomplete.postprocess import grammar_for, rules_for
from jupyter_codecomplete.prompting.context import (
    comment_marker,
    display_path,
    language_from_path,
    language_tag,
    normalize_language,
)

ROOT = Path(__file__).resolve().parents[2]

# (name, alias or MIME type as sent) -> (id, prompt comment marker, display name)
NAMES: list[tuple[str, str, str, str]] = [
    ("python", "python", "#", "Python"),
    ("ipython", "python", "#", "Python"),
    ("IPython", "python", "#", "Python"),
    ("ipython3", "python", "#", "Python"),
    ("python3", "python", "#", "Python"),
    ("python2", "python", "#", "Python"),
    ("py", "python", "#", "Python"),
    ("text/x-python", "python", "#", "Python"),
    ("text/x-ipython", "python", "#", "Python"),
    ("r", "r", "#", "R"),
    ("R", "r", "#", "R"),
    ("rlang", "r", "#", "R"),
    ("ir", "r", "#", "R"),
    ("text/x-rsrc", "r", "#", "R"),
    ("julia", "julia", "#", "Julia"),
    ("jl", "julia", "#", "Julia"),
    ("text/x-julia", "julia", "#", "Julia"),
    ("sql", "sql", "--", "SQL"),
    ("mysql", "sql", "--", "SQL"),
    ("postgresql", "sql", "--", "SQL"),
    ("sqlite", "sql", "--", "SQL"),
    ("plsql", "sql", "--", "SQL"),
    ("mariadb sql", "sql", "--", "SQL"),
    ("ms sql", "sql", "--", "SQL"),
    ("mssql", "sql", "--", "SQL"),
    ("text/x-sql", "sql", "--", "SQL"),
    ("javascript", "javascript", "//", "JavaScript"),
    ("js", "javascript", "//", "JavaScript"),
    ("node", "javascript", "//", "JavaScript"),
    ("jsx", "javascript", "//", "JavaScript"),
    ("text/javascript", "javascript", "//", "JavaScript"),
    ("application/javascript", "javascript", "//", "JavaScript"),
    ("typescript", "typescript", "//", "TypeScript"),
    ("TypeScript", "typescript", "//", "TypeScript"),
    ("ts", "typescript", "//", "TypeScript"),
    ("tsx", "typescript", "//", "TypeScript"),
    ("text/typescript", "typescript", "//", "TypeScript"),
    ("application/typescript", "typescript", "//", "TypeScript"),
    ("markdown", "markdown", "#", "Markdown"),
    ("md", "markdown", "#", "Markdown"),
    ("ipythongfm", "markdown", "#", "Markdown"),
    ("gfm", "markdown", "#", "Markdown"),
    ("text/markdown", "markdown", "#", "Markdown"),
    ("text/x-markdown", "markdown", "#", "Markdown"),
    ("text/x-ipythongfm", "markdown", "#", "Markdown"),
    ("shell", "shell", "#", "Shell"),
    ("bash", "shell", "#", "Shell"),
    ("sh", "shell", "#", "Shell"),
    ("zsh", "shell", "#", "Shell"),
    ("text/x-sh", "shell", "#", "Shell"),
    ("application/x-sh", "shell", "#", "Shell"),
    ("c", "c", "//", "C"),
    ("h", "c", "//", "C"),
    ("text/x-csrc", "c", "//", "C"),
    ("objective-c", "objective-c", "//", "Objective-C"),
    ("Objective-C", "objective-c", "//", "Objective-C"),
    ("objectivec", "objective-c", "//", "Objective-C"),
    ("objc", "objective-c", "//", "Objective-C"),
    ("objective-c++", "objective-c", "//", "Objective-C"),
    ("text/x-objectivec", "objective-c", "//", "Objective-C"),
    ("cpp", "cpp", "//", "C++"),
    ("c++", "cpp", "//", "C++"),
    ("cxx", "cpp", "//", "C++"),
    ("hpp", "cpp", "//", "C++"),
    ("cc", "cpp", "//", "C++"),
    ("text/x-c++src", "cpp", "//", "C++"),
    ("java", "java", "//", "Java"),
    ("text/x-java", "java", "//", "Java"),
    ("csharp", "csharp", "//", "C#"),
    ("c#", "csharp", "//", "C#"),
    ("cs", "csharp", "//", "C#"),
    ("text/x-csharp", "csharp", "//", "C#"),
    ("kotlin", "kotlin", "//", "Kotlin"),
    ("kt", "kotlin", "//", "Kotlin"),
    ("kts", "kotlin", "//", "Kotlin"),
    ("text/x-kotlin", "kotlin", "//", "Kotlin"),
    ("scala", "scala", "//", "Scala"),
    ("sc", "scala", "//", "Scala"),
    ("text/x-scala", "scala", "//", "Scala"),
    ("go", "go", "//", "Go"),
    ("golang", "go", "//", "Go"),
    ("text/x-go", "go", "//", "Go"),
    ("rust", "rust", "//", "Rust"),
    ("rs", "rust", "//", "Rust"),
    ("text/x-rustsrc", "rust", "//", "Rust"),
    ("swift", "swift", "//", "Swift"),
    ("text/x-swift", "swift", "//", "Swift"),
    ("php", "php", "//", "PHP"),
    ("text/x-php", "php", "//", "PHP"),
    ("application/x-httpd-php", "php", "//", "PHP"),
    ("ruby", "ruby", "#", "Ruby"),
    ("rb", "ruby", "#", "Ruby"),
    ("text/x-ruby", "ruby", "#", "Ruby"),
    ("lua", "lua", "--", "Lua"),
    ("text/x-lua", "lua", "--", "Lua"),
    ("fsharp", "fsharp", "//", "F#"),
    ("f#", "fsharp", "//", "F#"),
    ("fs", "fsharp", "//", "F#"),
    ("fsx", "fsharp", "//", "F#"),
    ("text/x-fsharp", "fsharp", "//", "F#"),
    ("yaml", "yaml", "#", "YAML"),
    ("yml", "yaml", "#", "YAML"),
    ("text/x-yaml", "yaml", "#", "YAML"),
    ("perl", "perl", "#", "Perl"),
    ("text/x-perl", "perl", "#", "Perl"),
    ("toml", "toml", "#", "TOML"),
    ("text/x-toml", "toml", "#", "TOML"),
    ("powershell", "powershell", "#", "PowerShell"),
    ("ps1", "powershell", "#", "PowerShell"),
    ("pwsh", "powershell", "#", "PowerShell"),
    ("nim", "nim", "#", "Nim"),
    ("crystal", "crystal", "#", "Crystal"),
    ("elixir", "elixir", "#", "Elixir"),
    ("coffeescript", "coffeescript", "#", "CoffeeScript"),
    ("coffee", "coffeescript", "#", "CoffeeScript"),
    ("makefile", "makefile", "#", "Makefile"),
    ("make", "makefile", "#", "Makefile"),
    ("dockerfile", "dockerfile", "#", "Dockerfile"),
    ("cmake", "cmake", "#", "CMake"),
    ("raku", "raku", "#", "Raku"),
    ("perl6", "raku", "#", "Raku"),
    ("haskell", "haskell", "--", "Haskell"),
    ("hs", "haskell", "--", "Haskell"),
    ("text/x-haskell", "haskell", "--", "Haskell"),
    ("ada", "ada", "--", "Ada"),
    ("elm", "elm", "--", "Elm"),
    ("vhdl", "vhdl", "--", "VHDL"),
    ("sparql", "sparql", "--", "SPARQL"),
    ("purescript", "purescript", "--", "PureScript"),
    ("dart", "dart", "//", "Dart"),
    ("application/dart", "dart", "//", "Dart"),
    ("groovy", "groovy", "//", "Groovy"),
    ("zig", "zig", "//", "Zig"),
    ("verilog", "verilog", "//", "Verilog"),
    ("systemverilog", "verilog", "//", "Verilog"),
    ("solidity", "solidity", "//", "Solidity"),
    ("glsl", "glsl", "//", "GLSL"),
    ("cuda", "cuda", "//", "CUDA"),
    ("matlab", "matlab", "%", "Matlab"),
    ("octave", "matlab", "%", "Matlab"),
    ("text/x-octave", "matlab", "%", "Matlab"),
    ("latex", "latex", "%", "TeX"),
    ("tex", "latex", "%", "TeX"),
    ("stex", "latex", "%", "TeX"),
    ("text/x-stex", "latex", "%", "TeX"),
    ("erlang", "erlang", "%", "Erlang"),
    ("text/x-erlang", "erlang", "%", "Erlang"),
    ("prolog", "prolog", "%", "Prolog"),
    ("postscript", "postscript", "%", "PostScript"),
    ("lisp", "lisp", ";", "Lisp"),
    ("common lisp", "lisp", ";", "Lisp"),
    ("commonlisp", "lisp", ";", "Lisp"),
    ("scheme", "scheme", ";", "Scheme"),
    ("clojure", "clojure", ";", "Clojure"),
    ("clj", "clojure", ";", "Clojure"),
    ("clojurescript", "clojure", ";", "Clojure"),
    ("text/x-clojure", "clojure", ";", "Clojure"),
    ("racket", "racket", ";", "Racket"),
    ("emacs-lisp", "emacs-lisp", ";", "Emacs Lisp"),
    ("elisp", "emacs-lisp", ";", "Emacs Lisp"),
    ("assembly", "assembly", ";", "Assembly"),
    ("asm", "assembly", ";", "Assembly"),
    ("fortran", "fortran", "!", "Fortran"),
    ("text/x-fortran", "fortran", "!", "Fortran"),
    ("vb", "vb", "'", "Visual Basic"),
    ("vba", "vb", "'", "Visual Basic"),
    ("visual basic", "vb", "'", "Visual Basic"),
    ("vb.net", "vb", "'", "Visual Basic"),
    ("vbscript", "vb", "'", "Visual Basic"),
    # no line comment: prompts fall back to "#"
    ("json", "json", "#", "JSON"),
    ("application/json", "json", "#", "JSON"),
    ("html", "html", "#", "HTML"),
    ("text/html", "html", "#", "HTML"),
    ("css", "css", "#", "CSS"),
    ("text/css", "css", "#", "CSS"),
    ("plaintext", "plaintext", "#", "Plain Text"),
    ("text", "plaintext", "#", "Plain Text"),
    ("plain text", "plaintext", "#", "Plain Text"),
    ("text/plain", "plaintext", "#", "Plain Text"),
]


@pytest.mark.parametrize(("name", "id_", "comment", "title"), NAMES, ids=[row[0] for row in NAMES])
def test_name(name: str, id_: str, comment: str, title: str) -> None:
    # every stage sees the same record: the id, prompting's marker and tag, post-processing's rules
    assert normalize_language(name) == id_
    assert comment_marker(name) == comment
    assert comment_marker(id_) == comment
    assert language_tag(id_) == title
    assert rules_for(name) is rules_for(id_)
    assert rules_for(name).name == id_


def test_every_name_has_a_row() -> None:
    """A name added to the table needs its row above (and a removed one loses it)."""
    rows = {row[0].lower() for row in NAMES}
    table = {key for language in languages.ALL for key in language.names}
    assert table == rows


# file extension -> id
EXTENSIONS: list[tuple[str, str | None]] = [
    ("a.py", "python"),
    ("stubs/a.pyi", "python"),
    ("nb.ipynb", "python"),
    ("analysis.R", "r"),
    ("analysis.r", "r"),
    ("a.jl", "julia"),
    ("q.sql", "sql"),
    ("a.js", "javascript"),
    ("a.mjs", "javascript"),
    ("a.jsx", "javascript"),
    ("a.ts", "typescript"),
    ("a.tsx", "typescript"),
    ("a.c", "c"),
    ("a.h", "c"),
    ("a.cpp", "cpp"),
    ("a.hpp", "cpp"),
    ("A.java", "java"),
    ("a.cs", "csharp"),
    ("a.go", "go"),
    ("a.rs", "rust"),
    ("a.kt", "kotlin"),
    ("a.scala", "scala"),
    ("a.swift", "swift"),
    ("a.php", "php"),
    ("a.rb", "ruby"),
    ("a.lua", "lua"),
    ("a.fs", "fsharp"),
    ("a.yaml", "yaml"),
    ("a.yml", "yaml"),
    ("a.md", "markdown"),
    ("a.sh", "shell"),
    ("a.pl", "perl"),
    ("a.hs", "haskell"),
    ("a.m", "matlab"),
    ("a.tex", "latex"),
    ("a.f90", "fortran"),
    ("a.clj", "clojure"),
    ("a.zig", "zig"),
    ("a.sol", "solidity"),
    ("a.toml", "toml"),
    ("notes.txt", None),
    ("Makefile", None),
    (None, None),
]


@pytest.mark.parametrize(("path", "id_"), EXTENSIONS, ids=[str(row[0]) for row in EXTENSIONS])
def test_language_from_path(path: str | None, id_: str | None) -> None:
    assert language_from_path(path) == id_


@pytest.mark.parametrize(
    ("path", "language", "shown"),
    [
        ("a.ipynb", "python", "a.py"),
        ("a.ipynb", "ipython", "a.py"),  # an alias names the file like its language
        ("a.ipynb", "r", "a.R"),
        ("a.ipynb", "typescript", "a.ts"),
        ("a.ipynb", "objective-c", "a.py"),  # no extension of its own (``.m`` is MATLAB's)
        ("a.ipynb", None, "a.py"),
        (None, "julia", "untitled.jl"),
        (None, "objectivec", "untitled"),
        (None, None, "untitled"),
        ("src/x.ts", "typescript", "src/x.ts"),
    ],
)
def test_display_path(path: str | None, language: str | None, shown: str) -> None:
    assert display_path(path, language) == shown


@pytest.mark.parametrize(
    ("language", "grammar"),
    [
        ("python", "python"),
        ("ipython", "python"),
        ("javascript", "javascript"),
        ("typescript", "typescript"),
        ("ts", "typescript"),
        ("tsx", "tsx"),
        ("objective-c", "objc"),
        ("objectivec", "objc"),
        ("c", "c"),
        ("c++", "cpp"),
        ("bash", "bash"),
        ("haskell", None),
        ("markdown", None),
        (None, None),
    ],
)
def test_grammar(language: str | None, grammar: str | None) -> None:
    assert grammar_for(language, rules_for(language)) == grammar


def test_grammars_exist() -> None:
    """Every grammar the table names is in tree-sitter-language-pack (else the guard is silently off)."""
    pack = pytest.importorskip("tree_sitter_language_pack")
    names = {language.grammar for language in languages.ALL if language.grammar}
    names |= {g for language in languages.ALL for g in language.alias_grammars.values()}
    for name in sorted(names):
        assert pack.get_parser(name) is not None, name


def test_cell_magic_targets_are_languages() -> None:
    for language in languages.ALL:
        for magic, target in language.cell_magics.items():
            found = languages.lookup(target)
            assert found is not None and found.name == target, (language.name, magic, target)


def test_records_without_strings_have_no_bracket_rule() -> None:
    """A bracket inside a string the table cannot see must not end a suggestion."""
    for language in languages.ALL:
        if language.brackets:
            assert language.strings, language.name


def test_a_name_in_two_records_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    twin = languages.Language(name="pascal", aliases=("objc",))
    monkeypatch.setattr(languages, "ALL", (*languages.ALL, twin))
    with pytest.raises(ValueError, match="'objc' belongs to 'objective-c' and 'pascal'"):
        languages._index()
    monkeypatch.setattr(
        languages, "ALL", (*languages.ALL[:-1], languages.Language(name="x", extensions=(".py",)))
    )
    with pytest.raises(ValueError, match=r"extension '\.py'"):
        languages._index()


def test_unknown_names() -> None:
    assert normalize_language("COBOL") == "cobol"
    assert normalize_language("  ") is None
    assert normalize_language(None) is None
    assert comment_marker("cobol") == "#"
    assert language_tag("cobol") == "Cobol"
    assert language_tag(None) == ""
    assert rules_for("cobol") is languages.PLAIN_TEXT


def test_client_table_is_generated() -> None:
    """``src/context/languagetable.ts`` is what the module generates, byte for byte."""
    path = ROOT / languages.TYPESCRIPT_PATH
    assert path.read_text(encoding="utf-8") == languages.render_typescript(), (
        "src/context/languagetable.ts is stale: "
        "python -m jupyter_codecomplete.languages > src/context/languagetable.ts"
    )
