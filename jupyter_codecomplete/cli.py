"""``jupyter codecomplete ...`` commands (the ``jupyter-codecomplete`` executable).

Every command reads the configuration the way the server does (``config.py``: the
``jupyter_server_config`` files on the Jupyter config path, ``CodeCompleteApp`` traits, the
``CODECOMPLETE_*`` environment fallback) without the server extension.

``jupyter codecomplete check`` contacts each configured model (``completion/check.py``) and
prints, for each: whether it is reachable (and why not), the model it serves, the prompt style
chosen, its fill-in-the-middle support, and the time to first token and tokens per second of one
short completion. With nothing configured it reports what zero-configuration discovery would
pick. The exit status is non-zero when a model fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from .config import CodeCompleteConfig


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms"


def format_report(r: dict[str, Any]) -> str:
    lines = [f"{r['name']}: {r['backend']} {r.get('base_url') or '(default URL)'} model {r['model'] or '-'}"]

    def row(label: str, value: Any) -> None:
        lines.append(f"  {label + ':':<15} {value}")

    if "locality" in r:
        where = {
            "process": "in this process",
            "machine": "on this machine",
            "network": "on a private network",
            "remote": "remote (a paid or shared API)",
        }.get(r["locality"], r["locality"])
        row("runs", where)
        row("privacy", r["privacy"])
        row("warm-ups", "yes, and prefetch" if r["warm"] else "no (nor prefetch)")
    if "reachable" in r:
        row("reachable", "yes" if r["reachable"] else f"no ({r.get('error', 'unknown error')})")
    if r.get("error") and r.get("reachable", True):
        row("error", r["error"])
    if "serves" in r:
        row("serves", r["serves"] or "(not reported)")
    if "style" in r:
        row("prompt style", r["style"])
    if "fim" in r:
        fim = r["fim"]
        how = (
            "native suffix"
            if fim["native_suffix"]
            else "style tokens"
            if fim["style_tokens"]
            else ("chat prompt" if fim["chat"] else "")
        )
        row("FIM", f"yes ({how})" if r["fim_supported"] else "no (completion only)")
    if "first_token_s" in r:
        row("first token", _ms(r["first_token_s"]))
        tps = r.get("tokens_per_s")
        row("speed", f"{tps:.1f} tokens/s ({r['tokens']} tokens)" if tps else f"- ({r['tokens']} tokens)")
        row("sample", repr(r.get("sample", ""))[:80])
    if r["ok"] and r.get("warning"):
        row("result", f"WARNING: {r['warning']}")
    else:
        row("result", "OK" if r["ok"] else "FAILED")
    return "\n".join(lines)


async def run_check(args: argparse.Namespace) -> int:
    from .backends import adiscover_local_models
    from .completion import check_models

    config = CodeCompleteConfig.from_files(args.config_dir or None, args.config)
    models = config.model_configs()
    notes: list[str] = []
    if not models:
        found = await adiscover_local_models(timeout=min(args.timeout, 1.0))
        if found is None:
            msg = (
                "No model is configured (c.CodeCompleteApp.completion_model) and no local model server "
                "(Ollama, llama.cpp server, LM Studio) answered on its default port."
            )
            print(json.dumps({"ok": False, "models": [], "error": msg}) if args.json else msg)
            return 1
        models = {"completion": found}
        notes.append(f"Nothing is configured; discovered {found.backend} {found.base_url} {found.model}.")
    if args.model:
        models = {k: v for k, v in models.items() if k in args.model}
    settings = config.engine_settings(models, repo_name="check")
    reports = await check_models(settings, args.timeout, sample=not args.no_completion)
    ok = all(r["ok"] for r in reports)
    if args.json:
        print(json.dumps({"ok": ok, "notes": notes, "models": reports}, indent=2, default=str))
    else:
        for n in notes:
            print(n)
        for r in reports:
            print(format_report(r))
    return 0 if ok else 1


def _size(n: Any) -> str:
    if not n:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return "-"


def _progress_line(snap: dict[str, Any], width: int = 30) -> str:
    frac = snap.get("fraction") or 0.0
    filled = int(frac * width)
    rate = snap.get("bytes_per_s")
    return (
        f"\r[{'#' * filled}{'.' * (width - filled)}] {frac * 100:5.1f}% "
        f"{_size(snap.get('done'))} / {_size(snap.get('total'))}" + (f"  {_size(rate)}/s " if rate else " ")
    )


async def run_models(args: argparse.Namespace) -> int:
    """``jupyter codecomplete models [pull ID | use ID]``: the model service from a terminal."""
    from .models_service import ModelServiceError

    service = CodeCompleteConfig.from_files(args.config_dir or None, args.config).model_service
    action = getattr(args, "models_command", None) or "list"
    try:
        if action == "list":
            listing = await service.list_entries(detect=not args.no_detect)
            if args.json:
                print(json.dumps(listing, indent=2, default=str))
                return 0
            # ACTIVE: the saved choice, what the next server start serves
            rows = [("ID", "ACTIVE", "SOURCE", "STATUS", "SIZE", "STYLE", "FIM", "WHERE")]
            for e in listing["entries"]:
                status = "locked" if e["locked"] else e["status"]
                fim = "-" if e["fim"] is None else ("yes" if e["fim"] else "no")
                active = ", ".join(
                    w for w, on in (("yes", e["active"]), ("edits", e.get("edit_active"))) if on
                )
                size = _size(e["size_bytes"])
                rows.append((e["id"], active, e["source"], status, size, e["style"] or "-", fim, e["where"]))
            widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]) - 1)]
            for r in rows:
                print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + str(r[-1]))
            return 0
        if action == "pull":
            job = await service.pull(args.id)
            print(f"Downloading {job.entry.repo}/{job.entry.file} into {service.downloader.models_dir}")
            try:
                while job.active:
                    if not args.quiet:
                        sys.stderr.write(_progress_line(job.snapshot()))
                        sys.stderr.flush()
                    await asyncio.sleep(0.25)
            except (KeyboardInterrupt, asyncio.CancelledError):
                service.cancel(args.id)
                await service.downloader.wait(job)
            await service.downloader.wait(job)
            snap = job.snapshot()
            if not args.quiet:
                sys.stderr.write(_progress_line(snap) + "\n")
            if snap["state"] != "done":
                print(f"{snap['state']}: {(snap['error'] or {}).get('message', '')}", file=sys.stderr)
                return 1
            print(f"Downloaded {snap['path']}. Use it: jupyter codecomplete models use {args.id}")
            return 0
        if action == "use":
            result = await service.use(args.id, role=args.role)
            print(format_report(result["report"]))
            if args.role == "edit":
                style = (result.get("edit_serving") or {}).get("style")
                print(f"Edit predictions will ask it in the {style or 'generic'} format.")
            chosen = "Chosen for edits" if args.role == "edit" else "Chosen"
            print(
                f"{chosen}: {args.id}. A running server switches from the Choose Model dialog; "
                "the choice applies at the next start."
            )
            return 0
    except ModelServiceError as exc:
        print(f"error ({exc.type}): {exc.message}", file=sys.stderr)
        return 1
    finally:
        await service.close()
    return 2


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.0f}%"


def _num(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def format_stats(summary: dict[str, Any]) -> str:
    """The usage summary as tables: totals, then per model, trigger, language, line kind and (for
    edit predictions) next-edit format."""
    lines: list[str] = []
    total = summary["total"]
    if not total["shown"]:
        return "No suggestions recorded yet."
    lines.append(
        f"{total['shown']} suggestions shown, {total['accepted']} accepted ({_pct(total['accept_rate'])}); "
        f"{total['accepted_chars']:,} characters accepted, {total['kept_chars']:,} kept "
        f"({_pct(total['kept_ratio'])}); {_num(total['kept_per_hour'])} kept per hour of editing "
        f"({total['editing_hours']:.1f} h)"
    )
    if total.get("kept_at_close"):
        lines.append(
            f"Kept includes {total['kept_at_close']} suggestion(s) whose tab closed within 30 s of accepting "
            f"(what was still there at close: {total['kept_at_close_chars']:,} characters)"
        )
    if summary.get("accept_pauses"):
        learned = ", ".join(f"{kind} {ms / 1000:.1f} s" for kind, ms in summary["accept_pauses"].items())
        lines.append(f"Your pause before taking a suggestion (held places wait so long): {learned}")
    header = ("", "SHOWN", "ACCEPTED", "RATE", "TYPED", "DISMISSED", "ACC CHARS", "KEPT", "KEPT/H", "P50 MS")
    for key, title, groups in (
        ("model", "MODEL", summary["by_model"]),
        ("day", "DAY, MODEL", summary["per_day"]),
        ("trigger", "TRIGGER", summary["by_trigger"]),
        ("language", "LANGUAGE", summary["by_language"]),
        ("line_kind", "LINE KIND", summary["by_line_kind"]),
        ("style", "EDIT FORMAT", summary.get("by_edit_format") or []),
    ):
        if key == "style" and not groups:
            continue  # no edit predictions recorded
        rows = [(title, *header[1:])]
        for g in groups:
            rows.append(
                (
                    f"{g['day']} {g['model']}" if key == "day" else str(g[key]),
                    str(g["shown"]),
                    str(g["accepted"]),
                    _pct(g["accept_rate"]),
                    str(g["typed_through"]),
                    str(g["dismissed"]),
                    f"{g['accepted_chars']:,}",
                    f"{g['kept_chars']:,}",
                    _num(g["kept_per_hour"]),
                    _num(g["latency_p50_ms"]),
                )
            )
        lines.append("")
        lines.extend(_table(rows))
    restraint = summary.get("restraint") or []
    if restraint and 0 < restraint[0]["events"] < restraint[0]["min_events"]:
        lines.append("")
        lines.append(
            f"Restraint learns from your automatic suggestions once there are {restraint[0]['min_events']} "
            f"({restraint[0]['events']} so far)."
        )
    elif restraint and restraint[0]["events"]:
        lines.append("")
        lines.append(
            f"Restraint on your last {restraint[0]['events']} automatic suggestions (the gate learned from "
            "the ones before each): a skipped place is not asked; a held one is asked after your usual pause "
            "(what it costs: the suggestions you took sooner)."
        )
        preview_rows = [("LEVEL", "AT ITS PLACES", "SHOWN", "KEPT CHARS", "LEFT: SHOWN", "KEPT")]
        for p in restraint:
            preview_rows.append(
                (
                    str(p["level"]),
                    "skips" if p["verb"] == "skips" else "holds",
                    str(p["affected_shown"]),
                    f"{p['affected_kept_chars']:,}",
                    _pct(p["shown_ratio"]) if p["verb"] == "skips" else "at least " + _pct(p["shown_ratio"]),
                    _pct(p["kept_ratio"]) if p["verb"] == "skips" else "about " + _pct(p["kept_ratio"]),
                )
            )
        lines.append("")
        lines.extend(_table(preview_rows))
    return "\n".join(lines)


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def run_stats(args: argparse.Namespace) -> int:
    """``jupyter codecomplete stats [--json] [--days N]``: what became of the suggestions."""
    from .usage import summarize

    config = CodeCompleteConfig.from_files(args.config_dir or None, args.config)
    store = config.make_usage_store()
    since = None if args.days is None else (time.time() - args.days * 86400) * 1000
    try:
        summary = {"path": store.path, **summarize(store.rows_sync(since))}
        summary["problem"] = store.problem
    finally:
        store.close()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"Usage recorded in {summary['path']}" + ("" if config.record_usage else " (recording is off)"))
        if summary["problem"]:
            print(f"warning: {summary['problem']}", file=sys.stderr)
        print(format_stats(summary))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jupyter codecomplete", description="jupyter_codecomplete commands")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="contact each configured model and report on it")
    check.add_argument("--config", help="an extra config file (.py or .json) read after the usual ones")
    check.add_argument(
        "--config-dir", action="append", help="read config from this directory only (repeatable)"
    )
    check.add_argument("--model", action="append", help="check only this configured model (repeatable)")
    check.add_argument("--timeout", type=float, default=30.0, help="seconds per model (default 30)")
    check.add_argument("--no-completion", action="store_true", help="do not run the sample completion")
    check.add_argument("--json", action="store_true", help="print a JSON report")
    models = sub.add_parser("models", help="list the models you can use; pull or choose one")
    models.add_argument("--config", help="an extra config file (.py or .json) read after the usual ones")
    models.add_argument("--config-dir", action="append", help="read config from this directory only")
    models.add_argument("--json", action="store_true", help="print the list as JSON")
    models.add_argument("--no-detect", action="store_true", help="do not look for local model servers")
    msub = models.add_subparsers(dest="models_command")
    mpull = msub.add_parser("pull", help="download a catalogue model (with a progress bar)")
    mpull.add_argument("id", help="a catalogue id (see `jupyter codecomplete models`)")
    mpull.add_argument("--quiet", action="store_true", help="no progress bar")
    muse = msub.add_parser("use", help="check a model and make it your choice")
    muse.add_argument("id", help="an id from `jupyter codecomplete models`")
    muse.add_argument(
        "--role",
        choices=("completion", "edit"),
        default="completion",
        help="completion (default) or edit: the model of edit predictions",
    )
    stats = sub.add_parser("stats", help="what became of the suggestions: accepted and kept characters")
    stats.add_argument("--config", help="an extra config file (.py or .json) read after the usual ones")
    stats.add_argument("--config-dir", action="append", help="read config from this directory only")
    stats.add_argument("--days", type=float, help="only the last N days")
    stats.add_argument("--json", action="store_true", help="print the summary as JSON")
    ev = sub.add_parser("eval", help="score configured models on completion tasks sampled from a folder")
    ev.add_argument("folder", help="a folder of .py files and .ipynb notebooks")
    ev.add_argument("--config", action="append", help="a jupyter_server_config file (.py/.json); repeatable")
    ev.add_argument("--model-json", action="append", help='[NAME=]{"backend": ...} a model; repeatable')
    ev.add_argument(
        "--variant",
        action="append",
        help="NAME=key:value[,...] a variant of the first configuration, "
        "e.g. no-nb=notebook_context:off, no-outputs=cell_outputs:off, no-kernel=kernel_candidates:off "
        "or raw=style:raw; repeatable",
    )
    ev.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    ev.add_argument("--samples", type=int, default=20, help="tasks per kind (default 20)")
    ev.add_argument(
        "--kinds",
        default="next_line,span,block",
        help="task kinds: next_line, span, block (the default) and member (after name. name[ name()",
    )
    ev.add_argument(
        "--kernel",
        help="run the notebooks in this kernel (e.g. python3) to give member tasks what the kernel "
        "completes at the cursor; compare with a variant kernel_candidates:off",
    )
    ev.add_argument("--kernel-timeout", type=float, default=60.0, help="seconds per cell with --kernel")
    ev.add_argument(
        "--edits",
        action="store_true",
        help="score edit predictions instead, on the folder's git history (each commit's nearby changes "
        "to a Python file: the first as the recent edit, the rest to predict)",
    )
    ev.add_argument(
        "--fim-history",
        action="store_true",
        help="with the --edits tasks, score inline completions of the next change's text with and "
        "without the recent edit as a comment block above the cursor's line",
    )
    ev.add_argument(
        "--cells",
        action="store_true",
        help="score edit predictions across notebook cells instead: a rename in one cell and its uses "
        "in the others (with and without the edit history); with --kernel, fixes after an error (a typo "
        "run in the kernel, with and without the kernel's candidates)",
    )
    ev.add_argument("--json", help="write the full report (every task and suggestion) to this file")
    ev.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.command == "check":
        return asyncio.run(run_check(args))
    if args.command == "models":
        return asyncio.run(run_models(args))
    if args.command == "stats":
        return run_stats(args)
    if args.command == "eval":
        from .evaluation import run_command

        return run_command(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
