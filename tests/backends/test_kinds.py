"""A backend kind is named in one place, its class: the entry point names the class, and what the
rest of the package knows of a kind (its default quirks, its provider key, the local servers
discovery probes, the scripted fake that serves it in tests) is read from the class attributes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, ClassVar

import httpx
import pytest

from jupyter_codecomplete.backends import (
    ENTRY_POINT_GROUP,
    Backend,
    LocalServer,
    ModelConfig,
    ProviderKey,
    builtin_kinds,
    make_backend,
    register_backend,
)
from jupyter_codecomplete.backends import kinds as registry
from jupyter_codecomplete.backends.discovery import Candidate, default_servers, probe_local_servers
from jupyter_codecomplete.backends.quirks import resolve_quirks
from jupyter_codecomplete.testing.providers import OllamaUpstream, upstream_for


def test_every_built_in_entry_point_names_a_backend_class_of_that_kind() -> None:
    eps = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    expected = {"openai", "openai-chat", "ollama", "llamacpp", "mistral", "langchain", "embedded"}
    assert set(builtin_kinds()) == expected
    for kind in builtin_kinds():
        cls = eps[kind].load()
        assert isinstance(cls, type) and issubclass(cls, Backend), kind
        assert cls.kind == kind


@dataclass
class NewKindBackend(Backend):
    """A made-up kind declaring every fact a kind can declare (its model is a real LangChain LLM)."""

    kind: ClassVar[str] = "newkind"
    quirk_defaults: ClassVar[dict[str, Any]] = {"leading_space": True}
    provider_key: ClassVar[ProviderKey | None] = ProviderKey("NEWKIND_API_KEY", ("api.newkind.test",))
    local_servers: ClassVar[tuple[LocalServer, ...]] = (LocalServer("newkind-server", 1, 9),)
    wire: ClassVar[str | None] = "ollama"

    @classmethod
    def create(cls, config: ModelConfig) -> NewKindBackend:
        from langchain_core.language_models.fake import FakeListLLM

        return cls(config=config, llm=FakeListLLM(responses=["x"]))

    @classmethod
    async def probe(cls, server: str, client: httpx.AsyncClient, root: str, order: int) -> list[Candidate]:
        return [Candidate(ModelConfig(backend=cls.kind, base_url=root, model="found"), True, True, order)]


@pytest.fixture
def newkind() -> Iterator[type[NewKindBackend]]:
    register_backend("newkind")(NewKindBackend)
    yield NewKindBackend
    registry._LOADED.pop("newkind", None)


async def test_a_new_kind_is_known_everywhere_from_its_class_alone(
    newkind: type[NewKindBackend], monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = make_backend(ModelConfig(backend="newkind"))
    assert isinstance(backend, NewKindBackend) and backend.kind == "newkind"
    assert resolve_quirks("newkind", None).leading_space is True  # its default quirks
    monkeypatch.setenv("NEWKIND_API_KEY", "nk-secret")
    assert ModelConfig(backend="newkind").resolved_api_key() == "nk-secret"  # its provider key...
    assert ModelConfig(backend="newkind", base_url="http://elsewhere.test/v1").resolved_api_key() is None
    assert ("newkind-server", 1) in default_servers()  # the local server discovery looks for
    report: list[str] = []
    found = await probe_local_servers([("newkind-server", 1)], timeout=0.5, report=report)
    assert [c.config.model for c in found] == ["found"] and "newkind-server" in report[0]
    assert isinstance(upstream_for("newkind"), OllamaUpstream)  # the fake that speaks its wire
    # and every kind answers the three questions of the seam
    assert (await backend.describe()).model is None and await backend.list_models() == []
    await backend.aclose()


def test_an_unknown_kind_has_no_facts_and_a_clear_error() -> None:
    assert resolve_quirks("no-such-kind", None) == resolve_quirks("openai", None)
    assert ModelConfig(backend="no-such-kind").resolved_api_key() is None
    with pytest.raises(Exception, match="Unknown backend 'no-such-kind'"):
        make_backend(ModelConfig(backend="no-such-kind"))
