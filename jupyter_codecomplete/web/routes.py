"""Every route of the extension. A handler declares its path under ``api/codecomplete/`` as its
``route``, beside its code; :func:`handlers` collects them from the modules below, in order."""

from __future__ import annotations

from types import ModuleType

from tornado import web

from . import models_api, rest, stats, usage_api, websocket

PREFIX = "/api/codecomplete/"
MODULES: tuple[ModuleType, ...] = (websocket, stats, rest, models_api, usage_api)


def handlers() -> list[tuple[str, type[web.RequestHandler]]]:
    """``(path, handler)`` of every class defined in :data:`MODULES` that declares its own ``route``."""
    return [
        (PREFIX + found.__dict__["route"], found)
        for module in MODULES
        for found in vars(module).values()
        if isinstance(found, type)
        and issubclass(found, web.RequestHandler)
        and found.__module__ == module.__name__
        and "route" in found.__dict__
    ]
