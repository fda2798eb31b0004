"""The completion handler hierarchy.

``BaseInlineCompletionHandler`` (interface, errors, timing) → ``DefaultInlineCompletionHandler``
(a LangChain runnable), built by :func:`make_engine` from :class:`EngineSettings` on every path
(the server, ``check`` and the model dialog's Test and Use: :func:`check_models`, ``eval``). Other
packages plug in their own through the entry point group
``jupyter_codecomplete.completion_handlers`` or the ``completion_handler_class`` traitlet.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from .base import BaseInlineCompletionHandler, CompletionError, error_info_from
from .check import check_models
from .default import DefaultInlineCompletionHandler
from .edits import edit_model_key, edit_style, edit_style_for
from .engine import make_default_engine, make_engine
from .prepared import Prepared
from .settings import EngineSettings, Overrides

ENTRY_POINT_GROUP = "jupyter_codecomplete.completion_handlers"


def load_handler_class(name: str) -> type[BaseInlineCompletionHandler]:
    """The completion handler class registered under ``name`` in the entry point group."""
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        known = sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
        raise LookupError(f"No completion handler named {name!r} in {ENTRY_POINT_GROUP}; found {known}.")
    cls = found[0].load()
    if not (isinstance(cls, type) and issubclass(cls, BaseInlineCompletionHandler)):
        raise TypeError(f"Entry point {name!r} is not a BaseInlineCompletionHandler subclass: {cls!r}")
    return cls


__all__ = [
    "ENTRY_POINT_GROUP",
    "BaseInlineCompletionHandler",
    "CompletionError",
    "DefaultInlineCompletionHandler",
    "EngineSettings",
    "Overrides",
    "Prepared",
    "check_models",
    "edit_model_key",
    "edit_style",
    "edit_style_for",
    "error_info_from",
    "load_handler_class",
    "make_default_engine",
    "make_engine",
]
