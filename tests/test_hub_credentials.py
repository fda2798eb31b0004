"""Credentials from the hub: a per-user key the spawner puts in the single-user server's
environment (``api_key_env``) is sent to the model service by the server and never reaches the
browser, the replies or the log (docs/jupyterhub.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.testing import OpenAIUpstream, request

HUB_KEY = "sk-litellm-virtual-key-0f1e2d3c4b5a6978"


@pytest.fixture
def hub_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The spawner's environment: a per-user gateway key (c.Spawner.environment)."""
    monkeypatch.setenv("LITELLM_API_KEY", HUB_KEY)
    monkeypatch.setenv("JUPYTERHUB_USER", "hub-alice")
    return HUB_KEY


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream, tmp_path: Path, hub_key: str) -> dict[str, Any]:
    upstream.set_rules(
        [{"contains": "LEAK", "status": 401, "body": {"error": {"message": f"bad key {hub_key}"}}}],
        default="x = 1\n",
    )
    config = upstream.model_config(timeout=5.0, first_request_timeout=5.0, api_key_env="LITELLM_API_KEY")
    config.pop("api_key", None)
    return {"completion_model": config, "session_secret_path": str(tmp_path / "s")}


async def test_the_spawners_key_is_used_on_the_server_and_never_reaches_the_browser(
    jp_fetch: Any, jp_ws_fetch: Any, upstream: OpenAIUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    ws = await jp_ws_fetch("api", "codecomplete", "inline")
    seen: list[str] = [str(await ws.read_message())]  # the hello
    for n, prefix in enumerate(("x = ", "LEAK"), start=1):
        await ws.write_message(json.dumps(request(n, prefix, path="a.py")))
        while True:
            raw = str(await ws.read_message())
            seen.append(raw)
            msg = json.loads(raw)
            if msg.get("reply_to") == n and (msg.get("type") == "inline_completion" or msg.get("done")):
                break
    for route in (("models",), ("models", "choices")):
        r = await jp_fetch("api", "codecomplete", *route, raise_error=False)
        seen.append(r.body.decode())
    ws.close()
    sent = [r for r in upstream.records if r.path.endswith("/completions")]
    assert sent and all(r.headers["authorization"] == f"Bearer {HUB_KEY}" for r in sent)
    assert sent[0].headers["x-session-id"]  # the hub's user name made the key, hashed
    assert "hub-alice" not in json.dumps([r.headers for r in sent])
    everything = "\n".join(seen) + caplog.text
    assert HUB_KEY not in everything
    assert "bad key" in everything  # the error did reach the browser, scrubbed
