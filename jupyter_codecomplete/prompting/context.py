"""Context assembly: notebook cells around the cursor, languages, comment markers, file names.

Cells above the cursor become the top of the prefix, cells below the end of the suffix. Markdown
cells become line comments of the current cell's language; raw cells are left out (they hold
nbconvert material, not code). A code cell's outputs, when the caller passes them (rendered by
``outputs.py``), follow its source. Cells are separated by one blank line.

Assembly is lazy: cells are taken nearest-first and the walk stops once ``max_chars`` characters are
collected, so a 1,000-cell notebook is not joined whole when only its last cells fit the budget.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence

from ..protocol import ContextCell

CELL_SEPARATOR = "\n\n"

# language id -> line-comment marker (data, extend freely)
COMMENT_MARKERS: dict[str, str] = {
    **dict.fromkeys(
        [
            "python",
            "ipython",
            "r",
            "julia",
            "shell",
            "bash",
            "sh",
            "zsh",
            "ruby",
            "perl",
            "yaml",
            "toml",
            "powershell",
            "nim",
            "crystal",
            "elixir",
            "coffeescript",
            "makefile",
            "dockerfile",
            "cmake",
            "raku",
        ],
        "#",
    ),
    **dict.fromkeys(["sql", "lua", "haskell", "ada", "elm", "vhdl", "sparql", "purescript"], "--"),
    **dict.fromkeys(
        [
            "javascript",
            "typescript",
            "java",
            "c",
            "cpp",
            "c++",
            "csharp",
            "c#",
            "go",
            "rust",
            "swift",
            "kotlin",
            "scala",
            "dart",
            "php",
            "groovy",
            "objective-c",
            "zig",
            "verilog",
            "solidity",
            "fsharp",
            "f#",
            "jsx",
            "tsx",
            "glsl",
            "cuda",
        ],
        "//",
    ),
    **dict.fromkeys(["matlab", "octave", "latex", "tex", "erlang", "prolog", "postscript"], "%"),
    **dict.fromkeys(["lisp", "scheme", "clojure", "racket", "emacs-lisp", "assembly", "asm"], ";"),
    **dict.fromkeys(["fortran"], "!"),
    **dict.fromkeys(["vb", "vba", "visual basic"], "'"),
}
DEFAULT_COMMENT = "#"

# aliases seen in kernel specs / CodeMirror modes -> our language id
LANGUAGE_ALIASES: dict[str, str] = {
    "python3": "python",
    "ipython3": "python",
    "py": "python",
    "js": "javascript",
    "node": "javascript",
    "ts": "typescript",
    "c++": "cpp",
    "cxx": "cpp",
    "cs": "csharp",
    "c#": "csharp",
    "rs": "rust",
    "golang": "go",
    "sh": "shell",
    "bash": "shell",
    "zsh": "shell",
    "jl": "julia",
    "rb": "ruby",
    "kt": "kotlin",
    "text/x-python": "python",
    "text/x-sql": "sql",
    "text/x-rsrc": "r",
    "octave": "matlab",
}

# file extension -> language id
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".ipynb": "python",
    ".r": "r",
    ".jl": "julia",
    ".sql": "sql",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cxx": "cpp",
    ".cs": "csharp",
    ".go": "go",
    ".rs": "rust",
    ".swift": "swift",
    ".kt": "kotlin",
    ".scala": "scala",
    ".dart": "dart",
    ".php": "php",
    ".rb": "ruby",
    ".pl": "perl",
    ".lua": "lua",
    ".hs": "haskell",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".m": "matlab",
    ".tex": "latex",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".clj": "clojure",
    ".scm": "scheme",
    ".lisp": "lisp",
    ".f90": "fortran",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".zig": "zig",
    ".sol": "solidity",
    ".md": "markdown",
}

# language id -> file extension used to name a notebook's code as a file (``a.ipynb`` -> ``a.py``)
LANGUAGE_EXTENSION: dict[str, str] = {
    "python": ".py",
    "r": ".R",
    "julia": ".jl",
    "sql": ".sql",
    "javascript": ".js",
    "typescript": ".ts",
    "java": ".java",
    "scala": ".scala",
    "go": ".go",
    "rust": ".rs",
    "cpp": ".cpp",
    "c": ".c",
    "csharp": ".cs",
    "ruby": ".rb",
    "shell": ".sh",
    "matlab": ".m",
    "haskell": ".hs",
    "lua": ".lua",
    "kotlin": ".kt",
    "swift": ".swift",
    "php": ".php",
    "perl": ".pl",
}

# language id -> display name (CodeGeeX4's ``###LANGUAGE:`` tag, chat prompts)
LANGUAGE_TAGS: dict[str, str] = {
    "python": "Python",
    "r": "R",
    "julia": "Julia",
    "sql": "SQL",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "java": "Java",
    "c": "C",
    "cpp": "C++",
    "csharp": "C#",
    "go": "Go",
    "rust": "Rust",
    "swift": "Swift",
    "kotlin": "Kotlin",
    "scala": "Scala",
    "dart": "Dart",
    "php": "PHP",
    "ruby": "Ruby",
    "perl": "Perl",
    "lua": "Lua",
    "haskell": "Haskell",
    "shell": "Shell",
    "matlab": "Matlab",
    "latex": "TeX",
    "yaml": "YAML",
    "toml": "TOML",
    "markdown": "Markdown",
}


def normalize_language(language: str | None) -> str | None:
    if not language:
        return None
    lang = language.strip().lower()
    return LANGUAGE_ALIASES.get(lang, lang) or None


def language_from_path(path: str | None) -> str | None:
    if not path:
        return None
    ext = posixpath.splitext(path.lower())[1]
    return EXTENSIONS.get(ext)


def comment_marker(language: str | None) -> str:
    return COMMENT_MARKERS.get(language or "", DEFAULT_COMMENT)


def language_tag(language: str | None) -> str:
    if not language:
        return ""
    return LANGUAGE_TAGS.get(language, language[:1].upper() + language[1:])


def display_path(path: str | None, language: str | None) -> str:
    """The name the prompt gives the current file; a notebook is shown as a script of its language."""
    if not path:
        return "untitled" + LANGUAGE_EXTENSION.get(language or "", "")
    root, ext = posixpath.splitext(path)
    if ext.lower() == ".ipynb":
        return root + LANGUAGE_EXTENSION.get(language or "", ".py")
    return path


def as_comment(text: str, marker: str) -> str:
    """Each line of ``text`` as a line comment (blank lines become a bare marker)."""
    lines = text.rstrip("\n").split("\n")
    return "\n".join(f"{marker} {line}".rstrip() if line.strip() else marker for line in lines)


def cell_text(cell: ContextCell, language: str | None) -> str | None:
    """A cell as prompt text, or ``None`` when it is left out (raw cells, empty cells)."""
    if cell.cell_type == "raw":
        return None
    source = cell.source.rstrip()
    if not source.strip():
        return None
    if cell.cell_type == "markdown":
        return as_comment(source, comment_marker(language))
    return source


def _collect(
    cells: Iterable[tuple[int, ContextCell]],
    language: str | None,
    max_chars: int | None,
    outputs: Mapping[int, str] | None = None,
) -> tuple[list[str], bool]:
    out: list[str] = []
    total = 0
    for index, cell in cells:
        if max_chars is not None and total >= max_chars:
            return out, True
        text = cell_text(cell, language)
        if text is None:
            continue
        if outputs and index in outputs:
            text += "\n" + outputs[index]
        out.append(text)
        total += len(text) + len(CELL_SEPARATOR)
    return out, False


def assemble_prefix(
    cells_above: Sequence[ContextCell],
    prefix: str,
    language: str | None,
    max_chars: int | None = None,
    outputs: Mapping[int, str] | None = None,
) -> tuple[str, bool]:
    """Cells above (nearest last) + the current cell's prefix. Returns (text, cut_short).

    ``outputs``: index in ``cells_above`` -> that cell's rendered outputs, written after its source.
    """
    indexed = ((i, cells_above[i]) for i in range(len(cells_above) - 1, -1, -1))
    parts, cut = _collect(indexed, language, max_chars, outputs)
    if not parts:
        return prefix, cut
    parts.reverse()
    return CELL_SEPARATOR.join(parts) + CELL_SEPARATOR + prefix, cut


def assemble_suffix(
    suffix: str, cells_below: Sequence[ContextCell], language: str | None, max_chars: int | None = None
) -> tuple[str, bool]:
    """The current cell's suffix + cells below (nearest first). Returns (text, cut_short)."""
    parts, cut = _collect(enumerate(cells_below), language, max_chars)
    if not parts:
        return suffix, cut
    return suffix.rstrip("\n") + CELL_SEPARATOR + CELL_SEPARATOR.join(parts), cut
