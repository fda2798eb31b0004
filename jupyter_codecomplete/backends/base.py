"""Model configuration records and the registry of backend kinds."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from langchain_core.language_models import BaseLanguageModel
from pydantic import BaseModel, ConfigDict, Field, SecretStr


class BackendError(Exception):
    """A backend that cannot be built or reached; ``type`` is a stable machine name."""

    def __init__(
        self, type: str, message: str, retry_after: float | None = None, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.type = type
        self.retry_after = retry_after
        # The HTTP status the server answered, when there was one.
        self.status = status


# Where a provider's key is looked up when neither ``api_key`` nor ``api_key_env`` is set. The
# fallback only applies when the endpoint is the provider's own (no ``base_url``, or one on these
# hosts), so a provider key is never sent to some other server.
PROVIDER_KEY_ENV: dict[str, tuple[str, tuple[str, ...]]] = {
    "openai": ("OPENAI_API_KEY", ("api.openai.com",)),
    "openai-chat": ("OPENAI_API_KEY", ("api.openai.com",)),
    "mistral": ("MISTRAL_API_KEY", ("api.mistral.ai", "codestral.mistral.ai")),
}


class ModelConfig(BaseModel):
    """One configured model: where it is, how to call it, and how to prompt it.

    Set in ``jupyter_server_config.py`` as a dict, e.g.::

        c.CodeCompleteApp.completion_model = {
            "backend": "openai", "base_url": "http://127.0.0.1:8080/v1",
            "model": "qwen2.5-coder-1.5b", "api_key_env": "MY_KEY",
        }
    """

    model_config = ConfigDict(extra="forbid")

    backend: str = "openai"
    base_url: str | None = None
    model: str = ""
    # The model name to *send*; it may differ from the real model (e.g. an alias on a proxy).
    api_model: str | None = None
    api_key: SecretStr | None = None
    api_key_env: str | None = None
    style: str | None = None
    stop: list[str] = Field(default_factory=list)
    send_stop: bool = True
    max_tokens: int = 256
    max_tokens_single_line: int = 64
    temperature: float = 0.2
    top_p: float | None = None
    timeout: float = 20.0
    timeout_single_line: float | None = None
    first_request_timeout: float = 120.0
    context_window: int = 4096
    streaming: bool = True
    headers: dict[str, str] = Field(default_factory=dict)
    # Ollama: how long the server keeps the model loaded after a request ("5m", "1h", -1, 0).
    keep_alive: str | int | None = None
    # The server software behind an OpenAI-compatible URL ("llama-cpp-python", "vllm", "tgi",
    # "lmstudio", "litellm", "ollama", "llama.cpp"): selects its declared quirks (backends/quirks.py).
    server: str | None = None
    # Overrides of the quirks record, e.g. {"literal_newlines": false, "unsupported_fields": ["stop"]}.
    quirks: dict[str, Any] = Field(default_factory=dict)
    # a GGUF file for the in-process ("embedded") backend; None: the bundled demo model
    model_path: str | None = None
    # backend-specific extras (e.g. the import path and kwargs of a LangChain class)
    options: dict[str, Any] = Field(default_factory=dict)

    def resolved_api_key(self) -> str | None:
        if self.api_key is not None:
            return self.api_key.get_secret_value()
        if self.api_key_env:
            return os.environ.get(self.api_key_env)
        fallback = PROVIDER_KEY_ENV.get(self.backend)
        if fallback is not None:
            env, hosts = fallback
            host = urlsplit(self.base_url).hostname if self.base_url else None
            if host is None or host in hosts:
                return os.environ.get(env)
        return None

    def secrets(self) -> list[str]:
        """Every secret string this config carries, to scrub from messages."""
        out = []
        key = self.resolved_api_key()
        if key and len(key) >= 4:
            out.append(key)
        for name, value in self.headers.items():
            lowered = name.lower()
            if value and any(word in lowered for word in ("auth", "key", "token", "secret")):
                out.append(value)
                out.extend(part for part in value.split() if len(part) >= 8)
        return out


@dataclass
class Backend:
    """A ready-to-call model: the LangChain object and facts for the client and the prompt."""

    config: ModelConfig
    llm: BaseLanguageModel[Any]
    kind: str
    chat: bool = False
    demo: bool = False
    native_suffix: bool = False
    describe: Callable[[], Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.config.model or self.kind


BackendFactory = Callable[[ModelConfig], Backend]
_FACTORIES: dict[str, BackendFactory] = {}


def register_backend(kind: str) -> Callable[[BackendFactory], BackendFactory]:
    def deco(fn: BackendFactory) -> BackendFactory:
        _FACTORIES[kind] = fn
        return fn

    return deco


def make_backend(config: ModelConfig) -> Backend:
    # import the modules that register the built-in kinds
    from . import inprocess, langchain_any, llamacpp, mistral, ollama, openai_compat  # noqa: F401

    try:
        factory = _FACTORIES[config.backend]
    except KeyError:
        known = ", ".join(sorted(_FACTORIES))
        message = f"Unknown backend {config.backend!r}; known: {known}."
        raise BackendError("unknown_backend", message) from None
    return factory(config)
