"""Any LangChain LLM or chat model, named by import path, with keyword arguments.

::

    c.CodeCompleteApp.completion_model = {
        "backend": "langchain", "model": "qwen2.5-coder:1.5b",
        "options": {"class": "langchain_ollama.OllamaLLM",
                    "kwargs": {"model": "qwen2.5-coder:1.5b", "num_predict": 64}},
    }

The class must be a ``BaseLLM`` or a ``BaseChatModel`` subclass (chat models get the ``chat``
prompt style). ``options.native_suffix`` says the class takes ``suffix`` as a call argument. The
model config's key (``api_key``/``api_key_env``) is passed as ``api_key`` when the class has that field
and the kwargs do not set it; nothing else is injected, since parameter names differ between classes.
Such a model counts as remote (no warm-up, no prefetch) unless its URL is local or
``options.local`` is true.
"""

from __future__ import annotations

import contextlib
import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel, BaseLanguageModel

from .. import errors
from .base import Backend, BackendError, Description, Locality, ModelConfig, pick_model, url_locality
from .http import fetch_models, make_client


def load_class(path: str) -> type[Any]:
    """``package.module.Class`` or ``package.module:Class``."""
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise BackendError("bad_config", f"options.class must be 'package.module.Class', not {path!r}.")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise BackendError("bad_config", f"Cannot import {path!r}: {exc}") from exc
    if not isinstance(obj, type) or not issubclass(obj, BaseLanguageModel):
        raise BackendError("bad_config", f"{path!r} is not a LangChain LLM or chat model class.")
    return obj


def langchain_backend(config: ModelConfig) -> Backend:
    opts = dict(config.options)
    path = opts.get("class")
    if not isinstance(path, str):
        raise BackendError("bad_config", "The langchain backend needs options.class (an import path).")
    cls = load_class(path)
    kwargs = dict(opts.get("kwargs") or {})
    key = config.resolved_api_key()
    fields = getattr(cls, "model_fields", {})
    names = set(fields) | {getattr(f, "alias", None) for f in fields.values()}
    if (
        key
        and "api_key" in names
        and not ({"api_key"} | {n for n, f in fields.items() if f.alias == "api_key"}) & set(kwargs)
    ):
        kwargs["api_key"] = key
    try:
        llm = cls(**kwargs)
    except Exception as exc:
        message = errors.scrub(str(exc), config.secrets())
        raise BackendError("bad_config", f"Cannot create {path}: {message}") from exc
    hint = opts.get("style_hint")
    # options.native_suffix (the class takes `suffix` as a call argument) is read by native_suffix()
    return LangChainBackend(
        config=config,
        llm=llm,
        chat=isinstance(llm, BaseChatModel),
        style_hint=hint if isinstance(hint, str) and hint else None,
        details={"class": path},
    )


@dataclass
class LangChainBackend(Backend):
    """Any LangChain class: nothing is known of its server but what the config says."""

    kind: ClassVar[str] = "langchain"

    @classmethod
    def create(cls, config: ModelConfig) -> Backend:
        return langchain_backend(config)

    @property
    def locality(self) -> Locality:
        """Nothing tells where a LangChain class sends its prompts (a class with no ``base_url``
        is most often a paid API): ``remote`` unless the config says otherwise, by ``base_url``
        (or the class's own ``kwargs.base_url``), or by ``options.local: true`` (the class runs
        the model on this machine, e.g. a local pipeline)."""
        if self.config.options.get("local") is True:
            return "machine"
        kwargs = self.config.options.get("kwargs")
        url = self.config.base_url or (kwargs.get("base_url") if isinstance(kwargs, dict) else None)
        return url_locality(url if isinstance(url, str) else None)

    async def list_models(self) -> list[str]:
        """An OpenAI-style ``/models`` at the configured ``base_url``, when there is one (quietly
        empty when it does not answer: the class talks to its server its own way)."""
        base_url = self.config.base_url
        if not base_url:
            return []
        headers = dict(self.config.headers)
        key = self.config.resolved_api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        with contextlib.suppress(Exception):
            async with make_client(3.0) as client:
                return await fetch_models(client, base_url.rstrip("/") + "/models", headers=headers)
        return []

    async def describe(self) -> Description:
        want = self.config.api_model or self.config.model
        return Description(model=pick_model(want, await self.list_models()))

    async def aclose(self) -> None:
        """LangChain classes close their clients in their own ways: the async ``aclose`` some
        have, and the pooled client of langchain-openai's models."""
        llm: Any = self.llm
        with contextlib.suppress(Exception):
            aclose = getattr(llm, "aclose", None)
            if aclose is not None:
                await aclose()
            client = getattr(llm, "async_client", None)
            if client is not None and hasattr(client, "_client"):
                await client._client.close()
