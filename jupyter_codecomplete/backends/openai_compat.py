"""OpenAI-compatible endpoints (legacy ``/v1/completions`` and ``/v1/chat/completions``).

Built on langchain-openai. The client never retries on its own (a retry in the typing path
only adds latency); timeouts come from the model config.
"""

from __future__ import annotations

from langchain_openai import ChatOpenAI, OpenAI

from .base import Backend, ModelConfig, register_backend

# langchain-openai insists on a key; local servers need none.
_NO_KEY = "not-needed"


def _common(config: ModelConfig) -> dict[str, object]:
    kwargs: dict[str, object] = {
        "model": config.api_model or config.model or "default",
        "api_key": config.resolved_api_key() or _NO_KEY,
        "temperature": config.temperature,
        "max_retries": 0,
        "timeout": config.first_request_timeout,
        "streaming": config.streaming,
    }
    if config.base_url:
        kwargs["base_url"] = config.base_url
    if config.top_p is not None:
        kwargs["top_p"] = config.top_p
    if config.headers:
        kwargs["default_headers"] = dict(config.headers)
    return kwargs


@register_backend("openai")
def openai_completions(config: ModelConfig) -> Backend:
    llm = OpenAI(max_tokens=config.max_tokens, **_common(config))  # type: ignore[arg-type]
    return Backend(config=config, llm=llm, kind="openai")


@register_backend("openai-chat")
def openai_chat(config: ModelConfig) -> Backend:
    llm = ChatOpenAI(max_completion_tokens=config.max_tokens, **_common(config))  # type: ignore[arg-type]
    return Backend(config=config, llm=llm, kind="openai-chat", chat=True)
