"""The prompt engine's one exception (re-exported by ``builder`` and the package).

It lives in :mod:`jupyter_codecomplete.errors` with every other exception of the package."""

from __future__ import annotations

from ..errors import PromptError

__all__ = ["PromptError"]
