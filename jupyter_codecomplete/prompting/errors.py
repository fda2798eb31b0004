"""The prompt engine's one exception (re-exported by ``builder`` and the package)."""

from __future__ import annotations


class PromptError(ValueError):
    """A request that cannot make a prompt; ``type`` is a stable machine name.

    Types: ``unknown_style``, ``bad_style``, ``unknown_mode``, ``bad_request``, ``bad_files``,
    ``no_infill``, ``missing_suffix``, ``prompt_too_long``, ``bad_budget``.
    """

    def __init__(self, type: str, message: str) -> None:
        super().__init__(message)
        self.type = type
        self.message = message
