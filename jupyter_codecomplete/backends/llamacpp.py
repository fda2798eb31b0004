"""The llama.cpp server's native API: ``POST /infill`` (and ``/completion``), ``GET /props``.

With a suffix bound (``native_suffix``) the request goes to ``/infill``: ``input_prefix``,
``input_suffix`` and ``input_extra`` (other files or cells: ``[{"filename", "text"}]``, bound as
``input_extra``), where the server itself writes the model's FIM and repository tokens. Without one
the rendered prompt goes to ``/completion``. Both stream server-sent events ``{"content", "stop"}``.
Generation limits: ``n_predict``, ``t_max_predict_ms`` (stop after this long once a newline was
written), ``n_indent`` (stop at a line indented less than this), ``cache_prompt`` (reuse the KV cache
of the previous request: most of a completion prompt is the same from keystroke to keystroke).
"""

from __future__ import annotations

import posixpath
from typing import Any

from pydantic import Field

from .base import Backend, Description, ModelConfig
from .http import Call, Event, Format, HttpStreamingLLM
from .ollama import root_url
from .quirks import resolve_quirks

DEFAULT_URL = "http://127.0.0.1:8080"


class LlamaCppServerLLM(HttpStreamingLLM):
    """llama.cpp ``llama-server``: ``/infill`` when a suffix is bound, else ``/completion``."""

    cache_prompt: bool = True
    t_max_predict_ms: int | None = None
    n_indent: int | None = None
    extra_body: dict[str, Any] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "llamacpp-server"

    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        suffix = kwargs.pop("suffix", None)
        extra = kwargs.pop("input_extra", None)
        body: dict[str, Any] = {
            "n_predict": int(kwargs.pop("max_tokens", self.max_tokens)),
            "temperature": float(kwargs.pop("temperature", self.temperature)),
            "stream": self.streaming,
            "cache_prompt": self.cache_prompt,
        }
        top_p = kwargs.pop("top_p", self.top_p)
        if top_p is not None:
            body["top_p"] = top_p
        if stop:
            body["stop"] = stop
        t_max = kwargs.pop("t_max_predict_ms", self.t_max_predict_ms)
        if t_max is not None:
            body["t_max_predict_ms"] = int(t_max)
        n_indent = kwargs.pop("n_indent", self.n_indent)
        if n_indent is not None:
            body["n_indent"] = int(n_indent)
        body.update(self.extra_body)
        fmt: Format = "sse" if self.streaming else "json"
        if suffix is None:
            body["prompt"] = prompt
            return Call("/completion", body, fmt, before_cursor=prompt)
        body["input_prefix"] = prompt
        body["input_suffix"] = suffix
        if extra:
            body["input_extra"] = [
                {"filename": str(c.get("filename", "")), "text": str(c.get("text", ""))} for c in extra
            ]
        return Call("/infill", body, fmt, before_cursor=prompt)

    def _read_event(self, data: Any) -> Event:
        if not isinstance(data, dict):
            return Event()
        return Event(
            text=str(data.get("content") or ""),
            done=bool(data.get("stop")),
            model=data.get("model"),
            finish_reason=data.get("stop_type"),
        )

    async def props(self) -> dict[str, Any]:
        data = await self.get_json("/props")
        return data if isinstance(data, dict) else {}


def files_as_input_extra(files: dict[str, str]) -> list[dict[str, str]]:
    """Other files or cells as ``/infill`` ``input_extra`` chunks."""
    return [{"filename": name, "text": text} for name, text in files.items()]


def llamacpp_backend(config: ModelConfig) -> Backend:
    quirks = resolve_quirks("llamacpp", config.server, config.quirks)
    opts = dict(config.options)
    llm = LlamaCppServerLLM(
        base_url=root_url(config.base_url, DEFAULT_URL),
        cache_prompt=bool(opts.get("cache_prompt", True)),
        t_max_predict_ms=opts.get("t_max_predict_ms"),
        n_indent=opts.get("n_indent"),
        extra_body=dict(opts.get("extra_body") or {}),
        **LlamaCppServerLLM.config_kwargs(config, quirks),
    )

    async def describe() -> Description:
        props = await llm.props()
        name = props.get("model_alias") or props.get("model_path") or props.get("model")
        settings = props.get("default_generation_settings") or {}
        n_ctx = settings.get("n_ctx")
        if not name:
            data = await llm.get_json("/v1/models")
            ids = [m.get("id") for m in (data or {}).get("data") or [] if isinstance(m, dict)]
            name = ids[0] if ids else None
        return Description(
            model=posixpath.basename(str(name)) if name else None,
            context_length=n_ctx if isinstance(n_ctx, int) else None,
        )

    return Backend(
        config=config,
        llm=llm,
        kind="llamacpp",
        suffix_default=True,
        quirks=quirks,
        # /infill writes the prompt from its own template: only for styles it renders right
        server_template=True,
        input_extra=True,
        describe=describe,
    )
