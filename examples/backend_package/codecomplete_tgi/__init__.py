"""Hugging Face TGI's native API as a jupyter_codecomplete backend kind (``"backend": "tgi"``).

``POST /generate_stream`` takes ``{"inputs": prompt, "parameters": {...}}`` and streams server-sent
events ``{"token": {"text", "special"}, "generated_text": null | str}``; the last event carries the
whole text in ``generated_text``. ``POST /generate`` answers ``{"generated_text"}`` at once. TGI has
no suffix field: fill-in-the-middle goes through the prompt style's FIM tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from jupyter_codecomplete.backends import Description, ModelConfig
from jupyter_codecomplete.backends.http import Call, Event, HttpBackend, HttpStreamingLLM
from jupyter_codecomplete.backends.quirks import resolve_quirks

DEFAULT_URL = "http://127.0.0.1:3000"


class TgiLLM(HttpStreamingLLM):
    """TGI ``/generate_stream`` (``/generate`` when not streaming)."""

    @property
    def _llm_type(self) -> str:
        return "tgi"

    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        parameters: dict[str, Any] = {
            "max_new_tokens": int(kwargs.pop("max_tokens", self.max_tokens)),
            "temperature": float(kwargs.pop("temperature", self.temperature)) or None,
            "details": False,
        }
        top_p = kwargs.pop("top_p", self.top_p)
        if top_p is not None:
            parameters["top_p"] = top_p
        if stop:
            parameters["stop"] = stop
        body = {"inputs": prompt, "parameters": parameters}
        if self.streaming:
            return Call("/generate_stream", body, "sse", before_cursor=prompt)
        return Call("/generate", body, "json", before_cursor=prompt)

    def _read_event(self, data: Any) -> Event:
        if not self.streaming:
            return Event(text=str(data.get("generated_text") or ""), done=True)
        token = data.get("token") or {}
        text = "" if token.get("special") else str(token.get("text") or "")
        return Event(text=text, done=data.get("generated_text") is not None)


@dataclass
class TgiBackend(HttpBackend):
    """The kind named by the entry point: its name is a class attribute, :meth:`create` builds it
    from a :class:`ModelConfig`; listing models and closing come from :class:`HttpBackend`."""

    kind: ClassVar[str] = "tgi"
    wire: ClassVar[str | None] = None  # no scripted fake of TGI in jupyter_codecomplete.testing

    @classmethod
    def create(cls, config: ModelConfig) -> TgiBackend:
        quirks = resolve_quirks(cls.kind, config.server, config.quirks)
        base_url = (config.base_url or DEFAULT_URL).rstrip("/")
        llm = TgiLLM(base_url=base_url, **TgiLLM.config_kwargs(config, quirks))
        # suffix_default=False (the default): no suffix field, the style's FIM tokens go in the prompt
        return cls(config=config, llm=llm, quirks=quirks)

    async def describe(self) -> Description:
        info = await self.transport.get_json("/info")
        info = info if isinstance(info, dict) else {}
        limit = info.get("max_input_tokens") or info.get("max_input_length")
        return Description(
            model=info.get("model_id") or self.config.model or None,
            context_length=limit if isinstance(limit, int) else None,
        )

    async def list_models(self) -> list[str]:
        model = (await self.describe()).model
        return [model] if model else []
