"""Hugging Face TGI's native API as a jupyter_codecomplete backend kind (``"backend": "tgi"``).

``POST /generate_stream`` takes ``{"inputs": prompt, "parameters": {...}}`` and streams server-sent
events ``{"token": {"text", "special"}, "generated_text": null | str}``; the last event carries the
whole text in ``generated_text``. ``POST /generate`` answers ``{"generated_text"}`` at once. TGI has
no suffix field: fill-in-the-middle goes through the prompt style's FIM tokens.
"""

from __future__ import annotations

from typing import Any

from jupyter_codecomplete.backends import Backend, Description, ModelConfig
from jupyter_codecomplete.backends.http import Call, Event, HttpStreamingLLM
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


def tgi_backend(config: ModelConfig) -> Backend:
    """The factory named by the entry point: a :class:`ModelConfig` in, a :class:`Backend` out."""
    quirks = resolve_quirks("tgi", config.server, config.quirks)
    base_url = (config.base_url or DEFAULT_URL).rstrip("/")
    llm = TgiLLM(base_url=base_url, **TgiLLM.config_kwargs(config, quirks))

    async def describe() -> Description:
        info = await llm.get_json("/info")
        info = info if isinstance(info, dict) else {}
        limit = info.get("max_input_tokens") or info.get("max_input_length")
        return Description(
            model=info.get("model_id") or config.model or None,
            context_length=limit if isinstance(limit, int) else None,
        )

    # suffix_default=False: no suffix field, the style's FIM tokens go in the prompt
    return Backend(config=config, llm=llm, kind="tgi", quirks=quirks, describe=describe)
