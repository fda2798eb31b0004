"""Per-language post-processing rules as DATA: one :class:`LanguageRules` record per language.

The filters never test a language name; they read these records (comment markers, string delimiters,
block openers/closers, words that continue a block, top-level stops, ...). Adding a language is
adding a record to :data:`LANGUAGES`.
"""

from __future__ import annotations

import re
from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field


class StringDelim(BaseModel):
    """A string delimiter (the same text opens and closes the string)."""

    model_config = ConfigDict(frozen=True)
    delim: str
    multiline: bool = False  # may the string span lines (else a newline ends it)


class LanguageRules(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    aliases: tuple[str, ...] = ()
    line_comments: tuple[str, ...] = ()
    block_comments: tuple[tuple[str, str], ...] = ()
    strings: tuple[StringDelim, ...] = ()
    escape: str = "\\"
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
    # aliases with a grammar of their own (TypeScript shares JavaScript's rules, not its grammar)
    alias_grammars: dict[str, str] = Field(default_factory=dict)
    # prose: single line, single sentence
    prose: bool = False
    # strip markdown code fences
    fences: bool = True
    # IPython cell magics (``%%sql``) -> the language of the rest of the cell
    cell_magics: dict[str, str] = Field(default_factory=dict)

    @cached_property
    def opener_re(self) -> re.Pattern[str] | None:
        return re.compile(self.block_opener) if self.block_opener else None

    @cached_property
    def top_level_re(self) -> re.Pattern[str] | None:
        return re.compile(self.top_level_stop) if self.top_level_stop else None

    @cached_property
    def stop_line_re(self) -> re.Pattern[str] | None:
        return re.compile(self.stop_line) if self.stop_line else None


_PY_STRINGS = (
    StringDelim(delim='"""', multiline=True),
    StringDelim(delim="'''", multiline=True),
    StringDelim(delim='"'),
    StringDelim(delim="'"),
)

_C_CONTINUE = ("else", "catch", "finally", "while", "case", "default")
_C_TOP = r"^(static\s+|extern\s+|inline\s+)*(struct|enum|union|typedef|class|namespace|template)\b"
_JVM_TOP = (
    r"^(public|private|internal|protected|abstract|final|sealed|data|open)?\s*"
    r"(class|interface|enum|record|object|fun)\b"
)

LANGUAGES: tuple[LanguageRules, ...] = (
    LanguageRules(
        name="python",
        grammar="python",
        aliases=("ipython", "ipython3", "python3", "py", "text/x-python", "text/x-ipython"),
        line_comments=("#",),
        strings=_PY_STRINGS,
        opaque_line_starts=("%", "!"),
        block_opener=r":$",
        continuation_words=("elif", "else", "except", "finally", "case"),
        top_level_stop=r"^(def|class|async\s+def)\b|^@\w|^if\s+__name__\b",
        stop_line=r"^#\s*(%%|In\s*\[)",
        cell_magics={
            "sql": "sql",
            "bash": "shell",
            "sh": "shell",
            "script": "shell",
            "r": "r",
            "javascript": "javascript",
            "js": "javascript",
            "markdown": "markdown",
            "html": "text",
            "latex": "text",
            "writefile": "text",
            "capture": "python",
            "time": "python",
            "timeit": "python",
        },
        indent_matters=True,
    ),
    LanguageRules(
        name="r",
        grammar="r",
        aliases=("text/x-rsrc", "rlang"),
        line_comments=("#",),
        strings=(
            StringDelim(delim='"', multiline=True),
            StringDelim(delim="'", multiline=True),
            StringDelim(delim="`"),
        ),
        continuation_words=("else",),
        top_level_stop=r"^[\w.]+\s*(<-|=)\s*function\b",
        stop_line=r"^#\s*(%%|In\s*\[)",
    ),
    LanguageRules(
        name="julia",
        grammar="julia",
        aliases=("jl",),
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
        stop_line=r"^#\s*(%%|In\s*\[)",
    ),
    LanguageRules(
        name="sql",
        aliases=("text/x-sql", "mysql", "postgresql", "sqlite", "plsql"),
        line_comments=("--",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim="'", multiline=True), StringDelim(delim='"', multiline=True)),
        escape="",
        statement_end=";",
    ),
    LanguageRules(
        name="javascript",
        grammar="javascript",
        alias_grammars={
            "typescript": "typescript",
            "ts": "typescript",
            "text/typescript": "typescript",
            "tsx": "tsx",
        },
        aliases=("js", "node", "typescript", "ts", "jsx", "tsx", "text/javascript", "text/typescript"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"'), StringDelim(delim="'"), StringDelim(delim="`", multiline=True)),
        continuation_words=("else", "catch", "finally", "while"),
        top_level_stop=r"^(export\s+)?(default\s+)?(async\s+)?(function|class|interface|enum)\b",
        stop_line=r"^//\s*(%%|In\s*\[)",
        brace_lines=True,
    ),
    LanguageRules(
        name="markdown",
        aliases=("md", "text/markdown", "text/x-markdown"),
        brackets=False,
        fences=False,
        prose=True,
    ),
    LanguageRules(
        name="shell",
        grammar="bash",
        aliases=("bash", "sh", "zsh"),
        line_comments=("#",),
        strings=(StringDelim(delim='"', multiline=True), StringDelim(delim="'", multiline=True)),
        brackets=False,  # `case` patterns close brackets they never opened
        block_opener=r"(^|[;\s])(then|do|else)$|\{$|^case\b.*\bin$",
        continuation_words=("elif", "else"),
        closer_words=("fi", "done", "esac"),
        stop_line=r"^#\s*(%%|In\s*\[)",
    ),
    # The C family (braces, `//` and `/* */` comments): one record per language for its strings.
    LanguageRules(
        name="c",
        grammar="c",
        aliases=("h", "text/x-csrc", "objective-c", "objc"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"'), StringDelim(delim="'")),
        opaque_line_starts=("#",),
        continuation_words=_C_CONTINUE,
        top_level_stop=_C_TOP,
        brace_lines=True,
    ),
    LanguageRules(
        name="cpp",
        grammar="cpp",
        aliases=("c++", "cxx", "hpp", "cc", "text/x-c++src"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"'), StringDelim(delim="'")),
        opaque_line_starts=("#",),
        continuation_words=(*_C_CONTINUE, "public", "private", "protected"),
        top_level_stop=_C_TOP,
        brace_lines=True,
    ),
    LanguageRules(
        name="java",
        grammar="java",
        aliases=("text/x-java",),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"'), StringDelim(delim="'")),
        continuation_words=_C_CONTINUE,
        top_level_stop=_JVM_TOP,
        brace_lines=True,
    ),
    LanguageRules(
        name="csharp",
        grammar="csharp",
        aliases=("c#", "cs", "text/x-csharp"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"'), StringDelim(delim="'")),
        continuation_words=_C_CONTINUE,
        top_level_stop=_JVM_TOP,
        brace_lines=True,
    ),
    LanguageRules(
        name="kotlin",
        grammar="kotlin",
        aliases=("kt", "kts", "text/x-kotlin"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"'), StringDelim(delim="'")),
        continuation_words=_C_CONTINUE,
        top_level_stop=_JVM_TOP,
        brace_lines=True,
    ),
    LanguageRules(
        name="scala",
        grammar="scala",
        aliases=("sc", "text/x-scala"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"'), StringDelim(delim="'")),
        block_opener=r"(=|=>|\bdo|\bthen|\byield)$",
        continuation_words=(*_C_CONTINUE, "case"),
        top_level_stop=r"^(object|class|trait|def|case\s+class|enum)\b",
        brace_lines=True,
    ),
    LanguageRules(
        name="go",
        grammar="go",
        aliases=("golang", "text/x-go"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"'), StringDelim(delim="'"), StringDelim(delim="`", multiline=True)),
        continuation_words=("else",),
        top_level_stop=r"^(func|type|var|const|import)\b",
    ),
    LanguageRules(
        name="rust",
        grammar="rust",
        aliases=("rs", "text/x-rustsrc"),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        # no `'` strings: lifetimes (`'a`) would open one
        strings=(StringDelim(delim='"', multiline=True),),
        continuation_words=("else",),
        top_level_stop=r"^(pub\s+)?(fn|struct|enum|impl|trait|mod|const|static|type|use)\b",
    ),
    LanguageRules(
        name="swift",
        grammar="swift",
        aliases=("text/x-swift",),
        line_comments=("//",),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"')),
        continuation_words=("else", "catch"),
        top_level_stop=r"^(func|class|struct|enum|protocol|extension)\b",
        brace_lines=True,
    ),
    LanguageRules(
        name="php",
        grammar="php",
        aliases=("text/x-php",),
        line_comments=("//", "#"),
        block_comments=(("/*", "*/"),),
        strings=(StringDelim(delim='"', multiline=True), StringDelim(delim="'", multiline=True)),
        continuation_words=("else", "elseif", "catch", "finally"),
        top_level_stop=r"^(function|class|interface|trait)\b",
        brace_lines=True,
    ),
    LanguageRules(
        name="ruby",
        grammar="ruby",
        aliases=("rb", "text/x-ruby"),
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
    LanguageRules(
        name="lua",
        grammar="lua",
        aliases=("text/x-lua",),
        line_comments=("--",),
        block_comments=(("--[[", "]]"),),
        strings=(StringDelim(delim='"'), StringDelim(delim="'")),
        block_opener=r"\b(then|do|else)$|\bfunction\b[^)]*\)$|^repeat$",
        continuation_words=("else", "elseif", "until"),
        closer_words=("end",),
        top_level_stop=r"^(local\s+)?function\b",
    ),
    LanguageRules(
        name="fsharp",
        grammar="fsharp",
        aliases=("f#", "fs", "fsx", "text/x-fsharp"),
        line_comments=("//",),
        block_comments=(("(*", "*)"),),
        strings=(StringDelim(delim='"""', multiline=True), StringDelim(delim='"', multiline=True)),
        block_opener=r"(=|->|\bdo|\bthen|\belse|\bwith)$",
        continuation_words=("else", "elif", "with", "finally"),
        top_level_stop=r"^(let|type|module|open)\b",
        indent_matters=True,
    ),
    LanguageRules(
        name="yaml",
        grammar="yaml",
        aliases=("yml", "text/x-yaml"),
        line_comments=("#",),
        strings=(StringDelim(delim='"'), StringDelim(delim="'")),
        escape="",
        brackets=False,
        block_opener=r":$|:\s*[|>][-+]?$|^-$",
        indent_matters=True,
    ),
)

DEFAULT_RULES = LanguageRules(name="text", brackets=False)

_BY_NAME: dict[str, LanguageRules] = {}
for _rules in (*LANGUAGES, DEFAULT_RULES):
    for _key in (_rules.name, *_rules.aliases):
        _BY_NAME[_key.lower()] = _rules

_CELL_MAGIC = re.compile(r"\s*%%(\w+)")


def grammar_for(language: str | None, rules: LanguageRules) -> str | None:
    """The tree-sitter grammar for a request's language (an alias may have its own)."""
    return rules.alias_grammars.get((language or "").strip().lower(), rules.grammar)


def rules_for(language: str | None, prefix: str = "") -> LanguageRules:
    """The rules for ``language``; for an IPython cell starting with a cell magic (``%%sql``), the
    rules of the magic's language."""
    rules = _BY_NAME.get((language or "").strip().lower(), DEFAULT_RULES)
    if rules.cell_magics:
        m = _CELL_MAGIC.match(prefix)
        if m:
            target = rules.cell_magics.get(m.group(1).lower())
            if target is not None:
                return _BY_NAME.get(target, DEFAULT_RULES)
    return rules
