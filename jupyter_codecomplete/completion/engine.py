"""The one constructor of the completion engine.

The server (``CodeCompleteApp.make_completion_handler``), ``jupyter codecomplete check`` and
``jupyter codecomplete eval`` all build their engine here, from an
:class:`~.settings.EngineSettings`, so models, routes, styles, recent completions and the
suggestion bounds mean the same on every path.
"""

from __future__ import annotations

import logging

from .base import BaseInlineCompletionHandler
from .default import DefaultInlineCompletionHandler
from .settings import EngineSettings


def make_engine(
    settings: EngineSettings,
    *,
    log: logging.Logger | None = None,
    handler_class: type[BaseInlineCompletionHandler] | None = None,
) -> BaseInlineCompletionHandler:
    """A completion handler built from ``settings`` (``handler_class``: a configured or
    entry-point class; the default handler when None)."""
    cls = handler_class or DefaultInlineCompletionHandler
    return cls(log=log, settings=settings.as_mapping())


def make_default_engine(
    settings: EngineSettings, *, log: logging.Logger | None = None
) -> DefaultInlineCompletionHandler:
    """:func:`make_engine` for callers that need the default handler's own methods (``check``, ``eval``)."""
    return DefaultInlineCompletionHandler(log=log, settings=settings.as_mapping())
