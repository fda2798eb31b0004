"""The engine without a server: routing, style choice, ``prepare`` and its overrides, single-line
decided once, and the handler's ``Runnable`` methods, with LangChain's fake models."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.completion import (
    CompletionError,
    DefaultInlineCompletionHandler,
    EngineSettings,
    Overrides,
    make_default_engine,
    make_engine,
)
from jupyter_codecomplete.completion.default import is_single_line
from jupyter_codecomplete.prompting import StyleRegistry
from jupyter_codecomplete.protocol import InlineCompletionRequest

FAKE_LLM = "langchain_core.language_models.fake.FakeStreamingListLLM"
FAKE_CHAT = "langchain_core.language_models.fake_chat_models.FakeListChatModel"


def fake(responses: list[str], cls: str = FAKE_LLM, **fields: Any) -> ModelConfig:
    options: dict[str, Any] = {"class": cls, "kwargs": {"responses": responses}}
    if "style_hint" in fields:
        options["style_hint"] = fields.pop("style_hint")
    return ModelConfig.model_validate({"backend": "langchain", "model": "fake", "options": options, **fields})


def engine(**models: ModelConfig) -> DefaultInlineCompletionHandler:
    return make_default_engine(
        EngineSettings(
            models=dict(models), routes={"markdown": "chat", "text/x-sql": "sql"}, recent_completions=0
        )
    )


def req(prefix: str, suffix: str = "", language: str | None = "python", **kw: Any) -> InlineCompletionRequest:
    return InlineCompletionRequest(number=1, prefix=prefix, suffix=suffix, language=language, **kw)


@pytest.fixture
def handler() -> Iterator[DefaultInlineCompletionHandler]:
    h = engine(
        completion=fake(["py as np\n"], style="raw"),
        chat=fake(["Hello"], cls=FAKE_CHAT),
        sql=fake(["* FROM t"], style="raw"),
    )
    yield h
    asyncio.run(h.close())


# -- single-line, decided once --------------------------------------------------------------------
# (prefix, suffix, language) → single-line?
CURSORS = [
    ("x = compute(a, b)", "", "python", True),  # the end of an ordinary line
    ("x = compute(a, b)", "\ny = 2\n", "python", True),
    ("    return a +", "", "python", True),
    ("x = comp", "ute(a, b)", "python", True),  # inside a line
    ("print(", "x)", "python", True),
    ("foo(", ")", "python", False),  # an open bracket: the call's arguments may span lines
    ("def f(x):", "", "python", False),  # a block opener
    ("def f(x):\n    ", "", "python", False),  # an empty line in a block
    ("", "", "python", False),  # an empty document
    ('s = """', '"""', "python", False),  # a string that spans lines
    ("function f() {", "}", "javascript", False),
    ("const x = compute(a, b);", "", "javascript", True),
    ("Some prose here", "", "markdown", True),
]


@pytest.mark.parametrize("prefix,suffix,language,single", CURSORS)
def test_single_line_by_cursor(prefix: str, suffix: str, language: str, single: bool) -> None:
    assert is_single_line(prefix, suffix, language) is single


@pytest.mark.parametrize("prefix,suffix,language,single", CURSORS)
def test_prepare_budgets_as_the_cursor_says(prefix: str, suffix: str, language: str, single: bool) -> None:
    cfg = fake(
        ["x"], style="raw", max_tokens=200, max_tokens_single_line=24, timeout=9, timeout_single_line=2
    )
    h = engine(completion=cfg)
    h._warm.add("completion")  # a warm model: the first-request timeout does not apply
    prepared = h.prepare(req(prefix, suffix, language))
    assert prepared.single_line is single
    assert prepared.max_tokens == (24 if single else 200)
    assert prepared.total_timeout == (2 if single else 9)
    # the pipeline gets the same decision: it reuses the analysis made in prepare
    assert prepared.cursor is not None and prepared.cursor.multiline is not single
    assert h.pipeline(prepared).filters  # built from prepared.cursor, no second analysis


# -- routing and style choice ---------------------------------------------------------------------
def test_routing(handler: DefaultInlineCompletionHandler) -> None:
    assert handler.route(req("x", language="markdown")) == "chat"
    assert handler.route(req("x", language="sql", mime="text/x-sql")) == "sql"
    assert handler.route(req("x", language="python")) == "completion"
    assert handler.route(None) == "completion"


@pytest.mark.parametrize(
    ("route_key", "language"),
    [
        ("ipython", "python"),
        ("python", "ipython"),
        ("objectivec", "objective-c"),
        ("objective-c", "objc"),
        ("Python3", "python"),
    ],
)
def test_a_route_serves_every_name_of_its_language(route_key: str, language: str) -> None:
    h = make_default_engine(
        EngineSettings(models={"completion": fake(["a"]), "other": fake(["b"])}, routes={route_key: "other"})
    )
    assert h.route(req("x", language=language)) == "other"
    assert h.route(req("x", language="julia")) == "completion"


def test_routing_without_a_completion_model_and_without_models() -> None:
    h = make_default_engine(EngineSettings(models={"other": fake(["a"])}, routes={"python": "missing"}))
    assert h.route(req("x")) == "other"  # a route to an unknown model is ignored
    with pytest.raises(CompletionError) as err:
        make_default_engine(EngineSettings()).route(req("x"))
    assert err.value.type == "no_model"


def test_style_choice() -> None:
    h = engine(
        configured=fake(["a"], style="codellama"),
        hinted=fake(["a"], style_hint="starcoder2"),
        chat=fake(["a"], cls=FAKE_CHAT),
        named=ModelConfig.model_validate(
            {
                "backend": "langchain",
                "model": "qwen2.5-coder-7b",
                "options": {"class": FAKE_LLM, "kwargs": {"responses": ["a"]}},
            }
        ),
    )
    assert h.style_for(h.backend("configured")).name == "codellama"  # the configuration first
    assert h.style_for(h.backend("hinted")).name == "starcoder2"  # then the backend's hint
    assert h.style_for(h.backend("chat")).name == "chat"  # a chat model
    assert h.style_for(h.backend("named")).name == "qwen2.5-coder"  # else by the model's name


# -- prepare and its overrides --------------------------------------------------------------------
def test_overrides_go_into_prepare(handler: DefaultInlineCompletionHandler) -> None:
    over = Overrides(model="sql", max_tokens=7, stop=("#END",), temperature=0.0, mode="completion")
    prepared = handler.prepare(req("SELECT ", "\nFROM t", language="python"), overrides=over)
    assert prepared.key == "sql"
    assert prepared.max_tokens == 7
    assert prepared.stop[-1] == "#END" and "#END" in prepared.postprocess.stop
    assert prepared.bind["temperature"] == 0.0
    assert prepared.built.mode == "completion"


def test_max_tokens_override_sizes_the_prompt() -> None:
    h = engine(completion=fake(["a"], style="raw", context_window=512))
    prefix = "".join(f"value_{i} = compute({i}, {i + 1})\n" for i in range(400))
    prepared = h.prepare(req(prefix), overrides=Overrides(max_tokens=400))
    assert prepared.max_tokens == 400
    assert prepared.built.prompt_tokens + prepared.max_tokens <= 512


def test_unknown_model_override(handler: DefaultInlineCompletionHandler) -> None:
    with pytest.raises(CompletionError) as err:
        handler.prepare(req("x"), overrides=Overrides(model="nope"))
    assert err.value.type == "unknown_model"


def test_make_engine_passes_the_settings_to_any_handler_class() -> None:
    settings = EngineSettings(
        models={"completion": fake(["a"])},
        styles=StyleRegistry({}),
        repo_name="r",
        recent_completions=3,
        max_suggestion_chars=100,
        max_suggestion_lines=5,
    )
    h = make_engine(settings)
    assert isinstance(h, DefaultInlineCompletionHandler)
    assert h.engine_settings == settings
    assert (h.max_suggestion_chars, h.max_suggestion_lines, h.recent.size) == (100, 5, 3)


# -- the Runnable methods ----------------------------------------------------------------------------
class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: list[tuple[list[str], dict[str, Any]]] = []

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.starts.append((list(tags or []), dict(kwargs.get("invocation_params") or {})))


MULTI = "y = x + 1\n    z = y * 2\n    return z\n"


def multi_line_engine() -> DefaultInlineCompletionHandler:
    return engine(completion=fake([MULTI], style="raw"))


def test_invoke_stream_and_config() -> None:
    h = multi_line_engine()
    try:
        r = req("def f(x):\n    ")
        deltas = list(h.stream(r))
        assert len(deltas) > 1  # deltas as they come, not the whole text at the end
        assert "".join(deltas) == h.invoke(r) == MULTI.rstrip("\n")
        recorder = Recorder()
        h.invoke(r, {"callbacks": [recorder], "tags": ["mine"]})
        assert recorder.starts and "mine" in recorder.starts[0][0]  # the config reaches the model call
        assert h.with_config(tags=["bound"]).invoke(r) == MULTI.rstrip("\n")
    finally:
        asyncio.run(h.close())


async def test_invoke_inside_a_running_loop() -> None:
    h = multi_line_engine()
    try:
        r = req("def f(x):\n    ")
        assert h.invoke(r) == await h.ainvoke(r) == MULTI.rstrip("\n")
        assert [d async for d in h.astream(r)] == list(h.stream(r))
    finally:
        await h.close()


async def test_astream_keeps_the_bounds() -> None:
    h = make_default_engine(
        EngineSettings(models={"completion": fake([MULTI], style="raw")}, max_suggestion_lines=2)
    )
    try:
        assert await h.ainvoke(req("def f(x):\n    ")) == "y = x + 1\n    z = y * 2"
    finally:
        await h.close()
