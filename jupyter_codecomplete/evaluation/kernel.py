"""What a real kernel completes at ``member`` tasks' cursors, for ``eval --kernel NAME``.

For each notebook with ``member`` tasks one kernel (the named kernel spec) is started in the
notebook's folder; the code cells run in order, and before a cell with tasks runs, the kernel is
asked the standard ``complete_request`` for each task's line up to the cursor, as the editor asks
it (``src/context/kernel.ts``: the same triggers, the same filtering of the answer). The cell itself has
not run yet, as when the user types in it.

This runs the notebooks' code: use it on notebooks you would run anyway. A cell that fails is
passed over (the kernel knows what the cells before it made); a cell that runs longer than
``cell_timeout`` seconds ends that notebook's run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..protocol import MAX_CANDIDATE_TEXT, KernelCandidate, KernelCandidates
from .tasks import Task

# the end of a line where the editor asks the kernel (mirrors src/context/kernel.ts TRIGGERS.python)
TRIGGER = re.compile(
    r"((?:^|[^\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\.|\[\s*[\"']?|\(\s*(?:[\w.]+\s*=\s*[^,()]*,\s*)*))$"
)
MAX_CANDIDATES = 40  # as the editor sends
DATA_TYPES = frozenset({"instance", "statement", "dict key", "property", "param"})


def candidates_from_reply(content: dict[str, Any], expression: str) -> list[KernelCandidate]:
    """The editor's reading of a ``complete_reply``: private names out, keyword arguments only
    after a call, data attributes first after a dot, at most ``MAX_CANDIDATES``."""
    if content.get("status") != "ok" or not isinstance(content.get("matches"), list):
        return []
    types: dict[str, str] = {}
    for item in (content.get("metadata") or {}).get("_jupyter_types_experimental") or []:
        if isinstance(item, dict) and isinstance(item.get("text"), str) and isinstance(item.get("type"), str):
            types[item["text"]] = item["type"]
    call = bool(re.search(r"[(,]\s*$", expression))
    matches = [m for m in content["matches"] if isinstance(m, str) and (not call or re.fullmatch(r"\w+=", m))]
    if expression.endswith("."):
        matches.sort(key=lambda m: types.get(m, "") not in DATA_TYPES)
    out: list[KernelCandidate] = []
    seen: set[str] = set()
    for match in matches:
        text = re.sub(r"^.*\.(?=[A-Za-z_]\w*$)", "", match)[:MAX_CANDIDATE_TEXT]
        if not text.strip() or text in seen or text.startswith("_"):
            continue
        seen.add(text)
        kind = types.get(match)
        out.append(KernelCandidate(text=text, type=kind[:64] if kind else None))
        if len(out) >= MAX_CANDIDATES:
            break
    return out


def _ask(client: Any, task: Task, timeout: float) -> bool:
    line = task.prefix[task.prefix.rfind("\n") + 1 :]
    match = TRIGGER.search(line)
    if not match:
        return False
    expression = re.sub(r"^[^\w]", "", match.group(1))
    msg_id = client.complete(line, len(line))
    while True:
        reply = client.get_shell_msg(timeout=timeout)
        if reply.get("parent_header", {}).get("msg_id") == msg_id:
            break
    items = candidates_from_reply(reply.get("content") or {}, expression)
    if not items:
        return False
    task.kernel_candidates = KernelCandidates(expression=expression[:MAX_CANDIDATE_TEXT], items=items)
    return True


def gather_kernel_candidates(
    tasks: Sequence[Task],
    folder: str,
    kernel_name: str = "python3",
    cell_timeout: float = 60.0,
    progress: Callable[[str], None] | None = None,
) -> int:
    """Fill ``kernel_candidates`` of the ``member`` tasks in notebooks; the number filled."""
    from jupyter_client.manager import start_new_kernel

    by_notebook: dict[str, dict[int, list[Task]]] = {}
    for task in tasks:
        if task.kind == "member" and "#cell" in task.path:
            notebook, _, cell_no = task.path.partition("#cell")
            by_notebook.setdefault(notebook, {}).setdefault(int(cell_no), []).append(task)
    filled = 0
    for notebook, wanted in sorted(by_notebook.items()):
        path = os.path.join(folder, notebook)
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
        # the same cells, in the same order, as tasks.notebook_documents numbers them
        cells = [c for c in nb.get("cells", []) if c.get("cell_type") in ("code", "markdown", "raw")]
        km, kc = start_new_kernel(kernel_name=kernel_name, cwd=os.path.dirname(os.path.abspath(path)))
        try:
            for index, cell in enumerate(cells):
                for task in wanted.get(index, []):
                    filled += _ask(kc, task, timeout=cell_timeout)
                if index >= max(wanted):
                    break
                if cell.get("cell_type") == "code":
                    source = cell.get("source", "")
                    source = "".join(source) if isinstance(source, list) else str(source)
                    kc.execute_interactive(
                        source, timeout=cell_timeout, store_history=False, output_hook=lambda _msg: None
                    )
        except TimeoutError:
            if progress is not None:
                progress(f"{notebook}: a cell ran longer than {cell_timeout:.0f} s; stopped there")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        if progress is not None:
            progress(f"kernel candidates: {notebook}")
    return filled
