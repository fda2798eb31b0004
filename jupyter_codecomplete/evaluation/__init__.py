"""``jupyter codecomplete eval``: how well do a model and its settings complete *your* code?

``tasks`` samples completion tasks from a folder (seeded), ``runner`` sends them through the
editor's engine (``BaseInlineCompletionHandler.bounded``, as the websocket does) for each
configuration, ``metrics`` scores them (exact match, edit similarity, empty rate, latency percentiles).
"""

from __future__ import annotations

from .command import run_command
from .metrics import edit_similarity, levenshtein, normalize, percentile, score, summarize
from .runner import (
    EvalConfig,
    apply_variant,
    config_from_file,
    config_from_json,
    format_table,
    run_config,
    run_eval,
    run_task,
)
from .tasks import KINDS, Document, Task, find_documents, notebook_documents, sample_tasks

__all__ = [
    "KINDS",
    "Document",
    "EvalConfig",
    "Task",
    "apply_variant",
    "config_from_file",
    "config_from_json",
    "edit_similarity",
    "find_documents",
    "format_table",
    "levenshtein",
    "normalize",
    "notebook_documents",
    "percentile",
    "run_command",
    "run_config",
    "run_eval",
    "run_task",
    "sample_tasks",
    "score",
    "summarize",
]
