"""``eval --fim-history``: does a comment block of the recent edit help a fill-in-the-middle model?

The question of issue 27 for FIM models: inline completion requests carry the user's recent edits
(``recent_edits``); should the FIM prompt show them, as a comment block right above the cursor's
line (where the kernel's candidates go)? This measures it before the engine does it.

Tasks come from the folder's git history as for ``--edits`` (``edits.py``): a commit's nearby
changes to a Python file, the first applied and its diff the recent edit. The completion task is
the *next* change's text: the cursor where the next changed span starts, the old text of that span
taken out, the span's new text expected (``items`` → ``prices`` on the line below a renamed
parameter: ``for p in `` … ``:``, ``prices`` expected). Each task is asked twice through the
engine's inline completion path (:meth:`handle_request`): as the editor sends it today, and with
the recent edit's changed lines as a comment block above the cursor's line. **Right**: the
suggestion starts with the expected text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..postprocess import diff_edits
from ..prompting import cursor_indent, insert_candidates
from ..protocol import InlineCompletionRequest
from .edits import EditTask
from .metrics import markdown_table, percentile
from .runner import EvalConfig

# changed lines of the recent edit shown, and the width of one
MAX_BLOCK_LINES = 12
MAX_LINE_CHARS = 160


@dataclass
class HistoryTask:
    path: str
    prefix: str
    suffix: str
    expected: str
    recent_diff: str


def history_task(task: EditTask) -> HistoryTask | None:
    """The completion of the next change's text, or None when the next change inserts nothing
    or spans lines (a completion at the cursor is not the right question for it)."""
    wanted = diff_edits(task.text, task.expected)
    after = [e for e in wanted if e.start >= task.region[0] and e.text.strip() and "\n" not in e.text]
    if not after:
        return None
    e = after[0]
    if "\n" in task.text[e.start : e.end]:
        return None
    return HistoryTask(task.path, task.text[: e.start], task.text[e.end :], e.text, task.recent_diff)


def history_block(diff: str, marker: str = "#", indent: str = "") -> str:
    """The recent edit's changed lines as a comment block (ends with a line break), or ``""``."""
    lines = [
        line[:MAX_LINE_CHARS]
        for line in diff.split("\n")
        if line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip()
    ][:MAX_BLOCK_LINES]
    if not lines:
        return ""
    return f"{indent}{marker} The last edit:\n" + "".join(f"{indent}{marker} {line}\n" for line in lines)


async def run_history_eval(
    configs: list[EvalConfig], tasks: list[HistoryTask], progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    runs = []
    for config in configs:
        handler = config.handler()
        try:
            for variant in ("without the edit", "with the edit as a comment"):
                results: list[dict[str, Any]] = []
                for n, task in enumerate(tasks):
                    prefix = task.prefix
                    if variant != "without the edit":
                        block = history_block(task.recent_diff, "#", cursor_indent(prefix))
                        prefix = insert_candidates(prefix, block)
                    request = InlineCompletionRequest(
                        number=n,
                        path=task.path,
                        language="python",
                        prefix=prefix,
                        suffix=task.suffix,
                        trigger="manual",
                    )
                    t0 = time.perf_counter()
                    reply = await handler.handle_request(request)
                    ms = (time.perf_counter() - t0) * 1000
                    text = reply.list.items[0].insertText if reply.list.items else ""
                    results.append(
                        {
                            "path": task.path,
                            "expected": task.expected,
                            "suggestion": text[:200],
                            "right": text.startswith(task.expected),
                            "latency_ms": ms,
                            "error": reply.error.type if reply.error else None,
                        }
                    )
                    if progress is not None:
                        progress(f"{config.name} {variant}: {n + 1}/{len(tasks)}")
                ok = [r for r in results if r["error"] is None]
                lat = [float(r["latency_ms"]) for r in ok]
                runs.append(
                    {
                        "name": config.name,
                        "variant": variant,
                        "results": results,
                        "summary": {
                            "tasks": len(results),
                            "right": sum(r["right"] for r in ok) / len(ok) if ok else None,
                            "latency_p50_ms": percentile(lat, 50) if lat else None,
                            "errors": len(results) - len(ok),
                        },
                    }
                )
        finally:
            await handler.close()
    return {"tasks": len(tasks), "runs": runs}


def format_history_table(report: dict[str, Any]) -> str:
    head = ["configuration", "variant", "tasks", "right", "p50 ms", "errors"]
    rows = [head]
    for r in report["runs"]:
        s = r["summary"]
        rows.append(
            [
                r["name"],
                r["variant"],
                str(s["tasks"]),
                "-" if s["right"] is None else f"{100 * s['right']:.1f}%",
                "-" if s["latency_p50_ms"] is None else f"{s['latency_p50_ms']:.0f}",
                str(s["errors"]),
            ]
        )
    title = "Inline completions of the next change (FIM), with and without the last edit"
    return title + "\n" + markdown_table(rows, 2)


__all__ = ["HistoryTask", "format_history_table", "history_block", "history_task", "run_history_eval"]
