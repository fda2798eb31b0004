"""Where a model runs is a fact its backend states (``Backend.locality``), and warm-ups, prefetches
and redaction follow it for the model that serves each request's route (issue 34)."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_codecomplete.backends import ModelConfig, builtin_kinds, make_backend, url_locality
from jupyter_codecomplete.completion import DefaultInlineCompletionHandler, EngineSettings, make_engine
from jupyter_codecomplete.privacy import CHANNELS
from jupyter_codecomplete.testing import OpenAIUpstream, open_socket, request

FAKE_PAID = {"class": "langchain_core.language_models.fake.FakeListLLM", "kwargs": {"responses": ["PAID"]}}


@pytest.mark.parametrize(
    ("config", "locality"),
    [
        ({"backend": "openai", "model": "gpt-4o-mini"}, "remote"),  # OpenAI's own API
        ({"backend": "openai-chat", "model": "gpt-4o"}, "remote"),
        ({"backend": "mistral", "model": "codestral-latest"}, "remote"),
        ({"backend": "ollama", "model": "qwen2.5-coder:1.5b"}, "machine"),  # its default port
        ({"backend": "llamacpp"}, "machine"),
        ({"backend": "openai", "base_url": "http://127.0.0.1:8080/v1"}, "machine"),
        ({"backend": "openai", "base_url": "http://localhost:8000/v1"}, "machine"),
        ({"backend": "openai", "base_url": "http://[::1]:8000/v1"}, "machine"),
        ({"backend": "openai-chat", "base_url": "http://10.1.2.3:8000/v1"}, "network"),
        ({"backend": "openai", "base_url": "http://vllm:8000/v1"}, "network"),  # a compose service
        ({"backend": "openai", "base_url": "https://llm.corp.internal/v1"}, "network"),
        ({"backend": "openai", "base_url": "https://api.together.xyz/v1"}, "remote"),
        ({"backend": "langchain", "options": FAKE_PAID}, "remote"),  # no URL: taken for a paid API
        ({"backend": "langchain", "options": {**FAKE_PAID, "local": True}}, "machine"),
        ({"backend": "langchain", "base_url": "http://127.0.0.1:9/v1", "options": FAKE_PAID}, "machine"),
        (
            {
                "backend": "langchain",
                "options": {**FAKE_PAID, "kwargs": {**FAKE_PAID["kwargs"], "base_url": "http://127.0.0.1:1"}},
            },
            "machine",  # the class's own base_url
        ),
    ],
    ids=lambda v: str(v) if isinstance(v, str) else v.get("base_url") or v["backend"],
)
def test_each_kind_states_where_its_model_runs(config: dict[str, Any], locality: str) -> None:
    backend = make_backend(ModelConfig.model_validate(config))
    assert backend.locality == locality
    # warm-ups and prefetch follow it (warm_up "auto"): never for a remote model, and for a
    # shared one (a private network's service) only within the administrator's cap (none by default)
    engine = make_engine(EngineSettings(models={"completion": backend.config}))
    assert isinstance(engine, DefaultInlineCompletionHandler)
    assert engine.warms(None) is (locality in ("process", "machine"))
    assert backend.shared is (locality in ("network", "remote"))
    capped = make_engine(EngineSettings(models={"completion": backend.config}, shared_ahead_per_minute=5))
    assert isinstance(capped, DefaultInlineCompletionHandler)
    assert capped.warms(None) is (locality != "remote")
    assert backend.local is (locality in ("process", "machine"))


def test_every_built_in_kind_is_covered() -> None:
    kinds = set(builtin_kinds())
    assert {"openai", "openai-chat", "ollama", "llamacpp", "mistral", "langchain", "embedded"} <= kinds


def test_the_embedded_model_runs_in_this_process() -> None:
    try:
        backend = make_backend(ModelConfig(backend="embedded"))
    except Exception as exc:  # no in-process runtime installed
        pytest.skip(f"embedded backend unavailable: {exc}")
    assert backend.locality == "process" and backend.local


@pytest.mark.parametrize(
    ("url", "where"),
    [(None, "remote"), ("", "remote"), ("not a url", "remote"), ("http://192.168.1.20:11434", "network"),
     ("http://169.254.1.1", "network"), ("http://8.8.8.8", "remote"), ("http://box.local:8080", "network")],
)  # fmt: skip
def test_url_locality(url: str | None, where: str) -> None:
    assert url_locality(url) == where


def test_redaction_may_be_turned_off_only_for_a_model_on_this_machine() -> None:
    engine = make_engine(
        EngineSettings(
            models={
                "completion": ModelConfig(
                    base_url="http://127.0.0.1:9/v1", redact=False, context={"outputs": False}
                ),
                "remote": ModelConfig(model="gpt-4o-mini", redact=False),
            },
            forbid_context=("kernel",),
        )
    )
    assert isinstance(engine, DefaultInlineCompletionHandler)
    local = engine.policy(engine.backend("completion"))
    remote = engine.policy(engine.backend("remote"))
    assert local.redact is False and remote.redact is True
    assert local.channels == frozenset(CHANNELS) - {"outputs", "kernel"}
    assert remote.channels == frozenset(CHANNELS) - {"kernel"}  # the administrator forbids it for all
    assert "held back: outputs, kernel" in local.describe()


class TestAPaidRoute:
    """The docs' own example: Markdown goes to a chat model on a paid API."""

    @pytest.fixture
    def codecomplete_config(self, upstream: OpenAIUpstream) -> dict[str, Any]:
        return {
            "completion_model": upstream.model_config(),
            "models": {"paid": {"backend": "langchain", "options": FAKE_PAID}},
            "routes": {"markdown": "paid"},
        }

    async def test_the_hello_says_which_routes_are_warmed(self, jp_ws_fetch: Any) -> None:
        socket = await open_socket(jp_ws_fetch, protocol=3)
        assert socket.hello is not None
        assert socket.hello["warm"] is True and socket.hello["warm_routes"] == {"markdown": False}
        assert "prefetch" in socket.hello["features"]

    async def test_no_warm_up_and_no_prefetch_reach_the_paid_model(
        self, jp_ws_fetch: Any, upstream: OpenAIUpstream
    ) -> None:
        socket = await open_socket(jp_ws_fetch, protocol=3)
        await socket.send({**request(1, "# Notes\n", language="markdown"), "type": "warm"})
        while (msg := await socket.recv(timeout=10))["type"] != "warm":
            pass
        assert msg["warmed"] is False and msg["reason"] == "off"
        [reply] = await socket.complete(2, "# Notes\n", language="markdown", prefetch=True)
        assert reply["error"] is None and reply["list"]["items"] == []
        assert any("prefetch not sent" in n for n in reply["notes"])
        # asked by the user, the same route is served by the paid model
        [reply] = await socket.complete(3, "# Notes\n", language="markdown")
        assert reply["list"]["items"][0]["insertText"] == "PAID"
        # and the local default model is prefetched for as before
        [reply] = await socket.complete(4, "import num", prefetch=True)
        assert reply["list"]["items"][0]["insertText"] == "py as np"
        assert len(upstream.records) == 1
