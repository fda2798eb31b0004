"""The record of one request: what is true of it, made once and read by every stage.

Continue's autocomplete keeps the facts of one request in one object built at its start
("noisy to re-calculate all the time"); this is ours. :meth:`DefaultInlineCompletionHandler.facts`
makes a :class:`RequestFacts` the first time anything asks about a request (the websocket's first
reply names the model, then the stream, the prompt and the cleaning follow) and keeps it, weakly,
for that request: the route, the backend and the prompt style are chosen once, and the request's
language is looked up once. What can only be decided once the model's server has said what it
serves (single- or multi-line, the native-suffix decision, the budgets and deadlines) is decided
once in :meth:`~DefaultInlineCompletionHandler.prepare` and travels in its
:class:`~.default.Prepared` beside these facts: the prompt builder gets the language record and the
native-suffix decision from there, the model call its budget, stops and suffix, the cleaning
pipeline the cursor analysis and its context.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import languages
from ..backends import Backend
from ..prompting import PromptStyle
from .settings import Overrides


@dataclass(frozen=True)
class RequestFacts:
    """``key``: the configured model serving the request (its route); ``backend`` and ``style``: that
    model and its prompt style; ``language``: the request's language id (``python3`` → ``python``;
    an unknown name lower-cased; None for none); ``rules``: its record in the language table (None:
    unknown or none); ``overrides``: what the request changes of its model's configuration."""

    key: str
    backend: Backend
    style: PromptStyle
    language: str | None
    rules: languages.Language | None
    overrides: Overrides = field(default_factory=Overrides)


def resolve_language(name: str | None) -> tuple[str | None, languages.Language | None]:
    """A request's language id and record, from one lookup of its name (two for an unknown name)."""
    record = languages.lookup(name)
    return (record.name if record is not None else languages.normalize(name)), record
