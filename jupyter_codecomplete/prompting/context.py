"""Context assembly: notebook cells around the cursor (languages and comment markers: ``languages.py``).

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

from .. import languages as _languages
from ..protocol import ContextCell

CELL_SEPARATOR = "\n\n"

# Language facts (comment markers, names, extensions) live in the one table, ``languages.py``.
DEFAULT_COMMENT = _languages.DEFAULT_COMMENT


def normalize_language(language: str | None) -> str | None:
    """The language's id (``python3``, ``IPython`` -> ``python``); an unknown name, lower-cased."""
    return _languages.normalize(language)


def language_from_path(path: str | None) -> str | None:
    """The language of a file from its extension, or None."""
    found = _languages.from_path(path)
    return found.name if found is not None else None


def comment_marker(language: str | None) -> str:
    """The line-comment marker prompts use for a language (``#`` when it has none)."""
    return _languages.comment_marker(language)


def language_tag(language: str | None) -> str:
    """The display name of a language (CodeGeeX4's ``###LANGUAGE:`` tag, chat prompts)."""
    return _languages.title(language)


def display_path(path: str | None, language: str | None) -> str:
    """The name the prompt gives the current file; a notebook is shown as a script of its language."""
    if not path:
        return "untitled" + (_languages.file_extension(language) or "")
    root, ext = posixpath.splitext(path)
    if ext.lower() == ".ipynb":
        return root + (_languages.file_extension(language) or ".py")
    return path


def as_comment(text: str, marker: str) -> str:
    """Each line of ``text`` as a line comment (blank lines become a bare marker).

    Every line break a language may honour ends a line here: ``\\r``, vertical tab, form feed,
    U+0085 and U+2028/U+2029 (JavaScript ends a ``//`` comment at them), so none of them can put the
    rest of the line outside the comment."""
    lines = text.rstrip("\n").splitlines() or [""]
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
