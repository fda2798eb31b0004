"""Requests made ahead of the user (warm-ups, prefetches) and a shared model service: none by
default, a cap per minute when the administrator sets one; and the system-wide configuration an
administrator writes under the system Jupyter config path. Through a running server and the
scripted upstream."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.completion.ahead import AheadBudget
from jupyter_codecomplete.config import CodeCompleteConfig
from jupyter_codecomplete.testing import CompletionSocket, OpenAIUpstream, open_socket, request


def warm(number: int, prefix: str) -> dict[str, Any]:
    return {**request(number, prefix), "type": "warm"}


async def reply_to(socket: CompletionSocket, number: int, kind: str) -> dict[str, Any]:
    while True:
        msg = await socket.recv(timeout=10)
        if msg.get("reply_to") == number and msg["type"] == kind:
            return msg


def completions(upstream: OpenAIUpstream) -> list[Any]:
    return [r for r in upstream.records if r.path.endswith("/completions")]


@pytest.fixture
def per_minute() -> int:
    return 0


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream, per_minute: int) -> dict[str, Any]:
    # on loopback here, but the administrator says what it is: the team's shared service
    config: dict[str, Any] = {"completion_model": upstream.model_config(shared=True)}
    if per_minute:
        config["shared_ahead_per_minute"] = per_minute
    return config


async def test_a_shared_model_gets_nothing_ahead_by_default(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    assert socket.hello is not None and socket.hello["warm"] is False  # the browser is told
    await socket.send(warm(1, "def add(a, b):"))
    assert (await reply_to(socket, 1, "warm"))["reason"] == "off"
    # a prefetch the browser sends anyway is answered empty, at once
    await socket.send(request(2, "def add(a, b):", prefetch=True))
    [reply] = await socket.until_done(2)
    assert reply["error"] is None and reply["list"]["items"] in (
        [],
        [{"insertText": "", "isIncomplete": False, "token": None}],
    )
    assert completions(upstream) == []
    # what the user asks for is served as ever
    [reply] = await socket.complete(3, "def add(a, b):")
    assert reply["error"] is None and len(completions(upstream)) == 1


@pytest.mark.parametrize("per_minute", [2])
async def test_the_administrators_cap_per_minute(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    assert socket.hello is not None and socket.hello["warm"] is True
    answers = []
    for n in (1, 2, 3):
        await socket.send(warm(n, f"def add{n}(a, b):"))
        answers.append(await reply_to(socket, n, "warm"))
    assert [a["warmed"] for a in answers] == [True, True, False]
    assert answers[2]["reason"] == "capped"
    await socket.send(request(4, "def add(a, b):", prefetch=True))
    await socket.until_done(4)
    await asyncio.sleep(0.05)
    assert len(completions(upstream)) == 2  # two warm-ups reached the shared model, nothing more
    assert all(r.body["max_tokens"] == 1 for r in completions(upstream))


def test_the_budget_is_per_minute_and_per_model() -> None:
    now = [0.0]
    budget = AheadBudget(2, clock=lambda: now[0])
    assert [budget.spend("a"), budget.spend("a"), budget.spend("a"), budget.spend("b")] == [
        True,
        True,
        False,
        True,
    ]
    now[0] = 60.0
    assert budget.spend("a")
    assert AheadBudget(-1).spend("a") and not AheadBudget(0).spend("a")


def test_system_wide_configuration_and_the_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What an administrator puts in the system Jupyter config path (``/etc/jupyter`` on Linux,
    here a folder named by JUPYTER_CONFIG_PATH) is what every single-user server reads."""
    system = tmp_path / "etc" / "jupyter"
    (system / "jupyter_server_config.d").mkdir(parents=True)
    (system / "jupyter_server_config.py").write_text(
        "c.CodeCompleteApp.completion_model = {'backend': 'openai', 'base_url': 'http://vllm.models.svc:8000/v1',"
        " 'model': 'Qwen/Qwen2.5-Coder-7B', 'api_key_env': 'LITELLM_API_KEY'}\n"
        "c.CodeCompleteApp.shared_ahead_per_minute = 4\n"
        "c.CodeCompleteApp.session_header = 'x-session-id'\n"
        "c.ModelService.allow_user_choice = False\n"
    )
    # a package's drop-in file (the wheel's etc/jupyter/jupyter_server_config.d) is read first
    (system / "jupyter_server_config.d" / "jupyter_codecomplete.json").write_text(
        '{"ServerApp": {"jpserver_extensions": {"jupyter_codecomplete": true}}}'
    )
    user = tmp_path / "home" / ".jupyter"
    user.mkdir(parents=True)
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(system))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(user))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "home" / "data"))
    monkeypatch.setenv("LITELLM_API_KEY", "sk-team-key-0123456789")
    config = CodeCompleteConfig.from_files()
    assert config.shared_ahead_per_minute == 4
    [model] = [m for k, m in config.model_configs().items() if k == "completion"]
    assert (
        model.base_url == "http://vllm.models.svc:8000/v1"
        and model.resolved_api_key() == "sk-team-key-0123456789"
    )
    engine = config.build_engine()
    from jupyter_codecomplete.completion import DefaultInlineCompletionHandler

    assert isinstance(engine, DefaultInlineCompletionHandler)
    assert engine.backend("completion").shared  # a one-label service name: a private network
    assert engine.warms(None) is True and engine.ahead.per_minute == 4
    # the lock of today holds: a user cannot choose another model
    assert config.model_service.allow_user_choice is False
    assert config.model_service.lock_reason(model) is not None
