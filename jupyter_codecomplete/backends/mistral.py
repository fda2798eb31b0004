"""Mistral's fill-in-the-middle API: ``POST /v1/fim/completions`` (Codestral).

The body takes ``prompt`` (text before the cursor) and ``suffix`` (after it) natively; the answer
has the chat-completion shape (``choices[0].message.content``, streamed as ``delta.content``
server-sent events ending with ``[DONE]``). The key comes from ``api_key``/``api_key_env`` or,
for Mistral's own hosts, ``MISTRAL_API_KEY``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Description, ModelConfig, ProviderKey, pick_model
from .http import Call, Event, HttpBackend, HttpStreamingLLM
from .quirks import resolve_quirks

DEFAULT_URL = "https://api.mistral.ai/v1"
DEFAULT_MODEL = "codestral-latest"


class MistralFimLLM(HttpStreamingLLM):
    """Codestral FIM: ``prompt`` + ``suffix`` → the middle."""

    min_tokens: int | None = None

    @property
    def _llm_type(self) -> str:
        return "mistral-fim"

    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        body: dict[str, Any] = {
            "model": self.model or DEFAULT_MODEL,
            "prompt": prompt,
            "max_tokens": int(kwargs.pop("max_tokens", self.max_tokens)),
            "temperature": float(kwargs.pop("temperature", self.temperature)),
            "stream": self.streaming,
        }
        suffix = kwargs.pop("suffix", None)
        if suffix is not None:
            body["suffix"] = suffix
        body.update(self.optional_sampling(stop, kwargs))
        if self.min_tokens is not None:
            body["min_tokens"] = self.min_tokens
        return Call("/fim/completions", body, "sse" if self.streaming else "json", before_cursor=prompt)

    def _read_event(self, data: Any) -> Event:
        choices = data.get("choices") or []
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        part = choice.get("delta") or choice.get("message") or {}
        text = part.get("content") if isinstance(part, dict) else None
        finish = choice.get("finish_reason")
        # Non-streamed answers end with their one event; a stream ends with [DONE] or its end.
        return Event(
            text=str(text or ""), done=not self.streaming, model=data.get("model"), finish_reason=finish
        )


@dataclass
class MistralBackend(HttpBackend):
    """Codestral FIM: the suffix goes natively; the ``codestral`` style is its hint."""

    kind: ClassVar[str] = "mistral"
    default_url: ClassVar[str | None] = DEFAULT_URL
    provider_key: ClassVar[ProviderKey | None] = ProviderKey(
        "MISTRAL_API_KEY", ("api.mistral.ai", "codestral.mistral.ai")
    )
    wire: ClassVar[str | None] = "mistral"
    custom_form: ClassVar[bool] = True

    @classmethod
    def create(cls, config: ModelConfig) -> MistralBackend:
        quirks = resolve_quirks(cls.kind, config.server, config.quirks)
        kwargs = MistralFimLLM.config_kwargs(config, quirks)
        kwargs["model"] = kwargs["model"] or DEFAULT_MODEL
        llm = MistralFimLLM(
            base_url=(config.base_url or DEFAULT_URL).rstrip("/"),
            min_tokens=config.options.get("min_tokens"),
            **kwargs,
        )
        return cls(config=config, llm=llm, suffix_default=True, quirks=quirks, style_hint="codestral")

    async def describe(self) -> Description:
        model = self.transport.model
        return Description(model=pick_model(model, await self.list_models()))
