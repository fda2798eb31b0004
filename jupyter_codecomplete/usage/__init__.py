"""What the user does with suggestions, recorded on the user's machine (``docs/usage.md``).

- :mod:`.store`: the SQLite store in the Jupyter data directory (schema versions, WAL, bounds).
- :mod:`.summary`: the aggregates the REST route, ``jupyter codecomplete stats`` and the panel show.
- :mod:`.gate`: restraint learned from the user's own events (which automatic requests to skip).
- :mod:`.preview`: what each restraint level would have changed on those events.

Used by ``web/`` and the commands; it imports only :mod:`..protocol`.
"""

from .gate import LEVELS
from .store import SCHEMA_VERSION, UsageStore, default_usage_path
from .summary import summarize

__all__ = [
    "LEVELS",
    "SCHEMA_VERSION",
    "UsageStore",
    "default_usage_path",
    "summarize",
]
