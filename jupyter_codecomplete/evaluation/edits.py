"""``eval --edits``: edit predictions scored on a repository's own git history.

A task is one commit's change to one Python file that has several changed blocks close together
(a rename followed on the lines below, a parameter passed on): the file as it was with the
*first* block applied is the document, that first change is the recent edit (a unified diff),
the cursor stands at its end, and the region around it holds the other blocks. The prediction is
scored against the commit: **exact** when the document with the predicted edits is the document
with the commit's blocks in the region applied; **chars saved**: the characters of the commit's
own edits (removed + inserted) that a prediction got exactly right, i.e. that the user would not
have had to type; and latency. Each task goes through
:meth:`DefaultInlineCompletionHandler.handle_edit_request`, the websocket's code path.
"""

from __future__ import annotations

import difflib
import random
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from ..postprocess import Edit, apply_edits, diff_edits
from ..protocol import EditPredictionRequest, EditRegion, RecentEdit
from .metrics import markdown_table, percentile
from .runner import EvalConfig

# commits read, blocks per task, the region's size and the distance between a task's blocks
MAX_COMMITS = 400
MAX_FILE_CHARS = 200_000
REGION_LINES = 24
MAX_GAP_LINES = 12
GIT_TIMEOUT_S = 30.0


@dataclass
class EditTask:
    commit: str
    path: str
    text: str  # the document: the file before the commit, with its first changed block applied
    cursor: int
    recent_diff: str
    region: tuple[int, int]
    expected: str  # the document with the commit's blocks inside the region applied

    def describe(self) -> dict[str, Any]:
        return {"commit": self.commit, "path": self.path, "cursor": self.cursor, "region": list(self.region)}


def _git(repo: str, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", repo, *args], capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=True
    )
    return out.stdout


def _offset_of_line(lines: list[str], n: int) -> int:
    return sum(len(line) for line in lines[:n])


def task_from_change(commit: str, path: str, old: str, new: str) -> EditTask | None:
    """The task of one file's change, or None when it is not a multi-block change close together."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    blocks = [
        op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"
    ]
    if len(blocks) < 2:
        return None
    first = blocks[0]
    near = [first]
    for op in blocks[1:]:
        if op[1] - near[-1][2] > MAX_GAP_LINES or op[2] - first[1] > REGION_LINES:
            break
        near.append(op)
    if len(near) < 2:
        return None
    # the document: old with the first block applied
    _, i1, i2, j1, j2 = first
    cur = a[:i1] + b[j1:j2] + a[i2:]
    shift = (j2 - j1) - (i2 - i1)
    text = "".join(cur)
    recent = "".join(difflib.unified_diff(a, cur, fromfile=f"a/{path}", tofile=f"b/{path}", n=1))
    cursor = _offset_of_line(cur, j2) - (1 if j2 > j1 else 0)
    cursor = max(0, min(cursor, len(text)))
    # the expected document: the other near blocks applied too (in the document's line numbers)
    exp = list(cur)
    for _, k1, k2, m1, m2 in reversed(near[1:]):
        exp[k1 + shift : k2 + shift] = b[m1:m2]
    last = near[-1]
    start_line = max(0, j1 - 2)
    end_line = min(len(cur), last[2] + shift + 2)
    region = (_offset_of_line(cur, start_line), _offset_of_line(cur, end_line))
    if not region[0] <= cursor <= region[1]:
        return None
    return EditTask(commit, path, text, cursor, recent, region, "".join(exp))


def edit_tasks_from_git(
    repo: str, samples: int, seed: int = 0, max_commits: int = MAX_COMMITS
) -> list[EditTask]:
    """Up to ``samples`` tasks (chosen with ``seed``) from the last ``max_commits`` commits."""
    commits = _git(repo, "log", "--no-merges", f"-n{max_commits}", "--format=%H").split()
    tasks: list[EditTask] = []
    for commit in commits:
        try:
            names = _git(
                repo, "show", "--format=", "--name-only", "--diff-filter=M", commit, "--", "*.py"
            ).split()
        except (subprocess.SubprocessError, OSError):
            continue
        for path in names:
            try:
                old = _git(repo, "show", f"{commit}^:{path}")
                new = _git(repo, "show", f"{commit}:{path}")
            except (subprocess.SubprocessError, OSError):
                continue
            if len(old) > MAX_FILE_CHARS or len(new) > MAX_FILE_CHARS:
                continue
            task = task_from_change(commit[:12], path, old, new)
            if task is not None:
                tasks.append(task)
    random.Random(seed).shuffle(tasks)
    return tasks[:samples]


def score_edits(task: EditTask, edits: list[Edit]) -> dict[str, Any]:
    predicted = apply_edits(task.text, edits)
    wanted = diff_edits(task.text, task.expected)
    got = set(edits)
    saved = sum(e.end - e.start + len(e.text) for e in wanted if e in got)
    return {
        "exact": predicted == task.expected,
        "chars_saved": saved,
        "chars_wanted": sum(e.end - e.start + len(e.text) for e in wanted),
        "edits": len(edits),
    }


async def run_edit_eval(
    configs: list[EvalConfig], tasks: list[EditTask], progress: Any = None
) -> dict[str, Any]:
    """Every configuration over every task; the report (tasks, per-task results, summaries)."""
    runs = []
    for config in configs:
        handler = config.handler()
        results = []
        try:
            for n, task in enumerate(tasks):
                request = EditPredictionRequest(
                    number=n,
                    path=task.path,
                    language="python",
                    text=task.text,
                    cursor=task.cursor,
                    region=EditRegion(start=task.region[0], end=task.region[1]),
                    recent_edits=[RecentEdit(path=task.path, diff=task.recent_diff)],
                )
                t0 = time.perf_counter()
                reply = await handler.handle_edit_request(request)
                ms = (time.perf_counter() - t0) * 1000
                edits = [Edit(e.start, e.end, e.text) for e in reply.edits]
                result = {**task.describe(), **score_edits(task, edits), "latency_ms": ms}
                result["error"] = reply.error.type if reply.error else None
                result["format"] = reply.model.style if reply.model else None
                results.append(result)
                if progress is not None:
                    progress(f"{config.name}: {n + 1}/{len(tasks)}")
        finally:
            await handler.close()
        runs.append({"name": config.name, "results": results, "summary": summarize_edits(results)})
    return {"tasks": len(tasks), "configurations": runs}


def summarize_edits(results: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in results if r["error"] is None]
    wanted = sum(r["chars_wanted"] for r in ok)
    latencies = [r["latency_ms"] for r in ok]
    formats = sorted({r["format"] for r in results if r.get("format")})
    return {
        "tasks": len(results),
        # the next-edit format the configuration's model was asked in (one per model)
        "format": ", ".join(formats) or None,
        "exact_match": sum(r["exact"] for r in ok) / len(ok) if ok else None,
        "chars_saved": sum(r["chars_saved"] for r in ok),
        "chars_saved_share": sum(r["chars_saved"] for r in ok) / wanted if wanted else None,
        "latency_p50_ms": percentile(latencies, 50) if latencies else None,
        "latency_p90_ms": percentile(latencies, 90) if latencies else None,
        "errors": len(results) - len(ok),
    }


def format_edit_table(report: dict[str, Any]) -> str:
    head = ["configuration", "format", "tasks", "exact", "chars saved", "saved share"]
    head += ["p50 ms", "p90 ms", "errors"]
    rows = [head]

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}%"

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f}"

    for run in report["configurations"]:
        s = run["summary"]
        rows.append(
            [
                run["name"],
                s.get("format") or "-",
                str(s["tasks"]),
                pct(s["exact_match"]),
                str(s["chars_saved"]),
                pct(s["chars_saved_share"]),
                ms(s["latency_p50_ms"]),
                ms(s["latency_p90_ms"]),
                str(s["errors"]),
            ]
        )
    return markdown_table(rows, 2)
