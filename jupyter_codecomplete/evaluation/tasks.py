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
    from the first body line's indentation to the end of its last non-blank line;
``member``
    what follows ``name.`` (an attribute), ``name[`` (a key: a string literal or a name) or
    ``name(`` (a keyword argument ``sep=``): where the kernel's candidates help. Not in the
    default kinds.

Notebook cells above a task's cell carry their saved outputs (text only, as the editor sends
them), and ``kernel.py`` can give ``member`` tasks what a real kernel completes at the cursor.

Sampling: every candidate of a kind across the folder (files in sorted order) is listed, then
``random.Random(seed)`` picks ``samples`` of them (and, for spans, where the span starts and ends).
The same folder and seed always give the same tasks.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..languages import normalize
from ..protocol import (
    MAX_CELL_OUTPUTS,
    MAX_OUTPUT_TEXT,
    CellOutput,
    ContextCell,
    InlineCompletionRequest,
    KernelCandidates,
)

KINDS: tuple[str, ...] = ("next_line", "span", "block", "member")
DEFAULT_KINDS: tuple[str, ...] = ("next_line", "span", "block")
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
    # what the kernel completes at the cursor (``kernel.py`` fills it in for ``member`` tasks)
    kernel_candidates: KernelCandidates | None = None

    def request(
        self,
        number: int = 0,
        notebook_context: bool = True,
        cell_outputs: bool = True,
        kernel_candidates: bool = True,
    ) -> InlineCompletionRequest:
        """The request the editor would send at this cursor (with the editor's switches)."""
        path = self.path.split("#", 1)[0]
        above = list(self.cells_above) if notebook_context else []
        if not cell_outputs:
            above = [c.model_copy(update={"outputs": []}) if c.outputs else c for c in above]
        return InlineCompletionRequest(
            number=number,
            path=path,
            language=self.language,
            prefix=self.prefix,
            suffix=self.suffix,
            cells_above=above,
            cells_below=list(self.cells_below) if notebook_context else [],
            kernel_candidates=self.kernel_candidates if kernel_candidates else None,
        )

    def summary(self) -> dict[str, Any]:
        """The task for a JSON report (without the long prefix and suffix)."""
        d = asdict(self)
        for key in ("prefix", "suffix", "cells_above", "cells_below", "kernel_candidates"):
            d.pop(key)
        d["context_cells"] = len(self.cells_above) + len(self.cells_below)
        d["context_outputs"] = sum(len(c.outputs) for c in self.cells_above)
        d["kernel_candidates"] = len(self.kernel_candidates.items) if self.kernel_candidates else 0
        return d


# ---------------------------------------------------------------------------------------- documents


def _cell_source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _text(value: Any) -> str:
    return "".join(str(v) for v in value) if isinstance(value, list) else str(value or "")


def output_from_nbformat(output: Any) -> CellOutput | None:
    """A saved output as the editor sends it: text results, streams, an error's name and message;
    never images or widgets (the prompt builder cleans and cuts the text)."""
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text"))
    elif kind == "error":
        name, value = str(output.get("ename") or ""), str(output.get("evalue") or "")
        text = f"{name}: {value}" if value else name
    elif kind in ("execute_result", "display_data"):
        text = _text((output.get("data") or {}).get("text/plain"))
    else:
        return None
    if not text.strip():
        return None
    return CellOutput(output_type=kind, text=text[:MAX_OUTPUT_TEXT])


def _context_cell(cell: dict[str, Any], with_outputs: bool) -> ContextCell:
    outputs: list[CellOutput] = []
    if with_outputs and cell["cell_type"] == "code":
        for raw in cell.get("outputs") or []:
            out = output_from_nbformat(raw)
            if out is not None and len(outputs) < MAX_CELL_OUTPUTS:
                outputs.append(out)
    return ContextCell(cell_type=cell["cell_type"], source=_cell_source(cell), outputs=outputs)


def notebook_documents(rel: str, nb: dict[str, Any]) -> list[Document]:
    """One document per code cell; every other cell (code or markdown) is its context, the cells
    above with their saved outputs."""
    # the id the client sends for the notebook's kernel language (``languages.py``)
    lang = normalize(((nb.get("metadata") or {}).get("language_info") or {}).get("name")) or "python"
    cells = [c for c in nb.get("cells", []) if c.get("cell_type") in ("code", "markdown", "raw")]
    above = [_context_cell(c, with_outputs=True) for c in cells]
    below = [_context_cell(c, with_outputs=False) for c in cells]
    docs = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        docs.append(
            Document(
                path=f"{rel}#cell{i}",
                text=_cell_source(cell),
                language=lang,
                cells_above=above[:i],
                cells_below=below[i + 1 :],
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


# `name.` / `name[` / `name(` (a name right before the trigger; mirrors src/context/kernel.ts) and what
# the user would type after it
_TRIGGER = re.compile(r"[.\[(]")
_NAME_BEFORE = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_DEFINITION = re.compile(r"\b(?:def|class)\s+$")
_AFTER = {
    ".": re.compile(r"[A-Za-z_]\w*"),
    "[": re.compile(r"'[^'\n\\]{1,60}'|\"[^\"\n\\]{1,60}\"|[A-Za-z_]\w*"),
    "(": re.compile(r"[A-Za-z_]\w*=(?!=)"),
}


def _in_string_or_comment(text: str) -> bool:
    quote = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return True
        i += 1
    return quote is not None


def _member_candidates(doc: Document) -> list[tuple[int, int, int]]:
    """(line index, start, end) of what follows each ``name.`` / ``name[`` / ``name(``."""
    out = []
    for i, (pos, line) in enumerate(_lines(doc.text)):
        for m in _TRIGGER.finditer(line):
            name = _NAME_BEFORE.search(line, 0, m.start())
            after = _AFTER[m.group()].match(line, m.end())
            before = line[: name.start()] if name else ""
            if name and after and not _in_string_or_comment(before) and not _DEFINITION.search(before):
                out.append((i, pos + m.end(), pos + after.end()))
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
    documents: Sequence[Document], samples: int, seed: int = 0, kinds: Iterable[str] = DEFAULT_KINDS
) -> list[Task]:
    """``samples`` tasks of each kind (fewer when the folder has fewer candidates), deterministically."""
    tasks: list[Task] = []
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"unknown task kind {kind!r}; known: {', '.join(KINDS)}")
        rng = random.Random(f"{seed}:{kind}")
        finder = {"block": _block_candidates, "member": _member_candidates}.get(kind, _line_candidates)
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
