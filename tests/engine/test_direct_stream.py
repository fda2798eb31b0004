"""The engine streams our own HTTP backends directly (no LangChain runnable per chunk) when nothing
observes the run, and through the runnable when something does: the same text, or the same error,
either way, for every HTTP backend, against the scripted model servers.

Also here: the engine asks a server what it serves before its first completion, not while that
completion streams (a server that serves one request at a time, llama-cpp-python's, ends the
running stream for any request that arrives meanwhile: an empty suggestion)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import set_debug
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tracers.context import collect_runs

from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.backends.http import HttpTransport
from jupyter_codecomplete.completion import (
    DefaultInlineCompletionHandler,
    EngineSettings,
    make_default_engine,
)
from jupyter_codecomplete.completion.prepared import Prepared
from jupyter_codecomplete.errors import as_error
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig, served_kinds, upstream_for

KINDS = served_kinds()  # every built-in kind with a model server (Backend.wire)
KEY = "sk-direct-test"
PREFIX = "values = [1, 2]\n"

# one scripted answer per row: (trigger in the prompt, rule)
ROWS: list[tuple[str, dict[str, Any]]] = [
    ("TEXT", {"completion": "total = sum(values)\nprint(total)\n"}),
    ("EMPTY", {"completion": ""}),
    ("BIGPIECES", {"completion": "x = 1\n" * 40, "piece_chars": 7}),
    ("SPACE", {"completion": "return  a + b", "leading_space": True}),
    ("STREAMERROR", {"completion": "a b c d e f", "stream_error": 3}),
    ("CLOSED", {"completion": "a b c d e f", "close_after": 2}),
    ("NOTJSON", {"completion": "a b c", "invalid_json": True}),
    ("STATUS", {"status": 500}),
]


def _upstream(kind: str) -> OpenAIUpstream:
    return upstream_for(kind, api_key=KEY)


def _config(kind: str, up: OpenAIUpstream) -> ModelConfig:
    url = up.backend_url
    return ModelConfig.model_validate(
        {"backend": kind, "base_url": url, "model": "m", "api_key": KEY, "style": "raw", "timeout": 5.0}
    )


@pytest.fixture(scope="module", params=KINDS)
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, OpenAIUpstream]]:
    kind = str(request.param)
    up = _upstream(kind)
    up.set_rules([{"contains": trigger, **rule} for trigger, rule in ROWS], default="pass\n")
    up.start()
    yield kind, up
    up.stop()


class Tokens(BaseCallbackHandler):
    """A caller's LangChain callback: it must see every token (so the runnable path is taken)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.starts = 0

    def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
        self.starts += 1

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.starts += 1

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.seen.append(token)


def engine(model: ModelConfig) -> DefaultInlineCompletionHandler:
    return make_default_engine(EngineSettings(models={"completion": model}, recent_completions=0))


def request(trigger: str) -> InlineCompletionRequest:
    return InlineCompletionRequest(
        number=1, prefix=f"# {trigger}\n{PREFIX}", suffix="", language="python", path="t.py"
    )


async def raw(h: DefaultInlineCompletionHandler, prepared: Prepared, config: RunnableConfig | None) -> str:
    """The model's text through raw_stream, or ``error:<type>`` when it fails."""
    parts: list[str] = []
    try:
        async for piece in h.raw_stream(prepared, config):
            parts.append(piece)
    except Exception as exc:
        return f"error:{as_error(exc).type}"
    return "".join(parts)


async def suggestion(h: DefaultInlineCompletionHandler, req: InlineCompletionRequest, config: Any) -> str:
    """The cleaned suggestion through the handler's Runnable face, or ``error:<type>``."""
    try:
        return await h.ainvoke(req, config)
    except Exception as exc:
        return f"error:{as_error(exc).type}"


@pytest.mark.parametrize("trigger", [t for t, _ in ROWS])
async def test_direct_and_runnable_paths_give_the_same_answer(
    served: tuple[str, OpenAIUpstream], trigger: str
) -> None:
    kind, up = served
    h = engine(_config(kind, up))
    try:
        prepared, _ = await h.prepare_async(request(trigger))
        assert h.direct(prepared) is prepared.backend.llm
        tokens = Tokens()
        config: RunnableConfig = {"callbacks": [tokens]}
        assert h.direct(prepared, config) is None  # a caller's callbacks see the run

        direct = await raw(h, prepared, None)
        via = await raw(h, prepared, config)
        assert direct == via
        if not direct.startswith("error:"):
            assert "".join(tokens.seen) == direct
        assert tokens.starts == 1
        # and the cleaned suggestion, through the whole engine
        assert await suggestion(h, request(trigger), None) == await suggestion(
            h, request(trigger), {"callbacks": [Tokens()]}
        )
    finally:
        await h.close()


def test_rows_cover_text_and_errors(served: tuple[str, OpenAIUpstream]) -> None:
    """The table above is not vacuous: the text rows give text, the fault rows errors."""
    kind, up = served

    async def run() -> dict[str, str]:
        h = engine(_config(kind, up))
        try:
            out = {}
            for trigger, _ in ROWS:
                prepared, _ = await h.prepare_async(request(trigger))
                out[trigger] = await raw(h, prepared, None)
            return out
        finally:
            await h.close()

    out = asyncio.run(run())
    assert out["TEXT"].startswith("total = sum(values)")
    assert out["EMPTY"] == ""
    assert out["BIGPIECES"].count("x = 1") == 40
    for trigger in ("STREAMERROR", "CLOSED", "NOTJSON", "STATUS"):
        assert out[trigger].startswith("error:"), (trigger, out[trigger])


@pytest.fixture
def openai() -> Iterator[OpenAIUpstream]:
    with OpenAIUpstream(UpstreamConfig(model="m", default="total = sum(values)\n")) as up:
        yield up


async def test_direct_path_skips_the_runnable(openai: OpenAIUpstream) -> None:
    h = engine(_config("openai", openai))

    def no_chain(prepared: Prepared) -> Any:
        raise AssertionError("the runnable was built")

    h.raw_chain = no_chain  # type: ignore[method-assign]  # an instance's, not the class's: direct stays on
    try:
        prepared, _ = await h.prepare_async(request("TEXT"))
        assert await raw(h, prepared, None) == "total = sum(values)\n"
        assert await h.ainvoke(request("TEXT")) == "total = sum(values)"  # a config without callbacks
    finally:
        await h.close()


async def test_observers_take_the_runnable(openai: OpenAIUpstream) -> None:
    """Tracing, debug, an enclosing run's callbacks, the model's own callbacks, a subclass's chain."""
    h = engine(_config("openai", openai))
    try:
        prepared, _ = await h.prepare_async(request("TEXT"))
        assert h.direct(prepared) is not None

        with collect_runs() as runs:  # a configure hook, as LangSmith tracing is
            assert h.direct(prepared) is None
            assert await raw(h, prepared, None) == "total = sum(values)\n"
        assert runs.traced_runs, "the run was not traced"

        set_debug(True)
        try:
            assert h.direct(prepared) is None
        finally:
            set_debug(False)

        # inside a LangChain chain whose caller gave callbacks: the enclosing run's config reaches us
        tokens = Tokens()
        seen: list[bool] = []

        async def inner(_: Any) -> str:
            seen.append(h.direct(prepared) is None)
            return await raw(h, prepared, None)

        out = await RunnableLambda(inner).ainvoke(None, {"callbacks": [tokens]})
        assert seen == [True] and out == "total = sum(values)\n"
        assert "".join(tokens.seen) == out

        llm = prepared.backend.llm
        assert isinstance(llm, HttpTransport)
        llm.callbacks = [Tokens()]
        try:
            assert h.direct(prepared) is None
        finally:
            llm.callbacks = None
    finally:
        await h.close()

    class Custom(DefaultInlineCompletionHandler):
        def raw_chain(self, prepared: Prepared) -> Any:
            return super().raw_chain(prepared)

    custom = Custom(
        settings=EngineSettings(
            models={"completion": _config("openai", openai)}, recent_completions=0
        ).as_mapping()
    )
    try:
        prepared, _ = await custom.prepare_async(request("TEXT"))
        assert custom.direct(prepared) is None
    finally:
        await custom.close()


async def test_the_server_is_asked_what_it_serves_before_the_first_completion(
    openai: OpenAIUpstream,
) -> None:
    h = engine(_config("openai", openai))
    at_lookup: list[int] = []
    lookup = h.reported_model

    async def spy(key: str) -> str | None:
        reported = await lookup(key)
        at_lookup.append(len(openai.records))  # completions the server had seen when it answered
        return reported

    h.reported_model = spy  # type: ignore[method-assign]
    try:
        assert await h.ainvoke(request("TEXT")) == "total = sum(values)"
        assert await h.ainvoke(request("TEXT")) == "total = sum(values)"
        assert at_lookup == [0], "the lookup overlapped a completion (or ran twice)"
        assert len(openai.records) == 2
        assert h.model_info() is not None and h.model_info().reported == "m"  # type: ignore[union-attr]
    finally:
        await h.close()


async def test_a_slow_lookup_does_not_hold_the_first_completion(openai: OpenAIUpstream) -> None:
    h = engine(_config("openai", openai))
    release = asyncio.Event()

    async def slow(key: str) -> str | None:
        await release.wait()
        h._reported[key] = "late"
        return "late"

    h.reported_model = slow  # type: ignore[method-assign]
    try:
        await h.learn_reported("completion", wait=0.01)  # gives up waiting; the lookup goes on
        assert [t.get_name() for t in h._tasks] == ["reported:completion"]
        # concurrent first requests share the one lookup
        await asyncio.gather(*(h.learn_reported("completion", wait=0.01) for _ in range(3)))
        assert len(h._tasks) == 1
        release.set()
        await asyncio.gather(*h._tasks)
        assert h._reported["completion"] == "late"
    finally:
        await h.close()


async def test_a_request_cancelled_as_the_lookup_ends_stays_cancelled(openai: OpenAIUpstream) -> None:
    """A superseded request is cancelled while it waits for the lookup; the lookup ends in the same
    turn. The request must stop (Python 3.11's ``wait_for`` would return the lookup's result and
    lose the cancel: the superseded request ran on, and later identical ones were answered "done")."""
    h = engine(_config("openai", openai))
    gate = asyncio.Event()

    async def lookup(key: str) -> str | None:
        await gate.wait()
        h._reported[key] = None
        return None

    h.reported_model = lookup  # type: ignore[method-assign]
    try:
        waiter = asyncio.ensure_future(h.learn_reported("completion", wait=30.0))
        await asyncio.sleep(0)  # the request starts the lookup and waits for it
        [task] = h._tasks
        gate.set()
        # turn by turn, to cancel in the very turn the lookup ends (an Event would come a turn late)
        while not task.done():  # noqa: ASYNC110
            await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
    finally:
        await h.close()
