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

import contextlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx
from pydantic import Field

from .base import Description, LocalServer, ModelConfig
from .discovery import Candidate, identify_style, is_code, style_has_fim
from .http import Call, Event, Format, HttpBackend, HttpStreamingLLM, fetch_models, request_json, root_url
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
        body.update(self.optional_sampling(stop, kwargs))
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
        return Event(
            text=str(data.get("content") or ""),
            done=bool(data.get("stop")),
            model=data.get("model"),
            finish_reason=data.get("stop_type"),
        )

    async def props(self) -> dict[str, Any]:
        return await self.get_object("/props")


def files_as_input_extra(files: Mapping[str, str]) -> list[dict[str, str]]:
    """Other files or cells as ``/infill`` ``input_extra`` chunks."""
    return [{"filename": name, "text": text} for name, text in files.items()]


@dataclass
class LlamaCppBackend(HttpBackend):
    """llama.cpp's ``llama-server``: ``/infill`` writes the prompt from its own template (only for
    styles it renders right), and renders other files itself (``input_extra``)."""

    kind: ClassVar[str] = "llamacpp"
    default_url: ClassVar[str | None] = DEFAULT_URL
    local_servers: ClassVar[tuple[LocalServer, ...]] = (LocalServer("llamacpp", 8080, 1),)
    wire: ClassVar[str | None] = "llamacpp"
    custom_form: ClassVar[bool] = True
    models_path: ClassVar[str] = "/v1/models"

    @classmethod
    def create(cls, config: ModelConfig) -> LlamaCppBackend:
        quirks = resolve_quirks(cls.kind, config.server, config.quirks)
        opts = dict(config.options)
        llm = LlamaCppServerLLM(
            base_url=root_url(config.base_url, DEFAULT_URL),
            cache_prompt=bool(opts.get("cache_prompt", True)),
            t_max_predict_ms=opts.get("t_max_predict_ms"),
            n_indent=opts.get("n_indent"),
            extra_body=dict(opts.get("extra_body") or {}),
            **LlamaCppServerLLM.config_kwargs(config, quirks),
        )
        return cls(
            config=config, llm=llm, suffix_default=True, quirks=quirks, server_template=True, input_extra=True
        )

    async def describe(self) -> Description:
        assert isinstance(self.llm, LlamaCppServerLLM)
        props = await self.llm.props()
        name = props.get("model_alias") or props.get("model_path") or props.get("model")
        settings = props.get("default_generation_settings") or {}
        n_ctx = settings.get("n_ctx")
        if not name:
            ids = await self.list_models()
            name = ids[0] if ids else None
        return Description(
            model=posixpath.basename(str(name)) if name else None,
            context_length=n_ctx if isinstance(n_ctx, int) else None,
        )

    def extra_files(self, files: Mapping[str, str]) -> dict[str, Any]:
        return {"input_extra": files_as_input_extra(files)}

    @classmethod
    async def probe(cls, server: str, client: httpx.AsyncClient, root: str, order: int) -> list[Candidate]:
        """A llama.cpp server (``/props``, a working ``/infill``, its vocabulary), or
        llama-cpp-python's server on the same port (OpenAI routes only)."""
        try:
            props = await request_json(client, "GET", root + "/props")
        except (httpx.HTTPStatusError, ValueError):
            props = None
        ids = await fetch_models(client, root + "/v1/models")
        if not isinstance(props, dict):  # llama-cpp-python's server: OpenAI routes only, `suffix` broken
            return await _llama_cpp_python_candidates(client, ids, root, order)
        alias = props.get("model_alias") or props.get("model_path") or (ids[0] if ids else "")
        name = str(alias).rsplit("/", 1)[-1]
        fim = False
        notes: list[str] = []
        with contextlib.suppress(Exception):
            r = await client.post(
                root + "/infill",
                json={"input_prefix": "def f(", "input_suffix": ")\n", "n_predict": 1, "stream": False},
            )
            fim = r.status_code == 200
            if not fim:
                notes.clear()
                notes.append(f"its /infill answered HTTP {r.status_code} (the model has no FIM tokens)")
        style = None
        try:
            style = await identify_style(client, root, "llamacpp", name)
        except Exception as exc:
            if not fim:
                notes.append(f"it could not tokenize ({type(exc).__name__})")
        cfg = ModelConfig(backend=cls.kind, base_url=root, model=name, style=style.name if style else None)
        return [Candidate(cfg, fim, is_code(name) or style is not None, order, notes)]


async def _llama_cpp_python_candidates(
    client: httpx.AsyncClient, ids: list[str], root: str, order: int
) -> list[Candidate]:
    """llama-cpp-python's server: its ``/v1/models`` names only the file (or ``--model_alias``), so
    each model's family comes from its vocabulary (:func:`identify_style`), else from its name."""
    out = []
    for model_id in ids[:4]:
        name = model_id.rsplit("/", 1)[-1]
        notes: list[str] = []
        style = None
        try:
            style = await identify_style(client, root, "llama-cpp-python", model_id)
        except Exception as exc:
            notes.append(f"it could not tokenize ({type(exc).__name__})")
        if style is None and not notes:
            notes.append("its vocabulary has the fill-in-the-middle tokens of no known prompt style")
        fim = style is not None or style_has_fim(name)
        cfg = ModelConfig(
            backend="openai",
            base_url=root + "/v1",
            model=model_id,
            server="llama-cpp-python",
            style=style.name if style is not None else None,
        )
        out.append(Candidate(cfg, fim, is_code(name) or style is not None, order, [] if fim else notes))
    return out
