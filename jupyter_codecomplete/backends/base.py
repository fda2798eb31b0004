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

    backend: str = Field(
        "openai",
        description=(
            "The kind of endpoint: `openai`, `openai-chat`, `ollama`, `llamacpp`, `mistral`, "
            "`langchain`, `embedded` (see the backend recipes)."
        ),
    )
    base_url: str | None = Field(
        None,
        description=(
            "Where the server is (for OpenAI-compatible servers the URL ending in `/v1`). `None`: the "
            "provider's default."
        ),
    )
    model: str = Field(
        "",
        description="The model's real name: it picks the prompt style and is sent unless `api_model` is set.",
    )
    # The model name to *send*; it may differ from the real model (e.g. an alias on a proxy).
    api_model: str | None = None
    api_key: SecretStr | None = Field(
        None, description="The API key itself (prefer `api_key_env`). Never sent to the browser or logged."
    )
    api_key_env: str | None = Field(None, description="The environment variable that holds the API key.")
    style: str | None = Field(
        None, description="Force a prompt style by name (default: chosen from the model name)."
    )
    stop: list[str] = Field(
        default_factory=list, description="Extra stop sequences, added to the prompt style's own."
    )
    send_stop: bool = Field(
        True,
        description=(
            "Send the stop sequences to the server (`False` for servers that reject `stop`; they are "
            "still applied to the stream)."
        ),
    )
    max_tokens: int = Field(256, description="Most tokens of a multi-line suggestion.")
    max_tokens_single_line: int = Field(
        64,
        description="Most tokens of a single-line suggestion (the cursor inside a line, or at the end "
        "of an ordinary line).",
    )
    temperature: float = Field(0.2, description="Sampling temperature.")
    top_p: float | None = Field(None, description="Nucleus sampling (`None`: the server's default).")
    timeout: float = Field(20.0, description="Seconds a suggestion may take (first token and whole stream).")
    timeout_single_line: float | None = Field(
        None,
        description="Seconds for a single-line suggestion (as `max_tokens_single_line`; `None`: `timeout`).",
    )
    first_request_timeout: float = Field(
        120.0, description="Seconds for the first request to a model (it may load the model)."
    )
    context_window: int = Field(
        4096, description="The model's context window in tokens: the prompt plus `max_tokens` fit in it."
    )
    streaming: bool = Field(
        True, description="Stream the completion (ghost text appears as the model writes)."
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Extra HTTP headers sent with every request (values that look like credentials are scrubbed "
            "from messages)."
        ),
    )
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
