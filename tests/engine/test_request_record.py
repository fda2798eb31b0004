"""One request, one record: the route, the prompt style, the request's language and the
native-suffix decision are each made once per streamed request (completion/facts.py), however
many stages read them (the websocket's first reply, the stream, the prompt, the model call, the
cleaning), against a real scripted llama.cpp server (a native-suffix endpoint)."""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import jupyter_codecomplete.completion.default as default_module
from jupyter_codecomplete import backends, languages
from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.completion import DefaultInlineCompletionHandler, EngineSettings
from jupyter_codecomplete.completion.engine import make_default_engine
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing.openai_upstream import UpstreamConfig
from jupyter_codecomplete.testing.providers import LlamaCppUpstream


@pytest.fixture
def upstream() -> Iterator[LlamaCppUpstream]:
    up = LlamaCppUpstream(UpstreamConfig(model="m"))
    up.set_rules([], default="x = 1\n")
    up.start()
    yield up
    up.stop()


class CountingNames(dict[str, Any]):
    """The language table's name index, counting the lookups of one name."""

    def __init__(self, data: dict[str, Any], name: str) -> None:
        super().__init__(data)
        self.name = name
        self.hits = 0

    def get(self, key: str, default: Any = None) -> Any:
        if key == self.name:
            self.hits += 1
        return super().get(key, default)


def request(number: int) -> InlineCompletionRequest:
    return InlineCompletionRequest(
        number=number,
        prefix="def f(a):\n    return ",
        suffix="\n\nprint(f(1))\n",
        language="python",
        path="t.py",
    )


async def test_each_fact_of_a_streamed_request_is_made_once(
    upstream: LlamaCppUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ModelConfig(backend="llamacpp", base_url=upstream.root_url, model="qwen2.5-coder-1.5b")
    h = make_default_engine(EngineSettings(models={"completion": model}, recent_completions=0))
    counts: collections.Counter[str] = collections.Counter()

    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    try:
        async for _ in h.handle_stream_request(request(0)):  # the first also asks what it serves
            pass
        monkeypatch.setattr(h, "_route", counted("route", h._route))
        monkeypatch.setattr(h, "style_for", counted("style", h.style_for))
        monkeypatch.setattr(default_module, "native_suffix", counted("native_suffix", backends.native_suffix))
        names = CountingNames(languages._BY_NAME, "python")
        monkeypatch.setattr(languages, "_BY_NAME", names)

        req = request(1)
        assert h.model_info(req) is not None  # the websocket's first reply names the model
        chunks = [c async for c in h.handle_stream_request(req)]
    finally:
        await h.close()
    last = chunks[-1]
    assert last.done and last.error is None and last.model is not None
    assert "input_suffix" in upstream.records[-1].body  # the suffix went natively (/infill)
    assert (counts["route"], counts["style"], counts["native_suffix"], names.hits) == (1, 1, 1, 1)


def test_a_request_keeps_its_record_and_another_gets_its_own(upstream: LlamaCppUpstream) -> None:
    model = ModelConfig(backend="llamacpp", base_url=upstream.root_url, model="m")
    h: DefaultInlineCompletionHandler = make_default_engine(EngineSettings(models={"completion": model}))
    one, two = request(1), request(2)
    assert h.facts(one) is h.facts(one)
    assert h.facts(two) is not h.facts(one)
    assert (h.facts(one).key, h.facts(one).language, h.facts(one).rules) == (
        "completion",
        "python",
        languages.lookup("python"),
    )


def test_the_repository_name_rule_is_one(upstream: LlamaCppUpstream) -> None:
    """The websocket's prompt request and REST's (built through the same method) name the
    repository the same way: only with other files, the configured name first."""
    model = ModelConfig(backend="llamacpp", base_url=upstream.root_url, model="m")
    h = make_default_engine(EngineSettings(models={"completion": model}, repo_name="proj"))
    req = request(1)
    assert h.prompt_request(req).repo_name is None
    assert h.prompt_request(req, files={"a.py": "A = 1\n"}).repo_name == "proj"
    assert h.prompt_request(req, files={"a.py": "A = 1\n"}, repo_name="given").repo_name == "given"
