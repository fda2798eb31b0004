"""Run configurations over tasks through the editor's engine, and report.

A configuration (:class:`EvalConfig`) is what the server would build from a
``jupyter_server_config.py`` (read by ``config.py``, as the server reads it): the models, routes
and prompt styles, the rest of the engine's settings (the suggestion bounds, recent completions),
plus the editor's switches: ``notebook_context`` (send the notebook's other cells, as the editor
does, or not), ``cell_outputs`` (their saved outputs) and ``kernel_candidates`` (what a kernel
completes at the cursor, when the tasks have it: ``--kernel``). Variants of one configuration
compare them in one run. Each task goes through :meth:`BaseInlineCompletionHandler.bounded` (the
code path of the websocket: the suggestion bounds applied, secrets scrubbed), one at a time, and
is scored by :mod:`.metrics`. Before the timed tasks each configuration answers one warm-up
request (the first request may load a model), which is not counted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..backends import ModelConfig
from ..completion import BaseInlineCompletionHandler, EngineSettings, error_info_from, make_engine
from ..config import CodeCompleteConfig
from ..prompting import StyleRegistry
from ..protocol import InlineCompletionRequest
from .metrics import score, summarize
from .tasks import KINDS, Task

EVAL_SWITCHES = ("notebook_context", "cell_outputs", "kernel_candidates")
_TRUE = {
    "on": True,
    "true": True,
    "yes": True,
    "1": True,
    "off": False,
    "false": False,
    "no": False,
    "0": False,
}


@dataclass
class EvalConfig:
    """One configuration to evaluate.

    ``engine``: the rest of the configuration's engine settings (suggestion bounds, recent
    completions, warm-up; models, routes and styles are the fields above); ``handler_class``: the
    configured completion handler class (None: the default handler)."""

    name: str
    models: dict[str, ModelConfig]
    routes: dict[str, str] = field(default_factory=dict)
    prompt_styles: dict[str, Any] = field(default_factory=dict)
    notebook_context: bool = True
    cell_outputs: bool = True
    kernel_candidates: bool = True
    engine: EngineSettings = field(default_factory=EngineSettings)
    handler_class: type[BaseInlineCompletionHandler] | None = None

    def switches(self) -> dict[str, bool]:
        return {name: getattr(self, name) for name in EVAL_SWITCHES}

    def describe(self) -> dict[str, Any]:
        """For the JSON report: no secrets (api keys are dropped, headers are not shown)."""
        return {
            "name": self.name,
            **self.switches(),
            "models": {
                k: m.model_dump(mode="json", exclude={"api_key", "headers"}, exclude_defaults=True)
                for k, m in self.models.items()
            },
            "routes": self.routes,
            "prompt_styles": sorted(self.prompt_styles),
        }

    def handler(self) -> BaseInlineCompletionHandler:
        """The engine for this configuration, built as the server builds its own."""
        settings = dataclasses.replace(
            self.engine,
            models=dict(self.models),
            routes=dict(self.routes),
            styles=StyleRegistry(self.prompt_styles),
            repo_name="eval",
        )
        return make_engine(settings, handler_class=self.handler_class)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def apply_variant(base: EvalConfig, spec: str) -> EvalConfig:
    """A variant of ``base`` from ``NAME=key:value[,key:value...]``.

    ``notebook_context:on|off`` switches the notebook's other cells, ``cell_outputs:on|off`` their
    outputs, ``kernel_candidates:on|off`` the kernel's candidates; any other key is a
    :class:`ModelConfig` field set on every model of the configuration (``style:raw``,
    ``max_tokens:32``, ``temperature:0``; values are read as JSON when they parse, else as text).
    """
    name, sep, settings = spec.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"a variant is NAME=key:value[,key:value...], not {spec!r}")
    switches = base.switches()
    changes: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in settings.split(","))):
        key, colon, raw = item.partition(":")
        key = key.strip()
        if not colon:
            raise ValueError(f"variant setting {item!r} is not key:value")
        if key in EVAL_SWITCHES:
            if raw.strip().lower() not in _TRUE:
                raise ValueError(f"{key} is on or off, not {raw!r}")
            switches[key] = _TRUE[raw.strip().lower()]
        elif key in ModelConfig.model_fields:
            changes[key] = _value(raw)
        else:
            known = ", ".join([*EVAL_SWITCHES, *sorted(ModelConfig.model_fields)])
            raise ValueError(f"unknown variant setting {key!r}; known: {known}")
    models = {
        k: ModelConfig.model_validate({**m.model_dump(exclude_unset=True), **changes})
        for k, m in base.models.items()
    }
    variant = dataclasses.replace(base, name=name.strip(), models=models)
    for key, on in switches.items():
        setattr(variant, key, on)
    return variant


def config_from_file(path: str | None, name: str | None = None) -> EvalConfig:
    """The configuration a server would build from this one config file (``.py`` or ``.json``;
    None: the server's own configuration files, named ``server``)."""
    config = CodeCompleteConfig.from_files([], path) if path else CodeCompleteConfig.from_files()
    models = config.model_configs()
    if not models and path:
        raise ValueError(f"{path}: no completion model is configured and none was found")
    if not models:
        raise ValueError("no completion model is configured; pass --config or --model-json")
    stem = os.path.splitext(os.path.basename(path))[0] if path else "server"
    return EvalConfig(
        name or stem,
        models,
        dict(config.routes),
        dict(config.prompt_styles),
        engine=config.engine_settings(models, repo_name="eval"),
        handler_class=config.handler_class(),
    )


def config_from_json(spec: str) -> EvalConfig:
    """``[NAME=]{"backend": ...}``: one completion model given as JSON."""
    name = None
    if not spec.lstrip().startswith("{"):
        name, _, spec = spec.partition("=")
    data = json.loads(spec)
    cfg = ModelConfig.model_validate(data)
    return EvalConfig((name or "").strip() or cfg.backend, {"completion": cfg})


# -------------------------------------------------------------------------------------------- running


async def run_task(
    handler: BaseInlineCompletionHandler,
    task: Task,
    number: int,
    notebook_context: bool,
    cell_outputs: bool = True,
    kernel_candidates: bool = True,
) -> dict[str, Any]:
    request = task.request(
        number,
        notebook_context=notebook_context,
        cell_outputs=cell_outputs,
        kernel_candidates=kernel_candidates,
    )
    notes: list[str] = []
    text, error, first = "", None, None
    start = time.perf_counter()
    try:
        async for delta in handler.bounded(request, notes):
            if first is None and delta:
                first = time.perf_counter()
            text += delta
    except Exception as exc:
        if isinstance(exc, ValueError) and "No generation chunks" in str(exc):
            pass  # the model ended at once (an empty generation): an empty suggestion, not a failure
        else:
            info = error_info_from(exc)
            error = f"{info.type}: {info.message}"
    end = time.perf_counter()
    return {
        "task": task.id,
        "kind": task.kind,
        "suggestion": text,
        **score(task.kind, text, task.target),
        "latency_ms": (end - start) * 1000,
        "first_chunk_ms": None if first is None else (first - start) * 1000,
        "error": error,
    }


async def run_config(
    config: EvalConfig,
    tasks: Sequence[Task],
    handler: BaseInlineCompletionHandler | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every task through one configuration; its per-task results and summaries per kind."""
    own = handler is None
    h = handler if handler is not None else config.handler()
    results: list[dict[str, Any]] = []
    try:
        if tasks:  # warm-up: the first request may load the model; not counted
            warm = InlineCompletionRequest(number=0, path="warmup.py", language="python", prefix="import ")
            with contextlib.suppress(Exception):
                async for _ in h.bounded(warm, []):
                    pass
        for i, task in enumerate(tasks, 1):
            results.append(await run_task(h, task, i, **config.switches()))
            if progress is not None:
                progress(f"{config.name}: {i}/{len(tasks)}")
    finally:
        if own:
            with contextlib.suppress(Exception):
                await h.close()
    kinds = [k for k in KINDS if any(t.kind == k for t in tasks)]
    summary = {k: summarize([r for r in results if r["kind"] == k]) for k in kinds}
    summary["all"] = summarize(results)
    return {**config.describe(), "summary": summary, "results": results}


async def run_eval(
    configs: Sequence[EvalConfig],
    tasks: Sequence[Task],
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    runs = [await run_config(c, tasks, progress=progress) for c in configs]
    return {
        "metrics": {
            "exact_match": "normalised suggestion == normalised target (first line only for next_line/span)",
            "edit_similarity": "1 - Levenshtein distance / max(len) on the normalised texts, averaged",
            "empty_rate": "share of tasks whose normalised suggestion is empty",
            "latency": "ms from the request to the end of the suggestion, p50/p90 (linear interpolation)",
        },
        "tasks": [t.summary() for t in tasks],
        "configurations": runs,
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f}"


def format_table(report: dict[str, Any]) -> str:
    """A Markdown table: one row per configuration and task kind (and ``all``)."""
    head = ["configuration", "kind", "tasks", "exact", "edit sim", "empty", "p50 ms", "p90 ms", "errors"]
    rows = [head]
    for run in report["configurations"]:
        for kind, s in run["summary"].items():
            rows.append(
                [
                    run["name"],
                    kind,
                    str(s["tasks"]),
                    _pct(s["exact_match"]),
                    "-" if s["edit_similarity"] is None else f"{s['edit_similarity']:.3f}",
                    _pct(s["empty_rate"]),
                    _ms(s["latency_p50_ms"]),
                    _ms(s["latency_p90_ms"]),
                    str(s["errors"]),
                ]
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return (
            "| "
            + " | ".join(
                c.ljust(w) if i < 2 else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            )
            + " |"
        )

    sep = (
        "|"
        + "|".join(("-" * (w + 2)) if i < 2 else ("-" * (w + 1) + ":") for i, w in enumerate(widths))
        + "|"
    )
    return "\n".join([line(rows[0]), sep, *(line(r) for r in rows[1:])])
