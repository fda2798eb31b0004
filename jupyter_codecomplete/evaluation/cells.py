"""``eval --cells``: edit predictions across cells and fixes after an error, on a folder's notebooks.

Three kinds of task, each sent through
:meth:`DefaultInlineCompletionHandler.handle_edit_request` (the websocket's code path) as the
editor sends it (``scope="notebook"``, cell ids, execution counts):

* **cross-cell** (a rename): a name a code cell defines at its top level (an assignment, a
  ``def``, a ``class``) and later cells use; the defining cell with the name renamed is the
  request's cell, the rename its recent edit; the expected edits rename the name in the later
  cells (Python tokens only: no string, no attribute of another object). Run with and without
  the edit history.
* **signature** (a signature change): a top-level ``def`` whose later cells call it gets a
  parameter renamed (one the calls pass by keyword: the expected edits rename the keyword at
  those calls) or a parameter added (a module-level name its body reads becomes its last
  parameter: the expected edits pass ``name=name`` at every call); the cell with the new ``def``
  is the request's cell, the change its recent edit. Run with and without the edit history.
* **error fix** (with ``--kernel NAME``: the notebooks' code runs): a name a code cell uses that
  an earlier cell defined gets a typo (two letters swapped); the cell runs in a real kernel after
  the cells above it and raises; its error, traceback and execution count, and what the kernel
  completes for the typo's first letters, make the request; the expected edit is the cell as it
  was. Run with and without the kernel's candidates.

Reported per configuration and variant: how often the right edit is offered (every expected cell
exactly right, nothing else touched), where (the expected cells it got right; edits in cells that
needed none), and the latency.
"""

from __future__ import annotations

import ast
import io
import json
import os
import random
import time
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..postprocess import Edit, apply_edits
from ..protocol import (
    MAX_TRACEBACK,
    CellError,
    ContextCell,
    EditPredictionRequest,
    KernelCandidate,
    KernelCandidates,
    RecentEdit,
)
from .metrics import markdown_table, percentile
from .runner import EvalConfig
from .tasks import MAX_FILE_BYTES, SKIP_DIRS

# cells after the defining one that a cross-cell task sends, and tasks per notebook
CELLS_AFTER = 12
TASKS_PER_NOTEBOOK = 6
MIN_NAME_CHARS = 3


@dataclass
class CellTask:
    kind: str  # "cross_cell", "signature" or "error_fix"
    notebook: str
    name: str
    text: str
    cursor: int
    cell_id: str
    cells_above: list[ContextCell]
    cells_below: list[ContextCell]
    # the expected source of every cell the task wants changed (the own cell's key: "")
    expected: dict[str, str]
    recent_diff: str = ""
    error: CellError | None = None
    candidates: KernelCandidates | None = None
    line: int | None = None  # error fix: the line that raised (0-based)

    def request(self, number: int, *, history: bool = True, kernel: bool = True) -> EditPredictionRequest:
        return EditPredictionRequest(
            number=number,
            path=self.notebook,
            language="python",
            text=self.text,
            cursor=self.cursor,
            cell_id=self.cell_id,
            scope="notebook",
            trigger="error" if self.error is not None else "manual",
            error=self.error,
            kernel_candidates=self.candidates if kernel else None,
            recent_edits=[RecentEdit(path=self.notebook, diff=self.recent_diff, cell_id=self.cell_id)]
            if history and self.recent_diff
            else [],
            cells_above=self.cells_above,
            cells_below=self.cells_below,
        )


def rename_tokens(source: str, old: str, new: str) -> str | None:
    """``source`` with every Python name token ``old`` (not an attribute after a dot, not in a
    string) renamed; None when it does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    spans: list[tuple[int, int]] = []
    prev = ""
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string == old and prev != ".":
            r, c = tok.start
            spans.append((starts[r - 1] + c, starts[r - 1] + c + len(old)))
        if tok.type not in (
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.COMMENT,
            tokenize.INDENT,
            tokenize.DEDENT,
        ):
            prev = tok.string
    out = source
    for s, e in reversed(spans):
        out = out[:s] + new + out[e:]
    return out


def _defined(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names: list[str] = []
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        for t in targets:
            if isinstance(t, ast.Name):
                names.append(t.id)
    return [n for n in dict.fromkeys(names) if len(n) >= MIN_NAME_CHARS and not n.startswith("_")]


def _uses(source: str, name: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(tree)
    )


def _source(cell: dict[str, Any]) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else str(s)


def _code_cells(nb: dict[str, Any]) -> list[tuple[str, str]]:
    """(cell id, source) of the notebook's code cells (an id made up where the file has none)."""
    out = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") == "code":
            out.append((str(cell.get("id") or f"cell-{i}"), _source(cell)))
    return out


def find_notebooks(folder: str) -> list[tuple[str, dict[str, Any]]]:
    """(relative path, notebook) of every readable Python notebook under ``folder``."""
    found: list[tuple[str, dict[str, Any]]] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = os.path.join(root, name)
            if not name.endswith(".ipynb") or os.path.getsize(path) > MAX_FILE_BYTES:
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    nb = json.load(f)
            except (OSError, ValueError):
                continue
            lang = ((nb.get("metadata") or {}).get("language_info") or {}).get("name") or "python"
            if isinstance(nb, dict) and str(lang).lower() in ("python", "python3", "ipython"):
                found.append((os.path.relpath(path, folder).replace(os.sep, "/"), nb))
    return found


def _context(cells: list[tuple[str, str]], counts: dict[int, int], first: int) -> list[ContextCell]:
    return [
        ContextCell(cell_type="code", source=src, cell_id=cid, execution_count=counts.get(first + k))
        for k, (cid, src) in enumerate(cells)
    ]


def _diff(old: str, new: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), n=1))


def _changed_cell_task(
    kind: str,
    rel: str,
    what: str,
    change: tuple[str, str, int],
    cid: str,
    cells: list[tuple[str, str]],
    i: int,
    later: list[tuple[str, str]],
    counts: dict[int, int],
    expected: dict[str, str],
) -> CellTask:
    """A task where cell ``i`` (id ``cid``) was just changed (``change``: its source before and
    after, the cursor), with the cells above it and ``later`` as context and ``expected`` edits."""
    before, after, cursor = change
    first = max(0, i - CELLS_AFTER)
    return CellTask(
        kind,
        rel,
        what,
        after,
        cursor,
        cid,
        _context(cells[first:i], counts, first),
        _context(later, counts, i + 1),
        expected,
        recent_diff=_diff(before, after),
    )


def cross_cell_tasks(
    notebooks: list[tuple[str, dict[str, Any]]], samples: int, seed: int = 0
) -> list[CellTask]:
    """Rename tasks (see the module docstring), at most ``samples``, chosen with ``seed``."""
    tasks: list[CellTask] = []
    for rel, nb in notebooks:
        cells = _code_cells(nb)
        counts = {i: i + 1 for i in range(len(cells))}  # as if run top to bottom
        made = 0
        for i, (cid, src) in enumerate(cells):
            for name in _defined(src):
                later = cells[i + 1 : i + 1 + CELLS_AFTER]
                if made >= TASKS_PER_NOTEBOOK or not any(_uses(s, name) for _, s in later):
                    continue
                new_name = f"{name}_v2"
                renamed = rename_tokens(src, name, new_name)
                if renamed is None or renamed == src:
                    continue
                expected: dict[str, str] = {}
                for lid, lsrc in later:
                    out = rename_tokens(lsrc, name, new_name)
                    if out is not None and out != lsrc:
                        expected[lid] = out
                if not expected:
                    continue
                cursor = renamed.index(new_name) + len(new_name)
                tasks.append(
                    _changed_cell_task(
                        "cross_cell",
                        rel,
                        name,
                        (src, renamed, cursor),
                        cid,
                        cells,
                        i,
                        later,
                        counts,
                        expected,
                    )
                )
                made += 1
    random.Random(seed).shuffle(tasks)
    return tasks[:samples]


def _offsets_of(source: str) -> Callable[[int, int], int]:
    """(line, column) as :mod:`ast` counts them (1-based line, UTF-8 byte column) → an offset of
    ``source``."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def at(lineno: int, col: int) -> int:
        line = lines[lineno - 1] if lineno - 1 < len(lines) else ""
        return starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", "ignore"))

    return at


def _edited(source: str, spans: list[tuple[int, int, str]]) -> str:
    for start, end, text in sorted(spans, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def _calls(source: str, name: str) -> list[ast.Call] | None:
    """The calls ``name(...)`` of a cell (None: it does not parse, or it calls ``name`` with
    ``*``/``**`` arguments, which a signature change cannot be followed through)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    mine = [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == name]
    if any(isinstance(a, ast.Starred) for c in mine for a in c.args) or any(
        k.arg is None for c in mine for k in c.keywords
    ):
        return None
    return mine


def _simple_defs(source: str) -> list[ast.FunctionDef]:
    """The cell's top-level ``def``s with plain parameters (no ``/``, ``*``, ``**``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
        and n.args.args
        and not (n.args.posonlyargs or n.args.vararg or n.args.kwonlyargs or n.args.kwarg)
        and not n.name.startswith("_")
    ]


def _free_reads(node: ast.FunctionDef, known: set[str]) -> list[str]:
    """Module-level names (of ``known``) the function's body reads and never assigns."""
    params = {a.arg for a in node.args.args}
    stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    read = [
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in known
    ]
    return [n for n in dict.fromkeys(read) if n not in params and n not in stored and n != node.name]


def _signature_changes(
    src: str, node: ast.FunctionDef, earlier: set[str], later: list[tuple[str, str]]
) -> list[tuple[str, str, int, dict[str, str]]]:
    """(what changed, the cell with the new ``def``, the cursor after the change, the expected
    later cells) of each change."""
    at = _offsets_of(src)
    calls = {lid: _calls(lsrc, node.name) for lid, lsrc in later}
    if any(c is None for c in calls.values()):
        return []
    out: list[tuple[str, str, int, dict[str, str]]] = []
    # a parameter renamed, one the later calls pass by keyword
    def_start, def_end = at(node.lineno, 0), at(node.end_lineno or node.lineno, node.end_col_offset or 0)
    for arg in node.args.args:
        new = f"{arg.arg}_v2"
        expected: dict[str, str] = {}
        for lid, lsrc in later:
            lat = _offsets_of(lsrc)
            spans = [
                (lat(k.lineno, k.col_offset), lat(k.lineno, k.col_offset) + len(arg.arg), new)
                for c in calls[lid] or []
                for k in c.keywords
                if k.arg == arg.arg
            ]
            if spans:
                expected[lid] = _edited(lsrc, spans)
        renamed = rename_tokens(src[def_start:def_end], arg.arg, new)
        if expected and renamed is not None:
            changed = src[:def_start] + renamed + src[def_end:]
            cursor = at(arg.lineno, arg.col_offset) + len(new)
            out.append((f"{node.name}({arg.arg} -> {new})", changed, cursor, expected))
    # a module-level name the body reads becomes the last parameter
    if node.args.defaults:
        return out  # a parameter without a default cannot follow one with a default
    last = node.args.args[-1]
    after_last = at(last.end_lineno or last.lineno, last.end_col_offset or 0)
    for name in _free_reads(node, earlier)[:1]:
        expected = {}
        followed = True
        for lid, lsrc in later:
            lat = _offsets_of(lsrc)
            spans = []
            for c in calls[lid] or []:
                close = lat(c.end_lineno or c.lineno, (c.end_col_offset or 1) - 1)
                given: list[ast.expr | ast.keyword] = [*c.args, *c.keywords]
                if not given:
                    spans.append((close, close, f"{name}={name}"))
                    continue
                # after the last argument (a call over several lines keeps its layout)
                end = max(lat(a.end_lineno or a.lineno, a.end_col_offset or 0) for a in given)
                followed = followed and lsrc[end:close].strip() == "" and lsrc[close : close + 1] == ")"
                spans.append((end, end, f", {name}={name}"))
            if spans:
                expected[lid] = _edited(lsrc, spans)
        if expected and followed:  # a call ending in a comma: where the argument goes is layout
            changed = _edited(src, [(after_last, after_last, f", {name}")])
            out.append((f"{node.name}(+{name})", changed, after_last + len(f", {name}"), expected))
    return out


def signature_tasks(
    notebooks: list[tuple[str, dict[str, Any]]], samples: int, seed: int = 0
) -> list[CellTask]:
    """Signature-change tasks (see the module docstring), at most ``samples``, chosen with ``seed``."""
    tasks: list[CellTask] = []
    for rel, nb in notebooks:
        cells = _code_cells(nb)
        counts = {i: i + 1 for i in range(len(cells))}  # as if run top to bottom
        earlier: set[str] = set()
        made = 0
        for i, (cid, src) in enumerate(cells):
            later = cells[i + 1 : i + 1 + CELLS_AFTER]
            for node in _simple_defs(src):
                if _calls(src, node.name):
                    continue  # called in its own cell: not a change across cells
                known = earlier | set(_defined(src[: _offsets_of(src)(node.lineno, 0)]))
                for what, changed, cursor, expected in _signature_changes(src, node, known, later):
                    if made >= TASKS_PER_NOTEBOOK:
                        break
                    tasks.append(
                        _changed_cell_task(
                            "signature",
                            rel,
                            what,
                            (src, changed, cursor),
                            cid,
                            cells,
                            i,
                            later,
                            counts,
                            expected,
                        )
                    )
                    made += 1
            earlier |= set(_defined(src))
    random.Random(seed).shuffle(tasks)
    return tasks[:samples]


def _typo(name: str) -> str:
    k = len(name) // 2
    return name[: k - 1] + name[k] + name[k - 1] + name[k + 1 :] if name[k] != name[k - 1] else name + "x"


def _first_load(source: str, name: str) -> int | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines(keepends=True)
    best: tuple[int, int] | None = None
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            pos = (n.lineno, n.col_offset)
            best = pos if best is None or pos < best else best
    if best is None:
        return None
    return sum(len(line) for line in lines[: best[0] - 1]) + best[1]


def _strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def error_fix_tasks(
    notebooks: list[tuple[str, dict[str, Any]]],
    samples: int,
    folder: str,
    kernel_name: str = "python3",
    cell_timeout: float = 60.0,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[CellTask]:
    """Typo tasks run in a real kernel (see the module docstring)."""
    from jupyter_client.manager import start_new_kernel

    tasks: list[CellTask] = []
    for rel, nb in notebooks:
        cells = _code_cells(nb)
        km, kc = start_new_kernel(
            kernel_name=kernel_name, cwd=os.path.dirname(os.path.abspath(os.path.join(folder, rel)))
        )
        counts: dict[int, int] = {}
        defined: set[str] = set()
        made = 0
        try:
            for i, (cid, src) in enumerate(cells):
                name = next(
                    (
                        n
                        for n in sorted(defined)
                        if made < TASKS_PER_NOTEBOOK and _first_load(src, n) is not None
                    ),
                    None,
                )
                if name is not None:
                    at = _first_load(src, name)
                    assert at is not None
                    bad = _typo(name)
                    broken = src[:at] + bad + src[at + len(name) :]
                    errors: list[dict[str, Any]] = []
                    reply = kc.execute_interactive(
                        broken,
                        timeout=cell_timeout,
                        output_hook=lambda m, errors=errors: (
                            errors.append(m["content"]) if m["msg_type"] == "error" else None
                        ),
                    )
                    count = reply.get("content", {}).get("execution_count")
                    if errors and isinstance(count, int):
                        e = errors[-1]
                        tb = _strip_ansi("\n".join(e.get("traceback", [])))[-MAX_TRACEBACK:]
                        msg_id = kc.complete(bad[:2], 2)
                        while True:
                            got = kc.get_shell_msg(timeout=cell_timeout)
                            if got.get("parent_header", {}).get("msg_id") == msg_id:
                                break
                        matches = [m for m in got.get("content", {}).get("matches", []) if isinstance(m, str)]
                        items = [KernelCandidate(text=m[:200]) for m in matches if not m.startswith("_")][:40]
                        line = broken.count("\n", 0, at)
                        tasks.append(
                            CellTask(
                                "error_fix",
                                rel,
                                name,
                                broken,
                                at + len(bad),
                                cid,
                                _context(cells[max(0, i - CELLS_AFTER) : i], counts, max(0, i - CELLS_AFTER)),
                                _context(cells[i + 1 : i + 1 + CELLS_AFTER], counts, i + 1),
                                {"": src},
                                error=CellError(
                                    ename=str(e.get("ename") or "Error")[:256],
                                    evalue=str(e.get("evalue") or "")[:20_000],
                                    traceback=tb,
                                    execution_count=count,
                                ),
                                candidates=KernelCandidates(expression=bad[:2], items=items)
                                if items
                                else None,
                                line=line,
                            )
                        )
                        made += 1
                reply = kc.execute_interactive(src, timeout=cell_timeout, output_hook=lambda _m: None)
                c = reply.get("content", {}).get("execution_count")
                if isinstance(c, int):
                    counts[i] = c
                defined.update(_defined(src))
        except TimeoutError:
            if progress is not None:
                progress(f"{rel}: a cell ran longer than {cell_timeout:.0f} s; stopped there")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        if progress is not None:
            progress(f"error-fix tasks: {rel}")
    random.Random(seed).shuffle(tasks)
    return tasks[:samples]


@dataclass
class Variant:
    name: str
    history: bool = True
    kernel: bool = True


VARIANTS = {
    "cross_cell": [Variant("with history"), Variant("without history", history=False)],
    "signature": [Variant("with history"), Variant("without history", history=False)],
    "error_fix": [Variant("with kernel candidates"), Variant("without kernel candidates", kernel=False)],
}


def score(task: CellTask, edits: list[dict[str, Any]]) -> dict[str, Any]:
    """Right (every expected cell exactly, nothing else), cells right, edits in the wrong place."""
    by_cell: dict[str, list[Edit]] = {}
    for e in edits:
        by_cell.setdefault(e["cell_id"] or "", []).append(Edit(e["start"], e["end"], e["text"]))
    sources = {"": task.text, **{c.cell_id or "": c.source for c in (*task.cells_above, *task.cells_below)}}
    right = 0
    for cid, want in task.expected.items():
        if cid in by_cell and apply_edits(sources[cid], sorted(by_cell[cid], key=lambda e: e.start)) == want:
            right += 1
    wrong = sum(len(v) for cid, v in by_cell.items() if cid not in task.expected)
    line_ok = None
    if task.line is not None:
        line_ok = bool(by_cell.get("")) and all(
            task.text.count("\n", 0, e.start) == task.line == task.text.count("\n", 0, e.end)
            for e in by_cell[""]
        )
    return {
        "right": right == len(task.expected) and wrong == 0,
        "cells_right": right,
        "cells_expected": len(task.expected),
        "wrong_place": wrong,
        "on_the_line": line_ok,
    }


async def run_cell_eval(
    configs: list[EvalConfig], tasks: list[CellTask], progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Every configuration and variant over the tasks of its kind; the report."""
    runs = []
    for config in configs:
        handler = config.handler()
        try:
            for kind in VARIANTS:
                mine = [t for t in tasks if t.kind == kind]
                if not mine:
                    continue
                for variant in VARIANTS[kind]:
                    results = []
                    for n, task in enumerate(mine):
                        request = task.request(n, history=variant.history, kernel=variant.kernel)
                        t0 = time.perf_counter()
                        reply = await handler.handle_edit_request(request)
                        ms = (time.perf_counter() - t0) * 1000
                        edits = [e.model_dump() for e in reply.edits]
                        result = {
                            "notebook": task.notebook,
                            "name": task.name,
                            **score(task, edits),
                            "latency_ms": ms,
                        }
                        result["error"] = reply.error.type if reply.error else None
                        results.append(result)
                        if progress is not None:
                            progress(f"{config.name} {kind} {variant.name}: {n + 1}/{len(mine)}")
                    runs.append(
                        {
                            "name": config.name,
                            "kind": kind,
                            "variant": variant.name,
                            "results": results,
                            "summary": summarize(results),
                        }
                    )
        finally:
            await handler.close()
    return {
        "tasks": {k: sum(t.kind == k for t in tasks) for k in VARIANTS},
        "runs": runs,
    }


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in results if r["error"] is None]
    latencies = [r["latency_ms"] for r in ok]
    lines = [r["on_the_line"] for r in ok if r["on_the_line"] is not None]
    expected = sum(r["cells_expected"] for r in ok)
    return {
        "tasks": len(results),
        "right": sum(r["right"] for r in ok) / len(ok) if ok else None,
        "cells_right": sum(r["cells_right"] for r in ok) / expected if expected else None,
        "wrong_place": sum(r["wrong_place"] for r in ok),
        "on_the_line": sum(lines) / len(lines) if lines else None,
        "latency_p50_ms": percentile(latencies, 50) if latencies else None,
        "latency_p90_ms": percentile(latencies, 90) if latencies else None,
        "errors": len(results) - len(ok),
    }


def _table(head: list[str], rows: list[list[str]]) -> str:
    return markdown_table([head, *rows], 2)


def format_cell_tables(report: dict[str, Any]) -> str:
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}%"

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f}"

    out: list[str] = []
    titles = {
        "cross_cell": ("Cross-cell edits (a rename in one cell, the uses in the others)", "cells right"),
        "signature": (
            "Signature changes (a parameter renamed or added in a def, its calls in the others)",
            "cells right",
        ),
        "error_fix": ("Fixes after an error (a typo run in a real kernel)", "on the line"),
    }
    for kind, (title, where) in titles.items():
        runs = [r for r in report["runs"] if r["kind"] == kind]
        if not runs:
            out.append(f"{title}: no tasks")
            continue
        rows = []
        for r in runs:
            s = r["summary"]
            rows.append(
                [
                    r["name"],
                    r["variant"],
                    str(s["tasks"]),
                    pct(s["right"]),
                    pct(s["on_the_line"] if kind == "error_fix" else s["cells_right"]),
                    str(s["wrong_place"]),
                    ms(s["latency_p50_ms"]),
                    ms(s["latency_p90_ms"]),
                    str(s["errors"]),
                ]
            )
        head = [
            "configuration",
            "variant",
            "tasks",
            "right edit",
            where,
            "wrong place",
            "p50 ms",
            "p90 ms",
            "errors",
        ]
        out.append(f"{title}\n{_table(head, rows)}")
    return "\n\n".join(out)


__all__ = [
    "CellTask",
    "cross_cell_tasks",
    "error_fix_tasks",
    "find_notebooks",
    "format_cell_tables",
    "rename_tokens",
    "run_cell_eval",
    "signature_tasks",
]
