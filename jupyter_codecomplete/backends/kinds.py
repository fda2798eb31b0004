"""The registry of backend kinds: the one place a kind's name is looked up.

A backend kind is what ``"backend": "..."`` in a model config names. Every kind, the built-in ones
included, is an entry in the ``jupyter_codecomplete.backends`` entry-point group (``pyproject.toml``).
An entry names either a :class:`~.base.Backend` subclass (the built-in kinds: the class carries the
kind's name and its facts as class attributes, and ``create(config)`` builds it) or a plain factory
``(ModelConfig) -> Backend`` (older third-party packages). What other modules know about a kind
(its default quirks, its provider key, the local servers discovery looks for, the scripted fake
that speaks its wire) is read from those class attributes through :func:`kind_attribute`, never
written in a table of kind names.

This module imports nothing of the package, so :mod:`.quirks` and :mod:`.base` can both read it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from ..errors import BackendError

# The entry-point group every backend kind registers in, built-in ones included (pyproject.toml):
#     [project.entry-points."jupyter_codecomplete.backends"]
#     mykind = "my_package.my_module:MyBackend"      (a Backend subclass), or
#     mykind = "my_package.my_module:make_my_backend" (a factory function)
ENTRY_POINT_GROUP = "jupyter_codecomplete.backends"

# The package whose entry points are the built-in kinds.
BUILTIN_PACKAGE = "jupyter_codecomplete."

# kind -> what its entry point (or register_backend) gave: a Backend subclass or a factory
_LOADED: dict[str, Any] = {}
# kinds whose entry point failed to load (looked up again only through backend_factory)
_BROKEN: set[str] = set()


def register_backend(kind: str) -> Callable[[Any], Any]:
    """Register a factory or a Backend subclass for ``kind`` at import time (tests, notebooks).

    Installed packages declare theirs in the ``jupyter_codecomplete.backends`` entry-point group
    instead (the built-in kinds do too); a kind registered here wins over an entry point."""

    def deco(fn: Any) -> Any:
        _LOADED[kind] = fn
        _BROKEN.discard(kind)
        return fn

    return deco


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def backend_kinds() -> list[str]:
    """Every backend kind known: registered ones and the installed entry points."""
    return sorted(set(_LOADED) | set(_entry_points()))


def builtin_kinds() -> list[str]:
    """The kinds this package itself declares (not those of other installed packages)."""
    return sorted(k for k, ep in _entry_points().items() if ep.value.startswith(BUILTIN_PACKAGE))


def load_kind(kind: str) -> Any:
    """What ``kind``'s entry point names (a Backend subclass or a factory); errors name the kind."""
    found = _LOADED.get(kind)
    if found is not None:
        return found
    ep = _entry_points().get(kind)
    if ep is None:
        known = ", ".join(backend_kinds())
        raise BackendError("unknown_backend", f"Unknown backend {kind!r}; known: {known}.")
    try:
        loaded = ep.load()
    except Exception as exc:  # a broken third-party package: say which
        _BROKEN.add(kind)
        raise BackendError("bad_config", f"Cannot load backend {kind!r} ({ep.value}): {exc}") from exc
    if not callable(loaded):
        _BROKEN.add(kind)
        raise BackendError("bad_config", f"Backend {kind!r} ({ep.value}) is not a factory.")
    _LOADED[kind] = loaded
    return loaded


def kind_attribute(kind: str, name: str, default: Any = None) -> Any:
    """A class attribute of ``kind``'s Backend class (``default`` for an unknown or broken kind,
    or one registered as a plain factory)."""
    if kind in _BROKEN and kind not in _LOADED:
        return default
    try:
        found = load_kind(kind)
    except BackendError:
        return default
    return getattr(found, name, default) if isinstance(found, type) else default
