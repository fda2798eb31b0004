"""Ollama's native API: ``POST /api/generate`` (streamed NDJSON) and ``POST /api/show``.

Two ways to fill in the middle: with a native suffix (``suffix`` field, ``raw`` off, Ollama renders
the model's own template; only for models whose template uses ``.Suffix``, which ``/api/show``
reports as the ``insert`` capability), or with the prompt style's FIM tokens in a ``raw`` prompt.
``describe`` asks ``/api/show``; its :class:`Description` says whether the model has a native
suffix, which decides unless the config does (``options.native_suffix`` or ``quirks.native_suffix``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx
from pydantic import Field

from .base import Description, LocalServer, ModelConfig
from .discovery import Candidate, is_code, style_has_fim
from .http import Call, Event, HttpBackend, HttpStreamingLLM, fetch_models, request_json, root_url
from .quirks import resolve_quirks

DEFAULT_URL = "http://127.0.0.1:11434"


def fim_support(show: Any) -> bool:
    """True when ``/api/show`` says the model takes a suffix (capability ``insert``, or a template
    that uses ``.Suffix``): the one reading of Ollama's fill-in-the-middle support."""
    if not isinstance(show, dict):
        return False
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
        options.update(self.optional_sampling(stop, kwargs))
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
        return Event(
            text=str(data.get("response") or ""),
            done=bool(data.get("done")),
            model=data.get("model"),
            finish_reason=data.get("done_reason"),
        )

    async def show(self) -> dict[str, Any]:
        return await self.get_object("/api/show", method="POST", body={"model": self.model})


@dataclass
class OllamaBackend(HttpBackend):
    """Ollama: the suffix goes natively when ``/api/show`` says the model takes one (unknown until
    asked: ``suffix_default`` None)."""

    kind: ClassVar[str] = "ollama"
    default_url: ClassVar[str | None] = DEFAULT_URL
    quirk_defaults: ClassVar[Mapping[str, Any]] = {"literal_newlines": "auto"}
    local_servers: ClassVar[tuple[LocalServer, ...]] = (LocalServer("ollama", 11434, 0),)
    wire: ClassVar[str | None] = "ollama"
    custom_form: ClassVar[bool] = True
    models_path: ClassVar[str] = "/api/tags"

    @classmethod
    def create(cls, config: ModelConfig) -> OllamaBackend:
        quirks = resolve_quirks(cls.kind, config.server, config.quirks)
        llm = OllamaLLM(
            base_url=root_url(config.base_url, DEFAULT_URL),
            keep_alive=config.keep_alive,
            options=dict(config.options.get("ollama_options") or {}),
            **OllamaLLM.config_kwargs(config, quirks),
        )
        return cls(config=config, llm=llm, suffix_default=None, quirks=quirks)

    async def describe(self) -> Description:
        assert isinstance(self.llm, OllamaLLM)
        show = await self.llm.show()
        info = show.get("model_info") or {}
        ctx = next((v for k, v in info.items() if k.endswith(".context_length")), None)
        return Description(
            model=self.llm.model,
            native_suffix=fim_support(show),
            context_length=ctx if isinstance(ctx, int) else None,
            details=dict(show.get("details") or {}),
        )

    @classmethod
    async def probe(cls, server: str, client: httpx.AsyncClient, root: str, order: int) -> list[Candidate]:
        """The models Ollama has (embedding models left out), code models first; ``/api/show`` of
        a few says which fill in the middle."""
        names = [n for n in await fetch_models(client, root + "/api/tags") if "embed" not in n.lower()]
        names.sort(key=lambda n: not is_code(n))
        out = []
        for name in names[:8]:
            fim = False
            with contextlib.suppress(Exception):
                fim = fim_support(await request_json(client, "POST", root + "/api/show", {"model": name}))
            cfg = ModelConfig(backend=cls.kind, base_url=root, model=name)
            out.append(Candidate(cfg, fim or style_has_fim(name), is_code(name), order))
        return out
