"""The one constructor of the completion engine.

The server (``CodeCompleteConfig.build_engine``), REST and the websocket (the server's engine),
the model dialog's Test and Use and ``jupyter codecomplete check`` (``completion/check.py``) and
``jupyter codecomplete eval`` all build their engine here, from an
:class:`~.settings.EngineSettings` (which the configuration, ``config.py``, makes), so models,
routes, styles, recent completions and the suggestion bounds mean the same on every path.
"""

from __future__ import annotations

import logging
from typing import TypeVar, overload

from .base import BaseInlineCompletionHandler
from .default import DefaultInlineCompletionHandler
from .settings import EngineSettings

H = TypeVar("H", bound=BaseInlineCompletionHandler)


@overload
def make_engine(
    settings: EngineSettings, *, log: logging.Logger | None = None, handler_class: None = None
) -> DefaultInlineCompletionHandler: ...


@overload
def make_engine(
    settings: EngineSettings, *, log: logging.Logger | None = None, handler_class: type[H]
) -> H: ...


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
    """:func:`make_engine` with the default handler, typed as such (for its own methods)."""
    return make_engine(settings, log=log)
