"""Completion tasks sampled deterministically from a folder of ``.py`` files and ``.ipynb`` notebooks.

A *document* is one Python file or one code cell of a notebook (with the notebook's other cells as
context). Each task cuts a *target* out of a document at a cursor: ``prefix + target + suffix`` is the
document exactly, so the model sees the real text on both sides. Three kinds:

``next_line``
    the rest of a line after its indentation (the cursor stands where the editor's auto-indent puts it);
``span``
    a random span inside a line (at least 3 characters, never the whole line's content);
``block``
    the whole body of a block after a line ending with ``:`` (at most ``MAX_BLOCK_LINES`` lines),
    from the first body line's indentation to the end of its last non-blank line.

Sampling: every candidate of a kind across the folder (files in sorted order) is listed, then
``random.Random(seed)`` picks ``samples`` of them (and, for spans, where the span starts and ends).
The same folder and seed always give the same tasks.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..protocol import ContextCell, InlineCompletionRequest

KINDS: tuple[str, ...] = ("next_line", "span", "block")
MAX_BLOCK_LINES = 12
MAX_BLOCK_CHARS = 800
MIN_LINE_CHARS = 4  # a next_line target has at least this many non-blank characters
MAX_FILE_BYTES = 1_000_000
SKIP_DIRS = frozenset({"__pycache__", ".ipynb_checkpoints", "node_modules", ".git", ".venv", "venv"})


@dataclass
class Document:
    """One file, or one code cell of a notebook with the notebook's other cells."""

    path: str  # relative to the folder; for a notebook cell ``nb.ipynb#cell3``
    text: str
    language: str = "python"
    cells_above: list[ContextCell] = field(default_factory=list)
    cells_below: list[ContextCell] = field(default_factory=list)

    @property
    def is_notebook(self) -> bool:
        return "#cell" in self.path


@dataclass
class Task:
    """One completion task: the editor's cursor in a real document and the text that really follows."""

    id: str
    kind: str
    path: str
    line: int  # 1-based line of the cursor in the document
    column: int  # 0-based column of the cursor
    prefix: str
    target: str
    suffix: str
    language: str = "python"
    cells_above: list[ContextCell] = field(default_factory=list)
    cells_below: list[ContextCell] = field(default_factory=list)

    def request(self, number: int = 0, notebook_context: bool = True) -> InlineCompletionRequest:
        """The request the editor would send at this cursor."""
        path = self.path.split("#", 1)[0]
        return InlineCompletionRequest(
            number=number,
            path=path,
            language=self.language,
            prefix=self.prefix,
            suffix=self.suffix,
            cells_above=list(self.cells_above) if notebook_context else [],
            cells_below=list(self.cells_below) if notebook_context else [],
        )

    def summary(self) -> dict[str, Any]:
        """The task for a JSON report (without the long prefix and suffix)."""
        d = asdict(self)
        for key in ("prefix", "suffix", "cells_above", "cells_below"):
            d.pop(key)
        d["context_cells"] = len(self.cells_above) + len(self.cells_below)
        return d


# ---------------------------------------------------------------------------------------- documents


def _cell_source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def notebook_documents(rel: str, nb: dict[str, Any]) -> list[Document]:
    """One document per code cell; every other cell (code or markdown) is its context."""
    lang = ((nb.get("metadata") or {}).get("language_info") or {}).get("name") or "python"
    cells = [c for c in nb.get("cells", []) if c.get("cell_type") in ("code", "markdown", "raw")]
    ctx = [ContextCell(cell_type=c["cell_type"], source=_cell_source(c)) for c in cells]
    docs = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        docs.append(
            Document(
                path=f"{rel}#cell{i}",
                text=_cell_source(cell),
                language=lang,
                cells_above=ctx[:i],
                cells_below=ctx[i + 1 :],
            )
        )
    return docs


def find_documents(folder: str) -> list[Document]:
    """Every ``.py`` file and every notebook code cell under ``folder``, in sorted path order."""
    paths: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in files:
            if name.endswith((".py", ".ipynb")) and not name.startswith("."):
                paths.append(os.path.join(root, name))
    docs: list[Document] = []
    for path in sorted(paths, key=lambda p: os.path.relpath(p, folder)):
        rel = os.path.relpath(path, folder).replace(os.sep, "/")
        if os.path.getsize(path) > MAX_FILE_BYTES:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if path.endswith(".ipynb"):
            try:
                docs.extend(notebook_documents(rel, json.loads(text)))
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
        else:
            docs.append(Document(path=rel, text=text))
    return docs


# ---------------------------------------------------------------------------------------- candidates


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset of the line start, line without its newline) for every line."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _interesting(content: str) -> bool:
    s = content.strip()
    return len(s) >= MIN_LINE_CHARS and not s.startswith("#") and any(ch.isalnum() for ch in s)


def _line_candidates(doc: Document) -> list[tuple[int, int, int]]:
    """(line index, start, end) offsets of each line's content after its indentation."""
    out = []
    for i, (pos, line) in enumerate(_lines(doc.text)):
        content = line.rstrip()
        if _interesting(content):
            out.append((i, pos + _indent(line), pos + len(content)))
    return out


def _block_candidates(doc: Document) -> list[tuple[int, int, int]]:
    """(header line index, start, end) of each block body of at most MAX_BLOCK_LINES lines."""
    lines = _lines(doc.text)
    out = []
    for i, (_, line) in enumerate(lines):
        code = line.rstrip()
        if not code.endswith(":") or code.lstrip().startswith("#"):
            continue
        header_indent = _indent(line)
        body: list[int] = []
        for j in range(i + 1, len(lines)):
            text = lines[j][1]
            if not text.strip():
                body.append(j)
                continue
            if _indent(text) <= header_indent:
                break
            body.append(j)
        while body and not lines[body[-1]][1].strip():
            body.pop()
        if not body or len(body) > MAX_BLOCK_LINES or not lines[body[0]][1].strip():
            continue
        first_pos, first = lines[body[0]]
        last_pos, last = lines[body[-1]]
        start = first_pos + _indent(first)
        end = last_pos + len(last.rstrip())
        if 0 < end - start <= MAX_BLOCK_CHARS:
            out.append((i, start, end))
    return out


def _make_task(doc: Document, kind: str, n: int, start: int, end: int) -> Task:
    line = doc.text.count("\n", 0, start) + 1
    column = start - (doc.text.rfind("\n", 0, start) + 1)
    return Task(
        id=f"{kind}-{n}",
        kind=kind,
        path=doc.path,
        line=line,
        column=column,
        prefix=doc.text[:start],
        target=doc.text[start:end],
        suffix=doc.text[end:],
        language=doc.language,
        cells_above=doc.cells_above,
        cells_below=doc.cells_below,
    )


def sample_tasks(
    documents: Sequence[Document], samples: int, seed: int = 0, kinds: Iterable[str] = KINDS
) -> list[Task]:
    """``samples`` tasks of each kind (fewer when the folder has fewer candidates), deterministically."""
    tasks: list[Task] = []
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"unknown task kind {kind!r}; known: {', '.join(KINDS)}")
        rng = random.Random(f"{seed}:{kind}")
        finder = _block_candidates if kind == "block" else _line_candidates
        pool = [(d, c) for d in documents for c in finder(d)]
        if kind == "span":
            pool = [(d, c) for d, c in pool if c[2] - c[1] >= 8]
        picked = rng.sample(pool, min(samples, len(pool)))
        for n, (doc, (_, start, end)) in enumerate(picked):
            if kind == "span":
                length = rng.randint(3, min(24, end - start - 1))
                begin = rng.randint(start, end - length)
                start, end = begin, begin + length
            tasks.append(_make_task(doc, kind, n, start, end))
    return tasks
