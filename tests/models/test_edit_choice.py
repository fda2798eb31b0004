"""Choosing the model of edit predictions (``POST .../models/use`` with ``"role": "edit"``) through a
running server: the same checks, locks, store and key handling as the completion choice; the engine
swaps its edit model and the completion model stays; the listing says which entry serves edits and
the format it is asked in. Every test that takes ``watch`` ends with the leak check
(:class:`~models.leaks.LeakWatch`)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from models.leaks import ADMIN_KEY, STORE_KEY, LeakWatch
from traitlets.config import Config

from jupyter_codecomplete.backends.embedded import default_model_path
from jupyter_codecomplete.extension import CodeCompleteApp
from jupyter_codecomplete.postprocess import Edit, apply_edits
from jupyter_codecomplete.testing import OllamaUpstream, OpenAIUpstream, UpstreamConfig, open_socket, request

CELL = "def total(prices):\n    s = 0\n    for p in items:\n        s += p\n    return s / len(items)\n"
RENAMED = CELL.replace("in items", "in prices").replace("len(items)", "len(prices)")
SWEEP_MARK = "<|file_sep|>current/"  # the Sweep Next-Edit prompt (builtin_styles.py)


def edit_request(number: int) -> dict[str, Any]:
    return {
        "type": "edit_prediction",
        "number": number,
        "version": 1,
        "path": "analysis.ipynb",
        "language": "python",
        "text": CELL,
        "cursor": CELL.index("prices") + len("prices"),
        "region": {"start": 0, "end": len(CELL)},
        "recent_edits": [],
    }


@pytest.fixture
def model_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    """The administrator's completion model carries a key (the leak check looks for it)."""
    return upstream.model_config(api_key=ADMIN_KEY)


@pytest.fixture
def sweep() -> Iterator[OpenAIUpstream]:
    """A next-edit model server: answers the Sweep format's rewrite, and the switch's check."""
    rules = [{"contains": SWEEP_MARK, "completion": RENAMED + "<|file_sep|>"}]
    with OpenAIUpstream(UpstreamConfig(model="sweep-next-edit-1.5b", rules=rules, default="y = 2\n")) as up:
        yield up


def sweep_custom(sweep: OpenAIUpstream) -> dict[str, Any]:
    return {
        "backend": "openai",
        "base_url": sweep.base_url,
        "model": "sweep-next-edit-1.5b",
        "api_key": STORE_KEY,
    }


def store(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "store" / "user-model.json").read_text())  # type: ignore[no-any-return]


async def test_use_for_edits_swaps_the_edit_model_and_keeps_the_completion_model(
    watch: LeakWatch, jp_ws_fetch: Any, upstream: OpenAIUpstream, sweep: OpenAIUpstream, tmp_path: Path
) -> None:
    listing = (await watch.api("GET", "choices", detect="0"))[1]
    # nothing chosen: edits fall back to the completion model (the administrator's: no entry)
    assert listing["edit_active"] is None and listing["edit_serving"]["key"] == "completion"
    code, out = await watch.api(
        "POST", "use", body={"id": "custom", "custom": sweep_custom(sweep), "role": "edit"}
    )
    assert code == 200, out
    assert out["edit_active"] == "custom" and out["report"]["ok"]
    assert out["edit_serving"]["style"] == "sweep-next-edit" and out["edit_serving"]["native"] is True
    # the engine's edit model is the new one, the completion model is the one before
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert reply["model"]["style"] == "sweep-next-edit"
    assert apply_edits(CELL, [Edit(e["start"], e["end"], e["text"]) for e in reply["edits"]]) == RENAMED
    sent = sweep.last()
    assert SWEEP_MARK in sent.body["prompt"] and sent.headers.get("authorization") == f"Bearer {STORE_KEY}"
    await socket.send(request(2, "def add(a, b):"))
    done = await socket.until_done(2)
    assert done[-1]["model"]["name"] == "test-coder"
    # the listing: which entry serves edits, in which format; completions unchanged
    listing = (await watch.api("GET", "choices", detect="0"))[1]
    rows = {e["id"]: e for e in listing["entries"]}
    assert listing["edit_active"] == "custom" and listing["edit_saved"] == "custom"
    assert rows["custom"]["edit_active"] and not rows["custom"]["active"]
    assert rows["custom"]["edit_style"] == "sweep-next-edit" and rows["custom"]["edit_native"]
    assert listing["active"] is None and listing["serving"]["name"] == "test-coder"
    assert listing["edit_serving"]["style"] == "sweep-next-edit"
    # saved beside the completion choice, for the user only
    path = tmp_path / "store" / "user-model.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    data = store(tmp_path)
    assert data["edit_choice"]["id"] == "custom" and "choice" not in data
    watch.check()


async def test_a_fim_model_for_edits_is_accepted_and_asked_in_the_generic_format(
    watch: LeakWatch, ollama: OllamaUpstream, tmp_path: Path
) -> None:
    listing = (await watch.api("GET", "choices"))[1]
    qwen = next(e for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
    assert qwen["edit_style"] == "edit-chat" and qwen["edit_native"] is False
    code, out = await watch.api("POST", "use", body={"id": qwen["id"], "role": "edit"})
    assert code == 200, out
    assert out["edit_serving"]["style"] == "edit-chat" and out["edit_serving"]["native"] is False
    listing = (await watch.api("GET", "choices"))[1]
    assert listing["edit_active"] == qwen["id"] and listing["active"] is None
    assert store(tmp_path)["edit_choice"]["id"] == qwen["id"]
    watch.check()


async def test_a_bad_role_is_refused_and_nothing_changes(watch: LeakWatch, tmp_path: Path) -> None:
    for role in ("chat", 3, None, {"x": 1}):
        code, out = await watch.api("POST", "use", body={"id": "configured:completion", "role": role})
        assert code == 400 and out["error"]["type"] == "bad_request", out
        assert "role" in out["error"]["message"]
    code, out = await watch.api("POST", "use", body={"id": "no-such-model", "role": "edit"})
    assert code == 404 and out["error"]["type"] == "unknown_model"
    path = tmp_path / "store" / "user-model.json"
    assert not path.exists() or "edit_choice" not in store(tmp_path)
    watch.check()


@pytest.fixture
def service_config(service_config: dict[str, Any], request: pytest.FixtureRequest) -> dict[str, Any]:
    return {**service_config, **getattr(request, "param", {})}


@pytest.mark.parametrize(
    "service_config",
    [{"allow_user_choice": False}, {"allowed_backends": ["embedded"]}, {"allowed_hosts": ["example.org"]}],
    indirect=True,
)
async def test_the_administrators_locks_hold_for_edits(
    watch: LeakWatch, sweep: OpenAIUpstream, tmp_path: Path
) -> None:
    code, out = await watch.api(
        "POST", "use", body={"id": "custom", "custom": sweep_custom(sweep), "role": "edit"}
    )
    assert code == 403 and out["error"]["type"] == "locked", out
    assert not sweep.records  # refused before the model was contacted
    listing = (await watch.api("GET", "choices", detect="0"))[1]
    assert listing["edit_active"] is None and listing["edit_serving"]["key"] == "completion"
    watch.check()


async def test_the_edit_choice_applies_at_the_next_start(
    watch: LeakWatch, sweep: OpenAIUpstream, service_config: dict[str, Any]
) -> None:
    code, out = await watch.api(
        "POST", "use", body={"id": "custom", "custom": sweep_custom(sweep), "role": "edit"}
    )
    assert code == 200, out
    app = CodeCompleteApp(config=Config({"ModelService": service_config}))  # a fresh start, same store
    configs = app.model_configs()
    assert configs["edit"].base_url == sweep.base_url and configs["edit"].model == "sweep-next-edit-1.5b"
    assert configs["completion"].base_url != sweep.base_url
    # locked meanwhile: not used, and the listing says why
    locked = CodeCompleteApp(config=Config({"ModelService": {**service_config, "allow_user_choice": False}}))
    assert "edit" not in locked.model_configs()
    warnings = (await locked.model_service.list_entries(detect=False))["warnings"]
    assert any("choice for edits" in w for w in warnings)
    watch.check()


@pytest.fixture
def gguf_copy(models_dir: Path) -> Path:
    """A GGUF file on this computer (the demo model under another name)."""
    models_dir.mkdir(parents=True, exist_ok=True)
    copy = models_dir / "my-model.gguf"
    shutil.copyfile(default_model_path(), copy)
    return copy


async def test_a_gguf_file_for_edits_is_asked_in_the_format_the_list_said(
    watch: LeakWatch, jp_ws_fetch: Any, gguf_copy: Path
) -> None:
    copy = gguf_copy
    listing = (await watch.api("GET", "choices", detect="0"))[1]
    row = next(e for e in listing["entries"] if e["id"] == f"file:{copy}")
    assert row["edit_style"] and row["edit_native"] is False  # the demo has no next-edit format
    code, out = await watch.api("POST", "use", body={"id": row["id"], "role": "edit"})
    assert code == 200, out
    assert out["edit_serving"]["style"] == row["edit_style"] and out["edit_serving"]["backend"] == "embedded"
    socket = await open_socket(jp_ws_fetch)
    await socket.send(edit_request(1))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None, reply
    assert reply["model"]["backend"] == "embedded" and reply["model"]["style"] == row["edit_style"]
    listing = (await watch.api("GET", "choices", detect="0"))[1]
    assert listing["edit_active"] == row["id"]
    watch.check()
