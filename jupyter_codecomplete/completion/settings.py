"""What the engine is built from (:class:`EngineSettings`) and what one request may change
(:class:`Overrides`).

The server (``CodeCompleteApp``), ``jupyter codecomplete check`` and ``jupyter codecomplete eval``
build their engine from an :class:`EngineSettings` with :func:`~.engine.make_engine`, so the three
serve a request the same way. A REST request's or a command's own ``max_tokens``, ``stop``,
``temperature``, model and prompt mode are an :class:`Overrides` given to
:meth:`DefaultInlineCompletionHandler.prepare`, which applies them *before* the prompt is sized
(prompt + output fit the context window) and before budgets and deadlines are chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..backends import NO_AFFINITY, Affinity, ModelConfig
from ..prompting import StyleRegistry
from .base import DEFAULT_MAX_SUGGESTION_CHARS, DEFAULT_MAX_SUGGESTION_LINES

DEFAULT_RECENT_COMPLETIONS = 256


@dataclass
class EngineSettings:
    """Everything the default completion handler is built from.

    ``models``: name → model (``"completion"`` serves by default); ``routes``: language or MIME
    type → model name; ``styles``: the prompt styles (built-in plus the user's); ``repo_name``:
    the repository name of repository-level prompts (None: the working directory's name);
    ``recent_completions``: how many finished suggestions are remembered (0: none);
    ``max_suggestion_chars`` / ``max_suggestion_lines``: the bounds of one suggestion;
    ``warm_up``: whether ``warm`` messages reach the model (``auto``: for a model on this machine
    or a private network, and the embedded one; never a paid API unless ``on``);
    ``shared_ahead_per_minute``: how many warm-ups and prefetches a minute may reach a model that
    is shared (``Backend.shared``; 0: none, -1: no cap).
    ``root_dir``, ``exclude``, ``default_exclude``, ``exclude_gitignored``, ``forbid_context``,
    ``known_secrets``: what must not leave the machine (``privacy/``, docs/privacy.md): the
    server's root (where ``.codecompleteignore`` files are looked up to), the administrator's
    exclusions, the default ones, whether ``.gitignore`` keeps files out of other documents'
    context, the context channels no model is sent, and the secrets the server knows besides
    its models' keys (the user's stored keys).
    """

    models: dict[str, ModelConfig] = field(default_factory=dict)
    routes: dict[str, str] = field(default_factory=dict)
    styles: StyleRegistry = field(default_factory=StyleRegistry)
    repo_name: str | None = None
    recent_completions: int = DEFAULT_RECENT_COMPLETIONS
    max_suggestion_chars: int = DEFAULT_MAX_SUGGESTION_CHARS
    max_suggestion_lines: int = DEFAULT_MAX_SUGGESTION_LINES
    warm_up: str = "auto"
    root_dir: str | None = None
    exclude: tuple[str, ...] = ()
    default_exclude: tuple[str, ...] | None = None
    exclude_gitignored: bool = True
    forbid_context: tuple[str, ...] = ()
    # a source, not a value: two settings with the same values are equal whoever asks it
    known_secrets: Callable[[], Sequence[str]] | None = field(default=None, compare=False)
    # the session key of each request (backends/affinity.py); off unless configured
    affinity: Affinity = NO_AFFINITY
    # warm-ups and prefetches per minute that may reach a shared model (0: none; -1: no cap)
    shared_ahead_per_minute: int = 0

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any] | None) -> EngineSettings:
        """From the ``settings`` dict a completion handler class receives (models may be dicts)."""
        data = dict(settings or {})
        models = {
            str(k): v if isinstance(v, ModelConfig) else ModelConfig.model_validate(v)
            for k, v in (data.get("models") or {}).items()
        }
        styles = data.get("styles")
        if not isinstance(styles, StyleRegistry):
            styles = StyleRegistry(dict(styles or {}))
        recent = data.get("recent_completions")
        return cls(
            models=models,
            routes={str(k): str(v) for k, v in (data.get("routes") or {}).items()},
            styles=styles,
            repo_name=data.get("repo_name"),
            recent_completions=DEFAULT_RECENT_COMPLETIONS if recent is None else int(recent),
            max_suggestion_chars=int(data.get("max_suggestion_chars") or DEFAULT_MAX_SUGGESTION_CHARS),
            max_suggestion_lines=int(data.get("max_suggestion_lines") or DEFAULT_MAX_SUGGESTION_LINES),
            warm_up=str(data.get("warm_up") or "auto"),
            root_dir=data.get("root_dir"),
            exclude=tuple(data.get("exclude") or ()),
            default_exclude=None if data.get("default_exclude") is None else tuple(data["default_exclude"]),
            exclude_gitignored=bool(data.get("exclude_gitignored", True)),
            forbid_context=tuple(data.get("forbid_context") or ()),
            known_secrets=data.get("known_secrets"),
            affinity=data["affinity"] if isinstance(data.get("affinity"), Affinity) else NO_AFFINITY,
            shared_ahead_per_minute=int(data.get("shared_ahead_per_minute") or 0),
        )

    def as_mapping(self) -> dict[str, Any]:
        """The ``settings`` dict every completion handler class takes (third-party ones too)."""
        return {
            "models": dict(self.models),
            "routes": dict(self.routes),
            "styles": self.styles,
            "repo_name": self.repo_name,
            "recent_completions": self.recent_completions,
            "max_suggestion_chars": self.max_suggestion_chars,
            "max_suggestion_lines": self.max_suggestion_lines,
            "warm_up": self.warm_up,
            "root_dir": self.root_dir,
            "exclude": self.exclude,
            "default_exclude": self.default_exclude,
            "exclude_gitignored": self.exclude_gitignored,
            "forbid_context": self.forbid_context,
            "known_secrets": self.known_secrets,
            "affinity": self.affinity,
            "shared_ahead_per_minute": self.shared_ahead_per_minute,
        }


class Overrides(BaseModel):
    """What one request (REST body, a command) changes of its model's configuration.

    ``model``: the configured model to use (else routing decides); ``mode``: the prompt mode
    (``auto`` decides from the request); ``max_tokens``: the output budget (else the model's
    single- or multi-line budget); ``stop``: stop sequences added to the style's and the model's;
    ``temperature``: the sampling temperature sent to the model.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    mode: Literal["auto", "completion", "infill", "repository"] | None = None
    max_tokens: Annotated[int, Field(ge=1)] | None = None
    stop: tuple[str, ...] = ()
    temperature: Annotated[float, Field(ge=0)] | None = None
