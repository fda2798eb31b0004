"""The ``langchain`` backend: any LangChain class by import path, here langchain-openai over real HTTP."""

from __future__ import annotations

import pytest
from backends.helpers import collect
from langchain_core.messages import HumanMessage

from jupyter_codecomplete.backends import BackendError, ModelConfig, make_backend
from jupyter_codecomplete.testing import OpenAIUpstream


def test_llm_class_by_import_path(openai_up: OpenAIUpstream) -> None:
    cfg = ModelConfig(
        backend="langchain",
        model="test-coder",
        options={
            "class": "langchain_openai.OpenAI",
            "kwargs": {"base_url": openai_up.base_url, "model": "test-coder", "max_retries": 0},
        },
        api_key="sk-lc-secret-1111",
    )
    b = make_backend(cfg)
    assert b.kind == "langchain" and b.chat is False and b.native_suffix is False
    assert b.llm.invoke("def add(a, b):") == "\n    return a + b\n"
    assert openai_up.last().headers["authorization"] == "Bearer sk-lc-secret-1111"


async def test_chat_class_with_colon_path_streams(openai_up: OpenAIUpstream) -> None:
    cfg = ModelConfig(
        backend="langchain",
        options={
            "class": "langchain_openai:ChatOpenAI",
            "kwargs": {
                "base_url": openai_up.base_url,
                "model": "test-coder",
                "api_key": "x",
                "streaming": True,
            },
            "style_hint": "chat",
        },
    )
    b = make_backend(cfg)
    assert b.chat is True and b.style_hint == "chat"
    assert await collect(b, [HumanMessage("def add(a, b):")]) == "\n    return a + b\n"
    assert openai_up.last().body["stream"] is True


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({}, "needs options.class"),
        ({"class": "no_such_module_xyz.Model"}, "Cannot import"),
        ({"class": "json.JSONDecoder"}, "not a LangChain"),
        (
            {"class": "langchain_openai.OpenAI", "kwargs": {"no_such_argument": 1, "temperature": "hot"}},
            "Cannot create",
        ),
    ],
)
def test_bad_class_is_a_config_error(options: dict[str, object], needle: str) -> None:
    with pytest.raises(BackendError) as e:
        make_backend(ModelConfig(backend="langchain", options=options))
    assert e.value.type == "bad_config" and needle in str(e.value)
