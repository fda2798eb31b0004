"""The configuration: every ``c.CodeCompleteApp.*`` setting, and what is built from it.

:class:`CodeCompleteConfig` holds the traits an administrator sets in ``jupyter_server_config``
(as ``c.CodeCompleteApp.*``) and builds from them what the server and the commands use: the
models (:meth:`~CodeCompleteConfig.model_configs`: the administrator's, the user's choice, the
zero-configuration default), the engine's settings (:meth:`~CodeCompleteConfig.engine_settings`)
and the engine itself (:meth:`~CodeCompleteConfig.build_engine`, through the one constructor
:func:`~jupyter_codecomplete.completion.make_engine`), the model service and the usage store.

The server extension (``extension.py``, ``CodeCompleteApp``) is this class plus the wiring to the
web; the commands (``jupyter codecomplete check``, ``models``, ``stats``, ``eval``) read the same
files with :meth:`CodeCompleteConfig.from_files` without importing the server extension.
:func:`load_server_config` merges the ``jupyter_server_config`` files on the Jupyter config path
the way jupyter_server reads them.
"""

from __future__ import annotations

import copy
import glob
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from traitlets import Bool, Dict, Enum, Float, Instance, Int, List, Type, Unicode, default
from traitlets.config import Config, LoggingConfigurable
from traitlets.config.loader import JSONFileConfigLoader, PyFileConfigLoader

from .backends import NO_AFFINITY, Affinity, ModelConfig, default_user, load_secret
from .collector import defers_by_default
from .completion import (
    BaseInlineCompletionHandler,
    DefaultInlineCompletionHandler,
    EngineSettings,
    load_handler_class,
    make_engine,
)
from .privacy import CHANNELS, DEFAULT_EXCLUDE
from .prompting import StyleRegistry

if TYPE_CHECKING:  # imported when first used (they pull in the model catalogue, SQLite)
    from .models_service import ModelService
    from .usage import UsageStore

CONFIG_NAME = "jupyter_server_config"
# The configuration section administrators write (``c.CodeCompleteApp.*``), inside a server or not.
SECTION = "CodeCompleteApp"
ENV_PREFIX = "CODECOMPLETE_"


def load_server_config(config_dirs: Sequence[str] | None = None, config_file: str | None = None) -> Config:
    """The merged server configuration: ``jupyter_server_config.d/*.json``, then ``.json``, then ``.py``
    in each config directory (lowest priority first, as jupyter_server reads them), then ``config_file``."""
    from jupyter_core.paths import jupyter_config_path

    dirs = list(config_dirs) if config_dirs is not None else jupyter_config_path()
    merged = Config()
    for directory in reversed(dirs):  # jupyter_config_path() lists the highest priority first
        for path in sorted(glob.glob(os.path.join(directory, CONFIG_NAME + ".d", "*.json"))):
            merged.merge(JSONFileConfigLoader(os.path.basename(path), os.path.dirname(path)).load_config())
        for ext, loader in ((".json", JSONFileConfigLoader), (".py", PyFileConfigLoader)):
            if os.path.isfile(os.path.join(directory, CONFIG_NAME + ext)):
                merged.merge(loader(CONFIG_NAME + ext, directory).load_config())
    if config_file:
        directory, name = os.path.split(os.path.abspath(config_file))
        loader_cls = JSONFileConfigLoader if name.endswith(".json") else PyFileConfigLoader
        merged.merge(loader_cls(name, directory).load_config())
    return merged


def model_from_env(environ: dict[str, str] | os._Environ[str] | None = None) -> dict[str, Any]:
    """A completion model from ``CODECOMPLETE_BASE_URL``/``_MODEL``/``_API_KEY``/``_BACKEND``/``_STYLE``."""
    env = os.environ if environ is None else environ
    if not env.get(ENV_PREFIX + "BASE_URL"):
        return {}
    cfg: dict[str, Any] = {
        "backend": env.get(ENV_PREFIX + "BACKEND", "openai"),
        "base_url": env[ENV_PREFIX + "BASE_URL"],
        "model": env.get(ENV_PREFIX + "MODEL", ""),
    }
    if env.get(ENV_PREFIX + "API_KEY"):
        cfg["api_key_env"] = ENV_PREFIX + "API_KEY"
    if env.get(ENV_PREFIX + "STYLE"):
        cfg["style"] = env[ENV_PREFIX + "STYLE"]
    return cfg


class CodeCompleteConfig(LoggingConfigurable):
    """The ``c.CodeCompleteApp.*`` settings and what is built from them (server and commands alike)."""

    completion_handler_class = Type(
        default_value=DefaultInlineCompletionHandler,
        klass=BaseInlineCompletionHandler,
        config=True,
        help="The completion handler class that serves inline completions.",
    )
    completion_handler_name = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Name of a completion handler in the 'jupyter_codecomplete.completion_handlers' entry point "
        "group; when set it wins over completion_handler_class.",
    )
    completion_model = Dict(
        config=True,
        help="The fill-in-the-middle/completion model: a dict of ModelConfig fields (backend, base_url, "
        "model, api_key_env, style, max_tokens, timeout, ...). Environment fallback: "
        "CODECOMPLETE_BASE_URL, CODECOMPLETE_MODEL, CODECOMPLETE_API_KEY, CODECOMPLETE_BACKEND.",
    )
    chat_model = Dict(
        config=True,
        help="An optional chat/instruction model (same fields as completion_model); requests are routed to "
        "it by `routes`.",
    )
    edit_model = Dict(
        config=True,
        help="An optional model for edit predictions (same fields as completion_model): a next-edit model "
        "(Zeta, Instinct, Sweep Next-Edit on llama.cpp or vLLM) or a chat model. Without it, edit "
        "predictions use chat_model, else the completion model. A user's choice for edits (Choose Model… → "
        "Use for edits) replaces it unless locked.",
    )
    models = Dict(config=True, help="More named models (name → ModelConfig fields) that `routes` can name.")
    routes = Dict(
        config=True,
        help="Route requests by language or MIME type to a model name, e.g. {'markdown': 'chat'}.",
    )
    prompt_styles = Dict(
        config=True,
        help="User prompt styles (name → PromptStyle record); they add to or override the built-in ones.",
    )
    repo_name = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Repository name for repository-level prompts (default: root dir).",
    )
    max_message_bytes = Int(
        8 * 1024 * 1024,
        config=True,
        help="Largest websocket message accepted; larger ones get an error reply naming this limit.",
    )
    max_suggestion_chars = Int(
        16_000,
        config=True,
        help="Longest suggestion in characters: reaching it ends the suggestion, closes the model's "
        "stream and says so in the reply's notes (a model that ignores max_tokens cannot flood the "
        "browser). The model's own text is read up to four times this much.",
    )
    max_suggestion_lines = Int(400, config=True, help="Most lines of a suggestion (as max_suggestion_chars).")
    max_queued_bytes = Int(
        4 * 1024 * 1024,
        config=True,
        help="Websocket: most bytes queued for a client that does not read; past it the request is "
        "ended (its model stream closed) with a 'slow_client' error, past twice it the socket is closed.",
    )

    recent_completions = Int(
        256,
        config=True,
        help="How many finished suggestions to remember (per server, by prompt and model) to answer a "
        "repeated request without a model call (Backspace and retyping, coming back to a position). "
        "0 turns it off.",
    )

    warm_up = Enum(
        ["auto", "on", "off"],
        "auto",
        config=True,
        help="Warm the model server's prompt cache when the browser says what it will ask next (a "
        "notebook opened, a cell focused, a pause): one prompt evaluated, one token, at most one at a "
        "time and never while a suggestion streams. auto: for a model on this machine or a private "
        "network and the embedded model, never for a paid API; on: always; off: never.",
    )

    shared_ahead_per_minute = Int(
        0,
        config=True,
        help="Warm-ups and prefetches (requests made before the user asks) per minute that may reach "
        "a shared model: one on a private network or a remote service, or one whose config says "
        "shared: true. Each single-user server is one user, so this is a cap per user. 0 (default): "
        "none, the shared accelerators serve only what users ask for; -1: no cap. warm_up = 'off' "
        "turns them off for every model.",
    )

    session_header = Unicode(
        "x-session-id",
        config=True,
        help="The HTTP header that carries each model request's session key (one per user and "
        "document), for a session-aware router in front of model replicas (the vLLM production "
        "stack's router: --routing-logic session --session-key x-session-id; SGLang's and "
        "vllm-router's consistent hashing read x-session-id). Empty: no header.",
    )
    session_key = Enum(
        ["hashed", "names", "off"],
        "hashed",
        config=True,
        help="The session key sent with model requests: hashed (an HMAC of the user and the "
        "document under a secret in the user's Jupyter data directory: stable across restarts, "
        "names nothing), names (the user and the document's path, readable in the router's logs), "
        "off (no key).",
    )
    session_user_field = Bool(
        True,
        config=True,
        help="Also send the session key in the body's end-user field where the API has one "
        "(OpenAI's `user`, which the LiteLLM proxy and vLLM accept).",
    )
    session_user = Unicode(
        "",
        config=True,
        help="The user name the session key is made from (default: JUPYTERHUB_USER, else the "
        "operating system's login name).",
    )
    session_secret_path = Unicode(
        "",
        config=True,
        help="The file of the secret hashed session keys are made with (default: <jupyter data "
        "dir>/codecomplete/session-secret, made once, mode 0600).",
    )

    exclude = List(
        Unicode(),
        [],
        config=True,
        help="Paths no model is ever sent, in gitignore syntax relative to the server's root (e.g. "
        "['data/private/', '*.sqlite']): such a document gets no suggestions and is never context. "
        "A user's .codecompleteignore cannot undo them (docs/privacy.md).",
    )
    default_exclude = List(
        Unicode(),
        list(DEFAULT_EXCLUDE),
        config=True,
        help="Paths excluded unless a .codecompleteignore brings them back with '!pattern' "
        "(gitignore syntax).",
    )
    exclude_gitignored = Bool(
        True,
        config=True,
        help="Files that a .gitignore excludes are not sent as context beside another document (they "
        "still get suggestions of their own).",
    )
    forbid_context = List(
        Enum(list(CHANNELS)),
        [],
        config=True,
        help=f"Context channels no model is sent, whatever its own settings: any of {', '.join(CHANNELS)}.",
    )

    monitor_event_loop = Bool(
        False, config=True, help="Measure the event loop's lag (reported by api/codecomplete/stats)."
    )

    discover_local_servers = Bool(
        True,
        config=True,
        help="With no completion_model configured, look for Ollama, llama.cpp server or LM Studio on their "
        "default loopback ports and use a code model found there; else use the embedded model.",
    )

    freeze_startup_heap = Bool(
        True,
        config=True,
        help="After start-up, move the objects that exist then out of the garbage collector's view "
        "(gc.freeze): a full collection of a Jupyter server's heap otherwise stalls the event loop "
        "for 100-200 ms in the middle of a completion.",
    )

    defer_full_collections = Bool(
        defers_by_default(),
        config=True,
        help="Run the garbage collector's full passes only once the event loop has been calm for "
        "half a second (at most 60 s late): under a burst of requests each full pass otherwise holds "
        "the loop for 50-120 ms and frees next to nothing. Off by default on Python 3.14+, whose "
        "collector is incremental.",
    )

    record_usage = Bool(
        True,
        config=True,
        help="Record what becomes of each suggestion (shown, accepted, kept: lengths, hashes and "
        "positions, no code) in a SQLite file in the user's Jupyter data directory, for the statistics "
        "panel and `jupyter codecomplete stats`. Nothing leaves the machine. False: nothing is written.",
    )
    usage_path = Unicode(
        "",
        config=True,
        help="The usage database (default: <jupyter data dir>/codecomplete/usage.sqlite3).",
    )
    usage_max_bytes = Int(
        32 * 1024 * 1024, config=True, help="Largest usage database; past it the oldest events are deleted."
    )
    usage_max_age_days = Float(180.0, config=True, help="Usage events older than this many days are deleted.")

    completion_handler = Instance(BaseInlineCompletionHandler, allow_none=True)
    _model_service: ModelService | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass (the server extension, ``CodeCompleteApp``) owns these options as its own:
        each is copied into it, so they stay options *of the server extension* (its ``--help-all``,
        its generated config file, the configuration reference of these docs)."""
        super().__init_subclass__(**kwargs)
        for name, trait in CodeCompleteConfig.class_own_traits(config=True).items():
            if name not in cls.__dict__:
                # the copy keeps ``this_class``: the ``@default`` methods above still apply
                setattr(cls, name, copy.copy(trait))

    @classmethod
    def section_names(cls) -> list[str]:
        """Outside a server too, the settings are read from ``c.CodeCompleteApp``."""
        names = super().section_names()
        return names if SECTION in names else [*names, SECTION]

    @classmethod
    def from_files(
        cls, config_dirs: Sequence[str] | None = None, config_file: str | None = None, **kwargs: Any
    ) -> CodeCompleteConfig:
        """The configuration the server would read (:func:`load_server_config`), for a command."""
        return cls(config=load_server_config(config_dirs, config_file), **kwargs)

    # -- models -------------------------------------------------------------------------------------
    @property
    def model_service(self) -> ModelService:
        """The model service (``c.ModelService.*``): sources, downloads, the user's choice, locks."""
        if self._model_service is None:
            from .models_service import ModelService

            self._model_service = ModelService(
                configured=self.explicit_model_configs,
                engine=lambda: self.completion_handler,
                engine_settings=lambda models: self.engine_settings(models, repo_name="check"),
                parent=self,
                log=self.log,
            )
        return self._model_service

    @default("completion_model")
    def _default_completion_model(self) -> dict[str, Any]:
        return model_from_env()

    def default_completion_model(self) -> ModelConfig | None:
        """No model configured: a local model server if one is found, else the embedded model."""
        skipped: list[str] = []
        if self.discover_local_servers:
            from .backends import discover_local_models

            probed: list[str] = []
            service = self.model_service  # where to look: c.ModelService.detect_servers / _host
            servers = [(str(kind), int(port)) for kind, port in service.detect_servers]
            try:
                found = discover_local_models(servers, service.detect_host, report=probed, skipped=skipped)
            except Exception as exc:
                self.log.warning("jupyter_codecomplete: looking for local model servers failed: %s", exc)
                found = None
            self.log.info(
                "jupyter_codecomplete: no model configured; looked for local model servers: %s",
                "; ".join(probed) or "none probed",
            )
            if found is not None:
                self.log.info(
                    "jupyter_codecomplete: no model configured; found %s at %s serving %r",
                    found.backend,
                    found.base_url,
                    found.model,
                )
                return found
        from .backends.embedded import can_run_embedded

        if can_run_embedded():
            notice = None
            if skipped:
                notice = (
                    "Found " + "; ".join(skipped) + ". It cannot fill in the middle, so the demo model "
                    "serves: choose a model in Choose Model…, or set its prompt style."
                )
                self.log.warning("jupyter_codecomplete: %s", notice)
            self.log.info(
                "jupyter_codecomplete: no fill-in-the-middle model found there; using the embedded demo "
                "model (it shows the mechanics, its suggestions are not useful code: choose a real model, "
                "see docs/getting-started.md)"
            )
            return ModelConfig(backend="embedded", notice=notice)
        return None

    def explicit_model_configs(self) -> dict[str, ModelConfig]:
        """The models the administrator configured (no discovery, no user choice)."""
        configs: dict[str, ModelConfig] = {}
        if self.completion_model:
            configs["completion"] = ModelConfig.model_validate(self.completion_model)
        if self.chat_model:
            chat = dict(self.chat_model)
            chat.setdefault("backend", "openai-chat")
            configs["chat"] = ModelConfig.model_validate(chat)
        if self.edit_model:
            configs["edit"] = ModelConfig.model_validate(self.edit_model)
        for name, value in self.models.items():
            configs[name] = ModelConfig.model_validate(value)
        return configs

    def model_configs(self) -> dict[str, ModelConfig]:
        """The administrator's models, with the completion model the user chose (unless locked)
        or, when none is configured, the zero-configuration default."""
        configs = self.explicit_model_configs()
        configured = configs.pop("completion", None)
        completion = self.model_service.startup_choice() or configured
        if completion is None:
            completion = self.default_completion_model()
        edit = self.model_service.startup_choice("edit")  # the user's model for edit predictions
        if edit is not None:
            configs["edit"] = edit
        return ({"completion": completion} if completion is not None else {}) | configs

    # -- the engine ---------------------------------------------------------------------------------
    def root_dir(self) -> str:
        """The folder whose name repository-level prompts give when ``repo_name`` is unset."""
        return os.getcwd()

    def engine_settings(
        self, models: dict[str, ModelConfig] | None = None, repo_name: str | None = None
    ) -> EngineSettings:
        """The engine's settings from this configuration (``models``: instead of :meth:`model_configs`;
        ``repo_name``: instead of the configured one or the root folder's name)."""
        return EngineSettings(
            models=self.model_configs() if models is None else dict(models),
            routes=dict(self.routes),
            styles=StyleRegistry(self.prompt_styles),
            repo_name=repo_name or self.repo_name or os.path.basename(os.path.abspath(self.root_dir())),
            recent_completions=self.recent_completions,
            max_suggestion_chars=self.max_suggestion_chars,
            max_suggestion_lines=self.max_suggestion_lines,
            warm_up=self.warm_up,
            root_dir=os.path.abspath(self.root_dir()),
            exclude=tuple(self.exclude),
            default_exclude=tuple(self.default_exclude),
            exclude_gitignored=self.exclude_gitignored,
            forbid_context=tuple(self.forbid_context),
            known_secrets=self._stored_secrets,
            affinity=self.affinity(),
            shared_ahead_per_minute=self.shared_ahead_per_minute,
        )

    def affinity(self) -> Affinity:
        """How each request's session key is made (``session_*``); the secret is read (or made)
        only when keys are hashed."""
        if self.session_key == "off" or (not self.session_header and not self.session_user_field):
            return NO_AFFINITY
        secret = b""
        if self.session_key == "hashed":
            from jupyter_core.paths import jupyter_data_dir

            default = os.path.join(jupyter_data_dir(), "codecomplete", "session-secret")
            path = self.session_secret_path or default
            secret = load_secret(Path(path))
        return Affinity(
            mode="names" if self.session_key == "names" else "hashed",
            header=self.session_header or None,
            body=self.session_user_field,
            user=self.session_user or default_user(),
            secret=secret,
        )

    def _stored_secrets(self) -> list[str]:
        """The keys in the user's model store (read again only when the file changes)."""
        return list(self.model_service.secrets())

    def handler_class(self) -> type[BaseInlineCompletionHandler]:
        """The configured completion handler class (an entry point's name wins over the class)."""
        if self.completion_handler_name:
            return load_handler_class(self.completion_handler_name)
        return self.completion_handler_class

    def build_engine(
        self, models: dict[str, ModelConfig] | None = None, repo_name: str | None = None
    ) -> BaseInlineCompletionHandler:
        """The completion engine this configuration describes (the server's, and ``eval``'s)."""
        return make_engine(
            self.engine_settings(models, repo_name), log=self.log, handler_class=self.handler_class()
        )

    # -- usage --------------------------------------------------------------------------------------
    def make_usage_store(self) -> UsageStore:
        """The usage store this configuration names (the server and `stats` read the same file)."""
        from .usage import UsageStore

        return UsageStore(
            self.usage_path or None,
            max_bytes=self.usage_max_bytes,
            max_age_days=self.usage_max_age_days,
            log=self.log,
        )
