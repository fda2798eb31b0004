"""The prompt engine: prompt styles as data, the builder for the three modes, context and budgets.

Public interface (used by ``completion/`` and ``web/``; keep these names and signatures):

- :class:`PromptStyle` and :class:`StyleRegistry` (``styles.py``): one record per model family;
  the built-in records are data in ``builtin_styles.py``.
- :class:`PromptRequest`, :class:`Budget`, :class:`BuiltPrompt`, :func:`build_prompt`,
  :func:`parse_request`, :class:`PromptError` (``builder.py``).
- :class:`TokenCounter` and its implementations, :func:`make_counter` (``tokens.py``).
"""

from .builder import MODES, Budget, BuiltPrompt, PromptRequest, build_prompt, parse_request
from .errors import PromptError
from .styles import BUILTIN_STYLES, ChatSpec, FimSpec, NotebookSpec, PromptStyle, RepoSpec, StyleRegistry
from .tokens import (
    CallableCounter,
    EstimateCounter,
    TiktokenCounter,
    TokenCounter,
    TokenizersCounter,
    llama_cpp_counter,
    make_counter,
)

__all__ = [
    "BUILTIN_STYLES",
    "MODES",
    "Budget",
    "BuiltPrompt",
    "CallableCounter",
    "ChatSpec",
    "EstimateCounter",
    "FimSpec",
    "NotebookSpec",
    "PromptError",
    "PromptRequest",
    "PromptStyle",
    "RepoSpec",
    "StyleRegistry",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizersCounter",
    "build_prompt",
    "llama_cpp_counter",
    "make_counter",
    "parse_request",
]
