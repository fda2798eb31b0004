"""Ollama's native API: ``POST /api/generate`` (streamed NDJSON) and ``POST /api/show``.

Two ways to fill in the middle: with a native suffix (``suffix`` field, ``raw`` off, Ollama renders
the model's own template; only for models whose template uses ``.Suffix``, which ``/api/show``
reports as the ``insert`` capability), or with the prompt style's FIM tokens in a ``raw`` prompt.
``describe`` asks ``/api/show``; its :class:`Description` says whether the model has a native
suffix, which decides unless the config does (``options.native_suffix`` or ``quirks.native_suffix``).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Backend, Description, ModelConfig
from .http import Call, Event, HttpStreamingLLM
from .quirks import resolve_quirks

DEFAULT_URL = "http://127.0.0.1:11434"


def root_url(base_url: str | None, default: str) -> str:
    """The server root: a trailing ``/v1`` or ``/api`` (OpenAI-style habits) is dropped."""
    url = (base_url or default).rstrip("/")
    for tail in ("/v1", "/api"):
        if url.endswith(tail):
            url = url[: -len(tail)]
    return url


def fim_support(show: dict[str, Any]) -> bool:
    """True when ``/api/show`` says the model takes a suffix (capability ``insert``/``.Suffix``)."""
    caps = show.get("capabilities")
    if isinstance(caps, list) and "insert" in caps:
        return True
    template = show.get("template")
    return isinstance(template, str) and ".Suffix" in template


class OllamaLLM(HttpStreamingLLM):
    """``/api/generate``: ``raw`` prompt, or ``suffix`` when bound; ``keep_alive``; ``options``."""

    keep_alive: str | int | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "ollama-generate"

    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        suffix = kwargs.pop("suffix", None)
        options: dict[str, Any] = {
            "num_predict": int(kwargs.pop("max_tokens", self.max_tokens)),
            "temperature": float(kwargs.pop("temperature", self.temperature)),
            **self.options,
        }
        top_p = kwargs.pop("top_p", self.top_p)
        if top_p is not None:
            options["top_p"] = top_p
        if stop:
            options["stop"] = stop
        body: dict[str, Any] = {
            "model": self.model,
            "prompt": prompt,
            "stream": self.streaming,
            "options": options,
        }
        if suffix is not None:
            body["suffix"] = suffix  # Ollama applies the model's template: no raw
        else:
            body["raw"] = True
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return Call("/api/generate", body, "ndjson" if self.streaming else "json", before_cursor=prompt)

    def _read_event(self, data: Any) -> Event:
        if not isinstance(data, dict):
            return Event()
        return Event(
            text=str(data.get("response") or ""),
            done=bool(data.get("done")),
            model=data.get("model"),
            finish_reason=data.get("done_reason"),
        )

    async def show(self) -> dict[str, Any]:
        data = await self.get_json("/api/show", method="POST", body={"model": self.model})
        return data if isinstance(data, dict) else {}


def ollama_backend(config: ModelConfig) -> Backend:
    quirks = resolve_quirks("ollama", config.server, config.quirks)
    opts = dict(config.options)
    llm = OllamaLLM(
        base_url=root_url(config.base_url, DEFAULT_URL),
        keep_alive=config.keep_alive,
        options=dict(opts.get("ollama_options") or {}),
        **OllamaLLM.config_kwargs(config, quirks),
    )

    async def describe() -> Description:
        show = await llm.show()
        info = show.get("model_info") or {}
        ctx = next((v for k, v in info.items() if k.endswith(".context_length")), None)
        return Description(
            model=llm.model,
            native_suffix=fim_support(show),
            context_length=ctx if isinstance(ctx, int) else None,
            details=dict(show.get("details") or {}),
        )

    # The suffix goes natively when /api/show says the model takes one (unknown until asked).
    return Backend(
        config=config, llm=llm, kind="ollama", suffix_default=None, quirks=quirks, describe=describe
    )
