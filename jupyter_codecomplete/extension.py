"""The Jupyter server extension: the configuration (``config.py``) wired to the web.

``CodeCompleteApp`` is :class:`~.config.CodeCompleteConfig` (every ``c.CodeCompleteApp.*``
setting, the models, the engine) as a Jupyter server extension: it builds the engine at start,
registers the web handlers, and stops what it started. The commands read the same configuration
without this module.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from jupyter_server.extension.application import ExtensionApp
from tornado.ioloop import IOLoop

from .collector import FullCollections, freeze_heap
from .completion import BaseInlineCompletionHandler
from .config import CodeCompleteConfig


class CodeCompleteApp(ExtensionApp, CodeCompleteConfig):
    """Inline code completion for JupyterLab and Notebook 7."""

    name = "jupyter_codecomplete"
    load_other_extensions = True

    usage_store: Any = None  # a usage.UsageStore while record_usage is on
    lag_monitor: Any = None
    full_collections: FullCollections | None = None

    def root_dir(self) -> str:
        return str(self.serverapp.root_dir) if self.serverapp is not None else os.getcwd()

    def make_completion_handler(self) -> BaseInlineCompletionHandler:
        return self.build_engine()

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
        from .web import LoopLagMonitor, handlers

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
