"""The prompt engine: prompt styles as data, the builder for the three modes, context and budgets.

Public interface (used by ``completion/`` and ``web/``; keep these names and signatures):

- :class:`PromptStyle` and :class:`StyleRegistry` (``styles.py``): one record per model family;
  the built-in records are data in ``builtin_styles.py``.
- :class:`PromptRequest`, :class:`Budget`, :class:`BuiltPrompt`, :func:`build_prompt`,
  :func:`parse_request`, :class:`PromptError` (``builder.py``).
- :class:`EditPromptRequest`, :func:`build_edit_prompt`, :func:`parse_edit_answer` (``edits.py``):
  next-edit prompts and answers, from a style's ``edit`` record.
- :class:`TokenCounter` and its implementations, :func:`make_counter` (``tokens.py``).
"""

from .builder import MODES, Budget, BuiltPrompt, PromptRequest, build_prompt, parse_request
from .edits import (
    BuiltEditPrompt,
    EditPromptRequest,
    ParsedAnswer,
    RecentEditText,
    build_edit_prompt,
    completion_prompt,
    parse_edit_answer,
)
from .errors import PromptError
from .styles import (
    BUILTIN_STYLES,
    ChatSpec,
    EditAnswerSpec,
    EditSpec,
    FimSpec,
    NotebookSpec,
    PromptStyle,
    RepoSpec,
    StyleRegistry,
)
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
    "BuiltEditPrompt",
    "BuiltPrompt",
    "CallableCounter",
    "ChatSpec",
    "EditAnswerSpec",
    "EditPromptRequest",
    "EditSpec",
    "EstimateCounter",
    "FimSpec",
    "NotebookSpec",
    "ParsedAnswer",
    "PromptError",
    "PromptRequest",
    "PromptStyle",
    "RecentEditText",
    "RepoSpec",
    "StyleRegistry",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizersCounter",
    "build_edit_prompt",
    "build_prompt",
    "completion_prompt",
    "llama_cpp_counter",
    "make_counter",
    "parse_edit_answer",
    "parse_request",
]
