"""The Jupyter server extension: traitlets configuration and wiring of the engine to the web."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from jupyter_server.extension.application import ExtensionApp
from tornado.ioloop import IOLoop
from traitlets import Bool, Dict, Enum, Float, Instance, Int, Type, Unicode, default

from .backends import ModelConfig
from .collector import FullCollections, defers_by_default, freeze_heap
from .completion import (
    BaseInlineCompletionHandler,
    DefaultInlineCompletionHandler,
    EngineSettings,
    load_handler_class,
    make_engine,
)
from .prompting import StyleRegistry

if TYPE_CHECKING:  # imported when first used (it pulls in the model catalogue)
    from .models_service import ModelService

ENV_PREFIX = "CODECOMPLETE_"


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


class CodeCompleteApp(ExtensionApp):
    """Inline code completion for JupyterLab and Notebook 7."""

    name = "jupyter_codecomplete"
    load_other_extensions = True

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
    usage_store: Any = None  # a usage.UsageStore while record_usage is on
    lag_monitor: Any = None
    full_collections: FullCollections | None = None
    _model_service: ModelService | None = None

    @property
    def model_service(self) -> ModelService:
        """The model service (``c.ModelService.*``): sources, downloads, the user's choice, locks."""
        if self._model_service is None:
            from .models_service import ModelService

            self._model_service = ModelService(
                configured=self.explicit_model_configs,
                engine=lambda: self.completion_handler,
                parent=self,
                log=self.log,
            )
        return self._model_service

    def _scrub_logs(self) -> None:
        """Secrets never reach the server's log (errors.SecretFilter on the loggers we write to)."""
        from .errors import SecretFilter

        def secrets() -> list[str]:
            found = self.completion_handler.secrets() if self.completion_handler is not None else []
            if self._model_service is not None:  # the keys in the user's store, valid entries or not
                found = [*found, *self._model_service.secrets()]
            return found

        for log in (self.log, getattr(self.serverapp, "log", None)):
            logger = log.logger if isinstance(log, logging.LoggerAdapter) else log
            if not isinstance(logger, logging.Logger):
                continue
            # one filter per logger (a server started again in the same process replaces the source)
            found = [f for f in logger.filters if isinstance(f, SecretFilter)]
            if found:
                found[0].secrets = secrets
            else:
                logger.addFilter(SecretFilter(secrets))

    @default("completion_model")
    def _default_completion_model(self) -> dict[str, Any]:
        return model_from_env()

    def default_completion_model(self) -> ModelConfig | None:
        """No model configured: a local model server if one is found, else the embedded model."""
        skipped: list[str] = []
        if self.discover_local_servers:
            from .backends.discovery import discover_local_models

            probed: list[str] = []
            service = self.model_service  # where to look: c.ModelService.detect_servers / _host
            servers = [(str(kind), int(port)) for kind, port in service.detect_servers]
            try:
                found = discover_local_models(
                    servers, service.detect_host, report=probed, skipped=skipped
                )
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
        from .backends.embedded import is_available

        if is_available():
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

    def make_completion_handler(self) -> BaseInlineCompletionHandler:
        cls = self.completion_handler_class
        if self.completion_handler_name:
            cls = load_handler_class(self.completion_handler_name)
        settings = self.engine_settings(
            repo_name=self.repo_name or os.path.basename(os.path.abspath(self._root_dir()))
        )
        return make_engine(settings, log=self.log, handler_class=cls)

    def _root_dir(self) -> str:
        return str(self.serverapp.root_dir) if self.serverapp is not None else os.getcwd()

    def engine_settings(
        self, models: dict[str, ModelConfig] | None = None, repo_name: str | None = None
    ) -> EngineSettings:
        """The engine's settings from this configuration (``models``: instead of :meth:`model_configs`).
        The server, ``check`` and ``eval`` build their engine from this."""
        return EngineSettings(
            models=self.model_configs() if models is None else dict(models),
            routes=dict(self.routes),
            styles=StyleRegistry(self.prompt_styles),
            repo_name=repo_name or self.repo_name,
            recent_completions=self.recent_completions,
            max_suggestion_chars=self.max_suggestion_chars,
            max_suggestion_lines=self.max_suggestion_lines,
            warm_up=self.warm_up,
        )

    def make_usage_store(self) -> Any:
        """The usage store this configuration names (the server and `stats` read the same file)."""
        from .usage import UsageStore

        return UsageStore(
            self.usage_path or None,
            max_bytes=self.usage_max_bytes,
            max_age_days=self.usage_max_age_days,
            log=self.log,
        )

    def initialize_settings(self) -> None:
        self.completion_handler = self.make_completion_handler()
        if self.record_usage:
            self.usage_store = self.make_usage_store()
        self._scrub_logs()
        info = self.completion_handler.model_info(None)
        if info is None:
            self.log.warning("jupyter_codecomplete: no completion model is configured")
        else:
            self.log.info(
                "jupyter_codecomplete: %s serves completions with %s (%s, style %s)",
                type(self.completion_handler).__name__,
                info.name,
                info.backend,
                info.style,
            )

    def initialize_handlers(self) -> None:
        from .web import handlers
        from .web.stats import LoopLagMonitor

        self.handlers.extend(handlers())
        # Is the model's server there? Asked once the loop runs (never holding the start-up): a
        # server that is down is then reported as not ready (`problem`) from the first hello on.
        IOLoop.current().add_callback(self._check_ready)
        if self.freeze_startup_heap:
            # once the server and every extension have loaded (a few seconds after start)
            IOLoop.current().call_later(5.0, freeze_heap)
        if self.defer_full_collections:
            self.full_collections = FullCollections()
            IOLoop.current().add_callback(self.full_collections.start)
        if self.monitor_event_loop:
            self.lag_monitor = LoopLagMonitor()
            IOLoop.current().add_callback(self.lag_monitor.start)

    async def _check_ready(self) -> None:
        check = getattr(self.completion_handler, "check_ready", None)
        if check is None:
            return
        try:
            info = await check()
        except Exception as exc:  # a check that breaks must not break the server
            self.log.warning("jupyter_codecomplete: checking the model failed: %s", exc)
            return
        if info is not None and info.problem:
            self.log.warning("jupyter_codecomplete: the model %s is not ready: %s", info.name, info.problem)

    async def stop_extension(self) -> None:
        if self._model_service is not None:
            await self._model_service.close()
        if self.lag_monitor is not None:
            self.lag_monitor.stop()
        if self.full_collections is not None:
            self.full_collections.stop()
        if self.completion_handler is not None:
            await self.completion_handler.close()
        if self.usage_store is not None:
            self.usage_store.close()
