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
from .context import CELL_SEPARATOR, comment_marker, display_path
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
from .notebook_document import NotebookDocument, notebook_document
from .outputs import cursor_indent, insert_candidates
from .styles import (
    BUILTIN_STYLES,
    GENERIC_EDIT_STYLE,
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
from .tracebacks import ErrorLine, error_comment, error_line

__all__ = [
    "BUILTIN_STYLES",
    "CELL_SEPARATOR",
    "GENERIC_EDIT_STYLE",
    "MODES",
    "Budget",
    "BuiltEditPrompt",
    "BuiltPrompt",
    "CallableCounter",
    "ChatSpec",
    "EditAnswerSpec",
    "EditPromptRequest",
    "EditSpec",
    "ErrorLine",
    "EstimateCounter",
    "FimSpec",
    "NotebookDocument",
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
    "comment_marker",
    "completion_prompt",
    "cursor_indent",
    "display_path",
    "error_comment",
    "error_line",
    "insert_candidates",
    "llama_cpp_counter",
    "make_counter",
    "notebook_document",
    "parse_edit_answer",
    "parse_request",
]
