"""The ``jupyter codecomplete eval`` command: arguments in, table and JSON out."""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from .runner import EvalConfig, apply_variant, config_from_file, config_from_json, format_table, run_eval
from .tasks import KINDS, find_documents, sample_tasks


def configurations(args: argparse.Namespace) -> list[EvalConfig]:
    """``--config`` files and ``--model-json`` models in the order given (else the server's own
    configuration), then each ``--variant`` of the first one."""
    configs: list[EvalConfig] = [config_from_file(p) for p in args.config or []]
    configs += [config_from_json(s) for s in args.model_json or []]
    if not configs:
        configs.append(config_from_file(None))
    configs += [apply_variant(configs[0], v) for v in args.variant or []]
    seen: dict[str, int] = {}
    for c in configs:  # unique names
        seen[c.name] = seen.get(c.name, 0) + 1
        if seen[c.name] > 1:
            c.name = f"{c.name}-{seen[c.name]}"
    return configs


def parse_kinds(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"--kinds takes a comma-separated list of {', '.join(KINDS)}")
    return kinds


def run_command(args: argparse.Namespace) -> int:
    """Sample, run, print the table, write the JSON; the exit status (1: a configuration only failed)."""
    try:
        kinds = parse_kinds(args.kinds)
        configs = configurations(args)
    except (ValueError, OSError) as exc:
        print(f"jupyter codecomplete eval: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "edits", False) or getattr(args, "fim_history", False):
        return run_edits_command(args, configs)
    if getattr(args, "cells", False):
        return run_cells_command(args, configs)
    documents = find_documents(args.folder)
    tasks = sample_tasks(documents, args.samples, args.seed, kinds)
    if not tasks:
        print(
            f"jupyter codecomplete eval: no tasks found in {args.folder} (.py files, .ipynb notebooks)",
            file=sys.stderr,
        )
        return 2

    def progress(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    gathered = None
    if getattr(args, "kernel", None):
        from .kernel import gather_kernel_candidates

        try:
            gathered = gather_kernel_candidates(
                tasks, args.folder, args.kernel, args.kernel_timeout, progress=progress
            )
        except Exception as exc:  # a missing kernel spec, a kernel that does not start
            print(f"jupyter codecomplete eval: --kernel {args.kernel}: {exc}", file=sys.stderr)
            return 2

    report: dict[str, Any] = {
        "folder": args.folder,
        "seed": args.seed,
        "samples_per_kind": args.samples,
        "kinds": kinds,
        "documents": len(documents),
        "kernel": getattr(args, "kernel", None),
        "tasks_with_kernel_candidates": gathered,
        **asyncio.run(run_eval(configs, tasks, progress=progress)),
    }
    print(format_table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    failed = any(
        r["summary"]["all"]["errors"] == r["summary"]["all"]["tasks"] for r in report["configurations"]
    )
    return 1 if failed else 0


def run_edits_command(args: argparse.Namespace, configs: list[EvalConfig]) -> int:
    """``--edits``: edit predictions on the folder's git history (``evaluation/edits.py``)."""
    from .edits import edit_tasks_from_git, format_edit_table, run_edit_eval

    try:
        tasks = edit_tasks_from_git(args.folder, args.samples, args.seed)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"jupyter codecomplete eval --edits: {args.folder}: no git history: {exc}", file=sys.stderr)
        return 2
    if not tasks:
        print(
            f"jupyter codecomplete eval --edits: no commit in {args.folder} changes a Python file in "
            "several places close together",
            file=sys.stderr,
        )
        return 2

    def progress(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    def finish(results: dict[str, Any], table: str, runs: str) -> int:
        """Print the table, write the JSON when asked; 1 when a run failed every task."""
        report: dict[str, Any] = {"folder": args.folder, "seed": args.seed, "samples": args.samples}
        report.update(results)
        print(table)
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return 1 if any(r["summary"]["errors"] == r["summary"]["tasks"] > 0 for r in report[runs]) else 0

    if getattr(args, "fim_history", False):
        from .history import format_history_table, history_task, run_history_eval

        completions = [h for h in map(history_task, tasks) if h is not None]
        history = asyncio.run(run_history_eval(configs, completions, progress=progress))
        return finish(history, format_history_table(history), "runs")
    report = asyncio.run(run_edit_eval(configs, tasks, progress=progress))
    return finish(report, format_edit_table(report), "configurations")


def run_cells_command(args: argparse.Namespace, configs: list[EvalConfig]) -> int:
    """``--cells``: edits across cells and fixes after errors on the folder's notebooks
    (``evaluation/cells.py``); the error fixes only with ``--kernel``."""
    from .cells import (
        cross_cell_tasks,
        error_fix_tasks,
        find_notebooks,
        format_cell_tables,
        run_cell_eval,
        signature_tasks,
    )

    def progress(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    notebooks = find_notebooks(args.folder)
    tasks = cross_cell_tasks(notebooks, args.samples, args.seed)
    tasks += signature_tasks(notebooks, args.samples, args.seed)
    if getattr(args, "kernel", None):
        try:
            tasks += error_fix_tasks(
                notebooks, args.samples, args.folder, args.kernel, args.kernel_timeout, args.seed, progress
            )
        except Exception as exc:  # a missing kernel spec, a kernel that does not start
            print(f"jupyter codecomplete eval --cells: --kernel {args.kernel}: {exc}", file=sys.stderr)
            return 2
    if not tasks:
        print(
            f"jupyter codecomplete eval --cells: no task in the notebooks of {args.folder} (a name one "
            "cell defines and later cells use; with --kernel, cells that run)",
            file=sys.stderr,
        )
        return 2
    report: dict[str, Any] = {
        "folder": args.folder,
        "seed": args.seed,
        "samples": args.samples,
        "kernel": getattr(args, "kernel", None),
        **asyncio.run(run_cell_eval(configs, tasks, progress=progress)),
    }
    print(format_cell_tables(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    failed = any(r["summary"]["errors"] == r["summary"]["tasks"] for r in report["runs"])
    return 1 if failed else 0
