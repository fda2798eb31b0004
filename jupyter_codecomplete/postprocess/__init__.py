"""Post-processing: a pipeline of small stream filters applied to model output as it arrives.

Public interface (used by ``completion/``; keep these names and signatures):

- :class:`PostprocessContext`: what the filters know about the request.
- :func:`make_pipeline` → :class:`Pipeline` with ``feed(chunk) -> str`` (new text that is safe
  to show now), ``finish() -> str`` (the rest, at the end of the stream) and ``done`` (True once
  the suggestion has ended: the caller stops the upstream stream).
- :func:`postprocess`: the whole pipeline over a list of chunks, returning the suggestion.
- :data:`ORDER`: the filters in order (each with its module's ``build``); :class:`Filter`, their contract.
- :func:`analyze` -> :class:`Cursor`: what the filters know about the cursor (made once per request).
- :func:`clean_edits`, :func:`diff_edits`, :func:`apply_edits`, :class:`Edit`: edit predictions.
- :func:`is_degenerate`: whether output is what a looping tiny model writes.

One module per filter, named by what it does (``strip_echo``, ``limit_scope``, ...); their order is
the one list :data:`~.order.ORDER`. The per-language rules are data in ``languages``. See
docs/postprocessing.md.
"""

from .base import Filter
from .cells import map_to_cells
from .context import PostprocessContext
from .cursor import Cursor, analyze, normalize_newlines
from .edits import (
    MAX_CHANGED_CHARS,
    MAX_GROWTH,
    Edit,
    EditLimits,
    apply_edits,
    clean_edits,
    diff_edits,
    implausible_fix,
)
from .languages import LANGUAGES, LanguageRules, grammar_for, rules_for
from .order import ORDER
from .pipeline import Pipeline, build_filters, make_pipeline, postprocess
from .reject_degenerate import is_degenerate

__all__ = [
    "LANGUAGES",
    "MAX_CHANGED_CHARS",
    "MAX_GROWTH",
    "ORDER",
    "Cursor",
    "Edit",
    "EditLimits",
    "Filter",
    "LanguageRules",
    "Pipeline",
    "PostprocessContext",
    "analyze",
    "apply_edits",
    "build_filters",
    "clean_edits",
    "diff_edits",
    "grammar_for",
    "implausible_fix",
    "is_degenerate",
    "make_pipeline",
    "map_to_cells",
    "normalize_newlines",
    "postprocess",
    "rules_for",
]
