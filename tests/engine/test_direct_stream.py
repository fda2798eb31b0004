"""The engine streams our own HTTP backends directly (no LangChain runnable per chunk) when nothing
observes the run, and through the runnable when something does: the same text either way."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig

from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.completion import DefaultInlineCompletionHandler, EngineSettings
from jupyter_codecomplete.completion.engine import make_default_engine
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing.openai_upstream import ScriptedUpstream, UpstreamConfig

TEXT = "total = sum(values)\n"


class Tokens(BaseCallbackHandler):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.seen.append(token)


def engine(
    up: ScriptedUpstream, cls: type[DefaultInlineCompletionHandler] | None = None
) -> DefaultInlineCompletionHandler:
    settings = EngineSettings(
        models={"completion": ModelConfig.model_validate(up.model_config())}, recent_completions=0
    )
    if cls is None:
        return make_default_engine(settings)
    return cls(settings=settings.as_mapping())


def request() -> InlineCompletionRequest:
    return InlineCompletionRequest(number=1, prefix="values = [1, 2]\n", suffix="", language="python")


@pytest.mark.parametrize("backend", ["openai", "openai-chat"])
async def test_direct_and_runnable_paths_give_the_same_text(backend: str) -> None:
    with ScriptedUpstream(UpstreamConfig(default=TEXT)) as up:
        h = engine(up)
        h.models["completion"] = h.models["completion"].model_copy(update={"backend": backend})
        prepared, _ = await h.prepare_async(request())
        assert h.direct(prepared, None) is prepared.backend.llm
        direct = "".join([t async for t in h.raw_stream(prepared)])

        tokens = Tokens()
        config: RunnableConfig = {"callbacks": [tokens]}
        assert h.direct(prepared, config) is None  # a caller's callbacks see the run
        via = "".join([t async for t in h.raw_stream(prepared, config)])
        assert direct == via == TEXT
        assert "".join(tokens.seen) == TEXT
        assert len(up.records) == 2


async def test_tracing_and_overridden_chains_take_the_runnable(monkeypatch: pytest.MonkeyPatch) -> None:
    class Custom(DefaultInlineCompletionHandler):
        def raw_chain(self, prepared: Any) -> Any:
            return super().raw_chain(prepared)

    with ScriptedUpstream(UpstreamConfig(default=TEXT)) as up:
        prepared, _ = await engine(up, Custom).prepare_async(request())
        assert engine(up, Custom).direct(prepared, None) is None
        h = engine(up)
        prepared, _ = await h.prepare_async(request())
        monkeypatch.setenv("LANGSMITH_TRACING", "true")
        assert h.direct(prepared, None) is None
        monkeypatch.setenv("LANGSMITH_TRACING", "false")
        assert h.direct(prepared, None) is prepared.backend.llm
