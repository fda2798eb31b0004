"""The ``embedded`` backend kind: a GGUF model run inside the server, by the built-in numpy engine
or by llama-cpp-python (:mod:`.engines` chooses; ``options: {"engine": "numpy" | "llama.cpp"}``
asks for one).

One line of config serves a real local code model with no model server::

    c.CodeCompleteApp.completion_model = {"backend": "embedded", "model_path": "/models/qwen-coder.gguf"}

Without ``model_path`` the bundled demo model serves (a tiny model that shows the mechanics), by the
numpy engine unless llama.cpp is asked for.
The prompt style comes from the GGUF's name (``general.name``, else the file name) matched against
the style records; when nothing matches but the file declares FIM tokens, a style is made from them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, ClassVar

from ...prompting import FimSpec, PromptStyle, RepoSpec, StyleRegistry, TokenCounter, make_counter
from ..base import Backend, BackendError, Description, Locality, ModelConfig
from .engines import AUTO, EngineUnavailable, choose_engine
from .gguf import default_model_path, read_gguf_info
from .llm import EmbeddedLlamaLLM

DEMO_NAME = "codecomplete-demo"


def style_from_gguf(info: dict[str, Any], registry: StyleRegistry | None = None) -> PromptStyle | str | None:
    """A style name matching the model's name or file name, else a style built from its FIM tokens."""
    registry = registry or StyleRegistry()
    for name in (info.get("name"), info.get("file_name")):
        if not name:
            continue
        style = registry.for_model(str(name))
        if style.name != "raw" and style.patterns:
            return style.name
    fim = info.get("fim") or {}
    if {"prefix", "suffix", "middle"} <= set(fim):
        stops = [t for t in (info.get("eos_token"), fim.get("file_sep"), fim.get("prefix")) if t]
        repo = None
        if fim.get("repo_name") and fim.get("file_sep"):
            repo = RepoSpec(repo_name=fim["repo_name"], file_sep=fim["file_sep"])
        return PromptStyle(
            name=f"gguf:{info.get('name') or info.get('file_name')}",
            description="Made from the FIM tokens declared in the GGUF file.",
            fim=FimSpec(prefix=fim["prefix"], suffix=fim["suffix"], middle=fim["middle"], pad=fim.get("pad")),
            repo=repo,
            stop=list(dict.fromkeys(stops)),
            eot=[info["eos_token"]] if info.get("eos_token") else [],
        )
    return None


@dataclass
class EmbeddedBackend(Backend):
    """A GGUF model in this process: it describes itself from the file's metadata."""

    kind: ClassVar[str] = "embedded"

    @property
    def locality(self) -> Locality:
        return "process"

    @classmethod
    def create(cls, config: ModelConfig) -> EmbeddedBackend:
        demo = config.model_path is None
        path = config.model_path or default_model_path()
        if not os.path.isfile(path):
            raise BackendError("backend_unavailable", f"No GGUF model file at {path!r}.")
        try:
            engine = choose_engine(path, config.options.get("engine", AUTO), demo=demo)
            info = read_gguf_info(path)
        except EngineUnavailable as exc:
            raise BackendError("backend_unavailable", str(exc)) from exc
        except ValueError as exc:  # a corrupt or truncated file
            raise BackendError("backend_unavailable", f"{os.path.basename(path)}: {exc}") from exc
        if "context_window" not in config.model_fields_set and info.get("context_length"):
            config = config.model_copy(
                update={"context_window": min(config.context_window, int(info["context_length"]))}
            )
        llm = EmbeddedLlamaLLM(
            model_path=path,
            n_ctx=config.context_window,
            max_tokens=config.max_tokens,
            temperature=config.temperature,
            top_p=config.top_p if config.top_p is not None else 0.95,
            n_threads=config.options.get("n_threads"),
            repeat_penalty=float(config.options.get("repeat_penalty", 1.0)),
            engine=engine,
        )
        if not config.model:
            config = config.model_copy(
                update={"model": DEMO_NAME if demo else (info.get("name") or os.path.basename(path))}
            )
        hint = style_from_gguf(info)
        counter = make_counter(llm.shared.tokenize)

        def counter_when_loaded() -> TokenCounter | None:
            try:  # never wait for a model that is still loading: estimate meanwhile
                llm.shared.engine(timeout=0)
            except Exception:
                return None
            return counter

        return cls(
            config=config,
            llm=llm,
            demo=demo,
            style=hint if isinstance(hint, PromptStyle) else None,
            style_hint=hint if isinstance(hint, str) else None,
            token_counter=counter_when_loaded,
            details={"gguf": info, "model_path": path, "engine": engine},
        )

    async def describe(self) -> Description:
        info = self.details["gguf"]
        path = self.details["model_path"]
        return Description(
            model=str(info.get("name") or os.path.basename(path)), context_length=info.get("context_length")
        )

    async def list_models(self) -> list[str]:
        return [(await self.describe()).model or self.name]
