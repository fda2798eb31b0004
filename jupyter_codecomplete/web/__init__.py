"""The tornado adapters of the extension: the websocket, the REST routes, the OpenAPI document.

:func:`handlers` is every route (the table is :mod:`.routes`).
"""

from .routes import handlers
from .stats import LoopLagMonitor

__all__ = [
    "LoopLagMonitor",
    "handlers",
]
