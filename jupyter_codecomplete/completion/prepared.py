"""What the engine decided about one request before the model is called (:class:`Prepared`).

Made by :meth:`DefaultInlineCompletionHandler.prepare` for a completion and by
``edits.prepare_edits`` for an edit prediction; read by the model call, the cleaning pipeline and
the reply. Its own module so that both build it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..backends import Backend, ModelConfig, Session
from ..postprocess import Cursor, PostprocessContext
from ..privacy import GateReport
from ..prompting import BuiltPrompt, PromptStyle
from .facts import RequestFacts


@dataclass
class Prepared:
    """Everything decided about one request before the model is called."""

    key: str
    backend: Backend
    style: PromptStyle
    built: BuiltPrompt
    postprocess: PostprocessContext
    max_tokens: int
    stop: list[str]
    first_timeout: float
    total_timeout: float
    bind: dict[str, Any] = field(default_factory=dict)
    # the cursor analysis made once for this request (the pipeline reuses it) and its decision
    cursor: Cursor | None = None
    single_line: bool = False
    # whether the text after the cursor goes to the endpoint's own field: decided once (the prompt
    # builder and the model call both read it)
    native_suffix: bool = False
    # the request's record (route, model, style, language), made once for it
    facts: RequestFacts | None = None
    # what the privacy gate did to the request's context (redacted, left out, held back)
    gate: GateReport | None = None
    # the request's session key for a session-aware router (user and document), when sent
    session: Session | None = None


def deadlines(config: ModelConfig, warm: bool, single_line: bool = False) -> tuple[float, float]:
    """A model call's first-token and total deadlines, the same for both kinds of suggestion: the
    model's ``timeout`` (``timeout_single_line`` for a single-line suggestion when set), and for
    a model that has not answered since it was (re)configured the longer
    ``first_request_timeout`` (it may be loading)."""
    total = config.timeout_single_line if single_line and config.timeout_single_line else config.timeout
    if not warm:
        total = max(total, config.first_request_timeout)
    return total, total
