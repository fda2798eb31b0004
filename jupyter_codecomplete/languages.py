"""Everything the package knows about languages: ONE :class:`Language` record per language.

Every stage reads this table and no other: the client's names (``src/context/languagetable.ts`` is
generated from it), prompting (line-comment marker for markdown cells and outputs, display name,
the file name a notebook's code is shown under, the language of a path) and post-processing
(strings, comments, block words, tree-sitter grammar; ``postprocess/languages.py`` adds only the
lookup with IPython cell magics). Adding a language is adding a record to :data:`LANGUAGES`;
a name, alias or MIME type may belong to one record only, and so may a file extension (checked
when the module is imported).

A record's ``name`` is the id the client sends and the settings store (``disabledLanguages``);
``aliases`` are every other spelling met in kernel specs (``python3``), CodeMirror / JupyterLab
language registry names (``objective-c``, ``c++``) and short names (``py``); ``mime_types`` are
editor MIME types. Lookups are case-insensitive.

Records that only prompting knew before the table was merged (Haskell, Perl, ...) carry their
comment markers but no string rules, so their ``brackets`` rule is off: an unmatched bracket in
a string we cannot see must not end a suggestion.

Regenerate the client's table with ``python -m jupyter_codecomplete.languages > src/context/languagetable.ts``
(``tests/test_languages.py`` fails while it is stale).
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from collections.abc import Iterable
from functools import cached_property
from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field


class StringDelim(BaseModel):
    """A string delimiter (the same text opens and closes the string)."""

    model_config = ConfigDict(frozen=True)
    delim: str
    multiline: bool = False  # may the string span lines (else a newline ends it)


class Language(BaseModel):
    """One language, as every stage sees it."""

    model_config = ConfigDict(frozen=True)

    # -- names ---------------------------------------------------------------------------------
    name: str  # the id: what the client sends, what settings store
    display: str = ""  # shown to people and in prompts (CodeGeeX4's ``###LANGUAGE:``); "" = Name
    aliases: tuple[str, ...] = ()
    mime_types: tuple[str, ...] = ()
    # file extensions, lower case; the first names a notebook's code as a file (``a.ipynb`` -> ``a.py``)
    extensions: tuple[str, ...] = ()
    # the extension used for that name when it is not ``extensions[0]`` (R: ``.R``)
    file_extension: str | None = None

    # -- comments and strings (prompting and post-processing) ----------------------------------
    line_comments: tuple[str, ...] = ()
    block_comments: tuple[tuple[str, str], ...] = ()
    strings: tuple[StringDelim, ...] = ()
    escape: str = "\\"

    # -- post-processing -----------------------------------------------------------------------
    # lines starting (after indentation) with one of these are not code (IPython ``%magic``, ``!shell``)
    opaque_line_starts: tuple[str, ...] = ()
    # an unmatched closing bracket ends the suggestion
    brackets: bool = True
    # regex on the code part of a line (comment removed, right-stripped): the line opens a block
    block_opener: str | None = None
    # first words of a line, at the block opener's indentation, that continue the statement
    continuation_words: tuple[str, ...] = ()
    # first words of a line, at the block opener's indentation, that close the block (kept, then end)
    closer_words: tuple[str, ...] = ()
    # regex on a line at column 0: after a completed (indented) block, it ends the suggestion
    top_level_stop: str | None = None
    # regex on a line: the line always ends the suggestion (notebook cell markers)
    stop_line: str | None = None
    # a statement terminator at bracket depth 0 ends the suggestion (kept)
    statement_end: str | None = None
    # indentation is syntax (a line repeated at another indentation is another statement)
    indent_matters: bool = False
    # a ``{`` on a line of its own, at a declaration's indentation, opens its body (Allman style)
    brace_lines: bool = False
    # the tree-sitter grammar (tree-sitter-language-pack name) for the syntax guard; None: no guard
    grammar: str | None = None
    # aliases with a grammar of their own (``tsx`` is TypeScript with the ``tsx`` grammar)
    alias_grammars: dict[str, str] = Field(default_factory=dict)
    # prose: single line, single sentence
    prose: bool = False
    # strip markdown code fences
    fences: bool = True
    # IPython cell magics (``%%sql``) -> the language of the rest of the cell
    cell_magics: dict[str, str] = Field(default_factory=dict)

    @property
    def title(self) -> str:
        """The display name (``Python``, ``C++``)."""
        return self.display or self.name[:1].upper() + self.name[1:]

    @property
    def comment(self) -> str | None:
        """The line-comment marker prompts use (markdown cells, outputs), or None."""
        return self.line_comments[0] if self.line_comments else None

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling that means this language, lower case: id, aliases, MIME types."""
        return tuple(dict.fromkeys(n.lower() for n in (self.name, *self.aliases, *self.mime_types)))

    @cached_property
    def opener_re(self) -> re.Pattern[str] | None:
        return re.compile(self.block_opener) if self.block_opener else None

    @cached_property
    def top_level_re(self) -> re.Pattern[str] | None:
        return re.compile(self.top_level_stop) if self.top_level_stop else None

    @cached_property
    def stop_line_re(self) -> re.Pattern[str] | None:
        return re.compile(self.stop_line) if self.stop_line else None


DEFAULT_COMMENT = "#"  # prompts' comment marker for a language without line comments

_SLASH = ("//",)
_C_BLOCK = (("/*", "*/"),)
_PY_STRINGS = (
    StringDelim(delim='"""', multiline=True),
    StringDelim(delim="'''", multiline=True),
    StringDelim(delim='"'),
    StringDelim(delim="'"),
)
_CELL_MARKER_HASH = r"^#\s*(%%|In\s*\[)"
_C_CONTINUE = ("else", "catch", "finally", "while", "case", "default")
_C_TOP = r"^(static\s+|extern\s+|inline\s+)*(struct|enum|union|typedef|class|namespace|template)\b"
_JVM_TOP = (
    r"^(public|private|internal|protected|abstract|final|sealed|data|open)?\s*"
    r"(class|interface|enum|record|object|fun)\b"
)
_JVM_STRINGS = (StringDelim(delim='"""', multiline=True), StringDelim(delim='"'), StringDelim(delim="'"))


class _Names(TypedDict):
    name: str
    display: str
    aliases: tuple[str, ...]
    mime_types: tuple[str, ...]
    extensions: tuple[str, ...]
    grammar: str | None


def _names(
    name: str,
    display: str,
    aliases: tuple[str, ...] = (),
    mimes: tuple[str, ...] = (),
    extensions: tuple[str, ...] = (),
    grammar: str | None = "",
) -> _Names:
    """A record's names on one line: id, display name, aliases, MIME types, file extensions, and
    the tree-sitter grammar (by default named like the language; None: no grammar)."""
    return _Names(
        name=name,
        display=display,
        aliases=aliases,
        mime_types=mimes,
        extensions=extensions,
        grammar=name if grammar == "" else grammar,
    )


def _marked(
    name: str,
    display: str,
    comment: str | None,
    aliases: Iterable[str] = (),
    extensions: Iterable[str] = (),
    mime_types: Iterable[str] = (),
    block_comments: tuple[tuple[str, str], ...] = (),
) -> Language:
    """A language known by its names and comments only (no string rules, so no bracket rule)."""
    return Language(
        name=name,
        display=display,
        aliases=tuple(aliases),
        extensions=tuple(extensions),
        mime_types=tuple(mime_types),
        line_comments=(comment,) if comment else (),
        block_comments=block_comments,
        brackets=False,
    )


LANGUAGES: tuple[Language, ...] = (
    Language(
        **_names(
            "python",
            "Python",
            ("ipython", "ipython3", "python3", "python2", "py"),
            ("text/x-python", "text/x-ipython"),
            (".py", ".pyi", ".ipynb"),
        ),
        line_comments=("#",),
        strings=_PY_STRINGS,
        opaque_line_starts=("%", "!"),
        block_opener=r":$",
        continuation_words=("elif", "else", "except", "finally", "case"),
        top_level_stop=r"^(def|class|async\s+def)\b|^@\w|^if\s+__name__\b",
        stop_line=_CELL_MARKER_HASH,
        cell_magics={
            "sql": "sql",
            "bash": "shell",
            "sh": "shell",
            "script": "shell",
            "r": "r",
            "javascript": "javascript",
            "js": "javascript",
            "markdown": "markdown",
            "html": "html",
            "latex": "latex",
            "writefile": "plaintext",
            "capture": "python",
            "time": "python",
            "timeit": "python",
        },
        indent_matters=True,
    ),
    Language(
        **_names("r", "R", ("rlang", "ir"), ("text/x-rsrc",), (".r",)),
        file_extension=".R",
        line_comments=("#",),
        strings=(
            StringDelim(delim='"', multiline=True),
            StringDelim(delim="'", multiline=True),
            StringDelim(delim="`"),
        ),
        continuation_words=("else",),
        top_level_stop=r"^[\w.]+\s*(<-|=)\s*function\b",
        stop_line=_CELL_MARKER_HASH,
    ),
    Language(
        **_names("julia", "Julia", ("jl",), ("text/x-julia",), (".jl",)),
        line_comments=("#",),
        block_comments=(("#=", "=#"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"', multiline=True)),
        block_opener=(
            r"^(function|for|while|if|elseif|else|let|begin|struct|mutable\s+struct|module|baremodule"
            r"|macro|try|catch|finally|quote)\b(?!.*\bend$)|\bdo(\s+[\w, ]+)?$|=\s*(begin|let|quote)$"
        ),
        continuation_words=("else", "elseif", "catch", "finally"),
        closer_words=("end",),
        top_level_stop=r"^(function|struct|mutable\s+struct|module|macro|abstract\s+type)\b",
        stop_line=_CELL_MARKER_HASH,
    ),
    Language(
        **_names(
            "sql",
            "SQL",
            ("mysql", "postgresql", "sqlite", "plsql", "mariadb sql", "ms sql", "mssql"),
            ("text/x-sql",),
            (".sql",),
            grammar=None,
        ),
        line_comments=("--",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim="'", multiline=True), StringDelim(delim='"', multiline=True)),
        escape="",
        statement_end=";",
    ),
    _JAVASCRIPT := Language(
        **_names(
            "javascript",
            "JavaScript",
            ("js", "node", "jsx"),
            ("text/javascript", "application/javascript"),
            (".js", ".mjs", ".cjs", ".jsx"),
        ),
        line_comments=_SLASH,
        block_comments=_C_BLOCK,
        strings=(StringDelim(delim='"'), StringDelim(delim="'"), StringDelim(delim="`", multiline=True)),
        continuation_words=("else", "catch", "finally", "while"),
        top_level_stop=r"^(export\s+)?(default\s+)?(async\s+)?(function|class|interface|enum)\b",
        stop_line=r"^//\s*(%%|In\s*\[)",
        brace_lines=True,
    ),
    # TypeScript: JavaScript's rules, its own names and grammars
    _JAVASCRIPT.model_copy(
        update={
            **_names(
                "typescript",
                "TypeScript",
                ("ts", "tsx"),
                ("text/typescript", "application/typescript"),
                (".ts", ".tsx"),
            ),
            "alias_grammars": {"tsx": "tsx"},
        }
    ),
    Language(
        **_names(
            "markdown",
            "Markdown",
            ("md", "ipythongfm", "gfm"),
            ("text/markdown", "text/x-markdown", "text/x-ipythongfm"),
            (".md",),
            grammar=None,
        ),
        brackets=False,
        fences=False,
        prose=True,
    ),
    Language(
        **_names(
            "shell",
            "Shell",
            ("bash", "sh", "zsh"),
            ("text/x-sh", "application/x-sh"),
            (".sh", ".bash", ".zsh"),
            grammar="bash",
        ),
        line_comments=("#",),
        strings=(StringDelim(delim='"', multiline=True), StringDelim(delim="'", multiline=True)),
        brackets=False,  # `case` patterns close brackets they never opened
        block_opener=r"(^|[;\s])(then|do|else)$|\{$|^case\b.*\bin$",
        continuation_words=("elif", "else"),
        closer_words=("fi", "done", "esac"),
        stop_line=_CELL_MARKER_HASH,
    ),
    # The C family (braces, `//` and `/* */` comments): one record per language for its strings.
    _C := Language(
        **_names("c", "C", ("h",), ("text/x-csrc",), (".c", ".h")),
        line_comments=_SLASH,
        block_comments=_C_BLOCK,
        strings=(StringDelim(delim='"'), StringDelim(delim="'")),
        opaque_line_starts=("#",),
        continuation_words=_C_CONTINUE,
        top_level_stop=_C_TOP,
        brace_lines=True,
    ),
    _C.model_copy(
        update=_names(
            "objective-c",
            "Objective-C",
            ("objectivec", "objc", "objective-c++"),
            ("text/x-objectivec",),
            grammar="objc",
        )
    ),
    _C.model_copy(
        update={
            **_names(
                "cpp", "C++", ("c++", "cxx", "hpp", "cc"), ("text/x-c++src",), (".cpp", ".cc", ".hpp", ".cxx")
            ),
            "continuation_words": (*_C_CONTINUE, "public", "private", "protected"),
        }
    ),
    # Java's rules (its strings, declarations), then the languages that share them: their names
    _JAVA := Language(
        **_names("java", "Java", (), ("text/x-java",), (".java",)),
        line_comments=_SLASH,
        block_comments=_C_BLOCK,
        strings=_JVM_STRINGS,
        continuation_words=_C_CONTINUE,
        top_level_stop=_JVM_TOP,
        brace_lines=True,
    ),
    _JAVA.model_copy(update=_names("csharp", "C#", ("c#", "cs"), ("text/x-csharp",), (".cs",))),
    _JAVA.model_copy(update=_names("kotlin", "Kotlin", ("kt", "kts"), ("text/x-kotlin",), (".kt", ".kts"))),
    _JAVA.model_copy(
        update={
            **_names("scala", "Scala", ("sc",), ("text/x-scala",), (".scala", ".sc")),
            "block_opener": r"(=|=>|\bdo|\bthen|\byield)$",
            "continuation_words": (*_C_CONTINUE, "case"),
            "top_level_stop": r"^(object|class|trait|def|case\s+class|enum)\b",
        }
    ),
    Language(
        **_names("go", "Go", ("golang",), ("text/x-go",), (".go",)),
        line_comments=_SLASH,
        block_comments=_C_BLOCK,
        strings=(StringDelim(delim='"'), StringDelim(delim="'"), StringDelim(delim="`", multiline=True)),
        continuation_words=("else",),
        top_level_stop=r"^(func|type|var|const|import)\b",
    ),
    Language(
        **_names("rust", "Rust", ("rs",), ("text/x-rustsrc",), (".rs",)),
        line_comments=_SLASH,
        block_comments=_C_BLOCK,
        # no `'` strings: lifetimes (`'a`) would open one
        strings=(StringDelim(delim='"', multiline=True),),
        continuation_words=("else",),
        top_level_stop=r"^(pub\s+)?(fn|struct|enum|impl|trait|mod|const|static|type|use)\b",
    ),
    Language(
        **_names("swift", "Swift", (), ("text/x-swift",), (".swift",)),
        line_comments=_SLASH,
        block_comments=_C_BLOCK,
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"')),
        continuation_words=("else", "catch"),
        top_level_stop=r"^(func|class|struct|enum|protocol|extension)\b",
        brace_lines=True,
    ),
    Language(
        **_names("php", "PHP", (), ("text/x-php", "application/x-httpd-php"), (".php",)),
        line_comments=("//", "#"),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"', multiline=True), StringDelim(delim="'", multiline=True)),
        continuation_words=("else", "elseif", "catch", "finally"),
        top_level_stop=r"^(function|class|interface|trait)\b",
        brace_lines=True,
    ),
    Language(
        **_names("ruby", "Ruby", ("rb",), ("text/x-ruby",), (".rb",)),
        line_comments=("#",),
        strings=(StringDelim(delim='"', multiline=True), StringDelim(delim="'", multiline=True)),
        block_opener=(
            r"^(def|class|module|if|unless|while|until|for|case|begin)\b(?!.*\bend$)"
            r"|\bdo(\s*\|[^|]*\|)?$|\bthen$"
        ),
        continuation_words=("else", "elsif", "when", "rescue", "ensure", "in"),
        closer_words=("end",),
        top_level_stop=r"^(def|class|module)\b",
    ),
    Language(
        **_names("lua", "Lua", (), ("text/x-lua",), (".lua",)),
        line_comments=("--",),
        block_comments=(("--[[", "]]"),),
        strings=(StringDelim(delim='"'), StringDelim(delim="'")),
        block_opener=r"\b(then|do|else)$|\bfunction\b[^)]*\)$|^repeat$",
        continuation_words=("else", "elseif", "until"),
        closer_words=("end",),
        top_level_stop=r"^(local\s+)?function\b",
    ),
    Language(
        **_names("fsharp", "F#", ("f#", "fs", "fsx"), ("text/x-fsharp",), (".fs", ".fsx")),
        line_comments=("//",),
        block_comments=(("(*", "*)"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"', multiline=True)),
        block_opener=r"(=|->|\bdo|\bthen|\belse|\bwith)$",
        continuation_words=("else", "elif", "with", "finally"),
        top_level_stop=r"^(let|type|module|open)\b",
        indent_matters=True,
    ),
    Language(
        **_names("yaml", "YAML", ("yml",), ("text/x-yaml",), (".yaml", ".yml")),
        line_comments=("#",),
        strings=(StringDelim(delim='"'), StringDelim(delim="'")),
        escape="",
        brackets=False,
        block_opener=r":$|:\s*[|>][-+]?$|^-$",
        indent_matters=True,
    ),
    # Known by names and comment markers only (prompts, the client's names).
    _marked("perl", "Perl", "#", extensions=(".pl", ".pm"), mime_types=("text/x-perl",)),
    _marked("toml", "TOML", "#", extensions=(".toml",), mime_types=("text/x-toml",)),
    _marked("powershell", "PowerShell", "#", aliases=("ps1", "pwsh"), extensions=(".ps1",)),
    _marked("nim", "Nim", "#", extensions=(".nim",)),
    _marked("crystal", "Crystal", "#", extensions=(".cr",)),
    _marked("elixir", "Elixir", "#", extensions=(".ex", ".exs")),
    _marked("coffeescript", "CoffeeScript", "#", aliases=("coffee",), extensions=(".coffee",)),
    _marked("makefile", "Makefile", "#", aliases=("make",), extensions=(".mk",)),
    _marked("dockerfile", "Dockerfile", "#"),
    _marked("cmake", "CMake", "#", extensions=(".cmake",)),
    _marked("raku", "Raku", "#", aliases=("perl6",), extensions=(".raku",)),
    _marked("haskell", "Haskell", "--", aliases=("hs",), extensions=(".hs",), mime_types=("text/x-haskell",)),
    _marked("ada", "Ada", "--", extensions=(".adb", ".ads")),
    _marked("elm", "Elm", "--", extensions=(".elm",)),
    _marked("vhdl", "VHDL", "--", extensions=(".vhd", ".vhdl")),
    _marked("sparql", "SPARQL", "--", extensions=(".rq",)),
    _marked("purescript", "PureScript", "--", extensions=(".purs",)),
    _marked("dart", "Dart", "//", extensions=(".dart",), mime_types=("application/dart",)),
    _marked("groovy", "Groovy", "//", extensions=(".groovy",)),
    _marked("zig", "Zig", "//", extensions=(".zig",)),
    _marked("verilog", "Verilog", "//", aliases=("systemverilog",), extensions=(".v", ".sv")),
    _marked("solidity", "Solidity", "//", extensions=(".sol",)),
    _marked("glsl", "GLSL", "//", extensions=(".glsl",)),
    _marked("cuda", "CUDA", "//", extensions=(".cu",)),
    _marked("matlab", "Matlab", "%", aliases=("octave",), extensions=(".m",), mime_types=("text/x-octave",)),
    _marked("latex", "TeX", "%", aliases=("tex", "stex"), extensions=(".tex",), mime_types=("text/x-stex",)),
    _marked("erlang", "Erlang", "%", extensions=(".erl",), mime_types=("text/x-erlang",)),
    _marked("prolog", "Prolog", "%"),
    _marked("postscript", "PostScript", "%", extensions=(".ps",)),
    _marked("lisp", "Lisp", ";", aliases=("common lisp", "commonlisp"), extensions=(".lisp",)),
    _marked("scheme", "Scheme", ";", extensions=(".scm",)),
    _marked(
        "clojure",
        "Clojure",
        ";",
        aliases=("clj", "clojurescript"),
        extensions=(".clj",),
        mime_types=("text/x-clojure",),
    ),
    _marked("racket", "Racket", ";", extensions=(".rkt",)),
    _marked("emacs-lisp", "Emacs Lisp", ";", aliases=("elisp",), extensions=(".el",)),
    _marked("assembly", "Assembly", ";", aliases=("asm",), extensions=(".asm", ".s")),
    _marked("fortran", "Fortran", "!", extensions=(".f90", ".f"), mime_types=("text/x-fortran",)),
    _marked(
        "vb",
        "Visual Basic",
        "'",
        aliases=("vba", "visual basic", "vb.net", "vbscript"),
        extensions=(".vb", ".bas"),
    ),
    _marked("json", "JSON", None, extensions=(".json",), mime_types=("application/json",)),
    _marked(
        "html",
        "HTML",
        None,
        extensions=(".html", ".htm"),
        mime_types=("text/html",),
        block_comments=(("<!--", "-->"),),
    ),
    _marked(
        "css", "CSS", None, extensions=(".css",), mime_types=("text/css",), block_comments=(("/*", "*/"),)
    ),
)

# What an unknown or missing language gets: no comments, no strings, no bracket rule.
PLAIN_TEXT = Language(
    name="plaintext",
    display="Plain Text",
    aliases=("text", "plain text"),
    mime_types=("text/plain",),
    brackets=False,
)

ALL: tuple[Language, ...] = (*LANGUAGES, PLAIN_TEXT)


def _index() -> tuple[dict[str, Language], dict[str, Language]]:
    by_name: dict[str, Language] = {}
    by_extension: dict[str, Language] = {}
    for language in ALL:
        for key in language.names:
            other = by_name.setdefault(key, language)
            if other is not language:
                raise ValueError(f"language name {key!r} belongs to {other.name!r} and {language.name!r}")
        for ext in language.extensions:
            if ext != ext.lower() or not ext.startswith("."):
                raise ValueError(f"extension {ext!r} of {language.name!r}: lower case, with the dot")
            other = by_extension.setdefault(ext, language)
            if other is not language:
                raise ValueError(f"extension {ext!r} belongs to {other.name!r} and {language.name!r}")
    return by_name, by_extension


_BY_NAME, _BY_EXTENSION = _index()


def lookup(name: str | None) -> Language | None:
    """The record for a name, alias or MIME type (any case), or None."""
    if not name:
        return None
    return _BY_NAME.get(name.strip().lower())


def normalize(name: str | None) -> str | None:
    """The id for a name (``python3`` -> ``python``); an unknown name, lower-cased; None for none."""
    if not name or not name.strip():
        return None
    found = lookup(name)
    return found.name if found is not None else name.strip().lower()


def from_path(path: str | None) -> Language | None:
    """The record for a file's extension, or None."""
    if not path:
        return None
    return _BY_EXTENSION.get(posixpath.splitext(path.lower())[1])


def comment_marker(name: str | None) -> str:
    """The line-comment marker of a language (``#`` when it has none or is unknown)."""
    found = lookup(name)
    return (found.comment if found is not None else None) or DEFAULT_COMMENT


def title(name: str | None) -> str:
    """The display name of a language (an unknown one capitalised; "" for none)."""
    if not name:
        return ""
    found = lookup(name)
    return found.title if found is not None else name[:1].upper() + name[1:]


def file_extension(name: str | None) -> str | None:
    """The extension a file of this language is named with (``.py``), or None."""
    found = lookup(name)
    if found is None:
        return None
    return found.file_extension or (found.extensions[0] if found.extensions else None)


# -- the client's table ---------------------------------------------------------------------------

TYPESCRIPT_PATH = "src/context/languagetable.ts"

_TS_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")


def _ts_key(key: str) -> str:
    return key if _TS_IDENTIFIER.match(key) else _ts_string(key)


def _ts_string(text: str) -> str:
    return "'" + json.dumps(text)[1:-1].replace("'", "\\'") + "'"


def _ts_marker(text: str) -> str:
    """A string in an array as Prettier writes it (double quotes when it holds a single quote)."""
    return json.dumps(text) if "'" in text and '"' not in text else _ts_string(text)


def render_typescript() -> str:
    """``src/context/languagetable.ts``: every name → id, and id → display name, for the client."""
    ids = sorted((key, language.name) for language in ALL for key in language.names)
    titles = sorted((language.name, language.title) for language in ALL)
    comments = sorted((language.name, language.line_comments) for language in ALL if language.line_comments)
    lines = [
        "/**",
        " * Language names, GENERATED from `jupyter_codecomplete/languages.py` (the one language",
        " * table) by `python -m jupyter_codecomplete.languages > src/context/languagetable.ts`:",
        " * do not edit. `tests/test_languages.py` fails when this file is stale.",
        " */",
        "",
        "/**",
        " * Every name, alias and MIME type of a known language (lower case) → the language's id.",
        " */",
        "export const LANGUAGE_IDS: { readonly [name: string]: string } = {",
        *(f"  {_ts_key(key)}: {_ts_string(value)}," for key, value in ids),
        "};",
        "",
        "/**",
        " * A language's id → the name shown for it.",
        " */",
        "export const LANGUAGE_NAMES: { readonly [id: string]: string } = {",
        *(f"  {_ts_key(key)}: {_ts_string(value)}," for key, value in titles),
        "};",
        "",
        "/**",
        " * A language's id → its line-comment markers (the usage statistics' line kinds).",
        " */",
        "export const LINE_COMMENTS: { readonly [id: string]: ReadonlyArray<string> } = {",
        *(f"  {_ts_key(key)}: [{', '.join(_ts_marker(m) for m in value)}]," for key, value in comments),
        "};",
        "",
        "/**",
        " * The id of a language name, alias or MIME type (any case); an unknown name, lower-cased.",
        " */",
        "export function languageId(name: string): string {",
        "  const key = name.trim().toLowerCase();",
        "  const known = Object.prototype.hasOwnProperty.call(LANGUAGE_IDS, key);",
        "  return known ? LANGUAGE_IDS[key] : key;",
        "}",
        "",
    ]
    # Prettier style (single quotes, keys quoted only where needed, trailing commas "none", lines
    # under 80 characters), so a formatter leaves the generated bytes alone.
    text = "\n".join(lines)
    return text.replace(",\n};", "\n};")


def main(argv: list[str] | None = None) -> int:
    sys.stdout.write(render_typescript())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
