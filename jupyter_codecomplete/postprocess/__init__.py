"""Post-processing: a pipeline of small stream filters applied to model output as it arrives.

Public interface (used by ``completion/``; keep these names and signatures):

- :class:`PostprocessContext`: what the filters know about the request.
- :func:`make_pipeline` → :class:`Pipeline` with ``feed(chunk) -> str`` (new text that is safe
  to show now), ``finish() -> str`` (the rest, at the end of the stream) and ``done`` (True once
  the suggestion has ended: the caller stops the upstream stream).
- :func:`postprocess`: the whole pipeline over a list of chunks, returning the suggestion.

One module per filter, named by what it does (``strip_echo``, ``limit_scope``, ...); their order is
the one list :data:`~.order.ORDER`. The per-language rules are data in ``languages``. See
docs/postprocessing.md.
"""

from .context import PostprocessContext
from .languages import LANGUAGES, LanguageRules, rules_for
from .pipeline import Pipeline, build_filters, make_pipeline, postprocess

__all__ = [
    "LANGUAGES",
    "LanguageRules",
    "Pipeline",
    "PostprocessContext",
    "build_filters",
    "make_pipeline",
    "postprocess",
    "rules_for",
]
