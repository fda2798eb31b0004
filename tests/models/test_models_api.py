"""Choosing, fetching and switching models through a running server: real REST, a fake hub served over
HTTP (range requests, LFS checksums), a scripted Ollama, the scripted OpenAI upstream, real files."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.models_service.download import is_gguf
from jupyter_codecomplete.testing import (
    FakeHub,
    OllamaUpstream,
    OpenAIUpstream,
    demo_entry,
    free_port,
    open_socket,
    request,
)

SECRET = "sk-test-Zq9vK2mXw7LpR4tN8yHcQe"


async def api(jp_fetch: Any, method: str, *path: str, body: Any = None, **params: str) -> tuple[int, Any]:
    kwargs: dict[str, Any] = {"method": method, "raise_error": False}
    if body is not None:
        kwargs["body"] = body if isinstance(body, str) else json.dumps(body)
    if params:
        kwargs["params"] = params
    r = await jp_fetch("api", "codecomplete", "models", *path, **kwargs)
    text = r.body.decode("utf-8") if r.body else ""
    try:
        return r.code, json.loads(text) if text else None
    except json.JSONDecodeError:
        return r.code, text


async def choices(jp_fetch: Any, detect: bool = True) -> dict[str, Any]:
    code, out = await api(jp_fetch, "GET", "choices", detect="1" if detect else "0")
    assert code == 200, out
    return out  # type: ignore[no-any-return]


def by_id(listing: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in listing["entries"]}


async def pull(jp_fetch: Any, entry_id: str) -> tuple[int, Any]:
    code, out = await api(jp_fetch, "POST", "downloads", body={"id": entry_id})
    if code != 202:
        return code, out
    # follow the server-sent progress to its end
    r = await jp_fetch(
        "api", "codecomplete", "models", "downloads", entry_id, params={"stream": "1"}, request_timeout=120
    )
    events = [json.loads(line[6:]) for line in r.body.decode().splitlines() if line.startswith("data: ")]
    return 200, events


# -- sources -------------------------------------------------------------------------------------------


async def test_every_source_is_listed(jp_fetch: Any, ollama: OllamaUpstream, models_dir: Path) -> None:
    own = put_file(models_dir, "my-coder.gguf", Path(_demo_path()).read_bytes)
    listing = await choices(jp_fetch)
    rows = by_id(listing)
    sources = {e["source"] for e in listing["entries"]}
    assert {"configured", "detected", "disk", "catalogue"} <= sources
    assert rows["configured:completion"]["model"] == "test-coder"
    detected = [e for e in listing["entries"] if e["source"] == "detected"]
    assert {e["model"] for e in detected} == {"qwen2.5-coder:1.5b", "llama3.1:8b"}
    qwen = next(e for e in detected if e["model"] == "qwen2.5-coder:1.5b")
    assert qwen["fim"] is True and qwen["backend"] == "ollama" and qwen["style"] == "qwen2.5-coder"
    assert rows["demo"]["source"] == "disk" and rows["demo"]["size_bytes"] > 0
    mine = rows[f"file:{own}"]
    assert mine["backend"] == "embedded" and mine["style"] and mine["fim"] is True  # from its FIM tokens
    cat = rows["qwen2.5-coder-1.5b"]
    assert cat["status"] == "not downloaded" and cat["fim"] is True and cat["license"] == "apache-2.0"
    assert cat["repo"] == "ggml-org/Qwen2.5-Coder-1.5B-Q8_0-GGUF"
    assert rows["test-demo"]["status"] == "not downloaded"
    assert listing["serving"]["name"] == "test-coder"
    assert listing["policy"]["allow_user_choice"] is True


async def test_catalogue_styles_exist_and_have_fim() -> None:
    from jupyter_codecomplete.models_service import load_catalogue
    from jupyter_codecomplete.prompting import StyleRegistry

    registry = StyleRegistry()
    catalogue = load_catalogue()
    assert set(catalogue) == {
        "qwen2.5-coder-0.5b",
        "qwen2.5-coder-1.5b",
        "qwen2.5-coder-3b",
        "qwen2.5-coder-7b",
        "starcoder2-3b",
        "starcoder2-7b",
        "codegemma-2b",
    }
    for entry in catalogue.values():
        style = registry.get(entry.style)
        assert style.fim is not None, entry.id
        assert registry.for_model(entry.file).name == entry.style, entry.id  # the file name picks it too
        assert entry.size_bytes > 0 and entry.memory_gb > 0 and entry.license and entry.verified


# -- bad input -----------------------------------------------------------------------------------------


async def test_unknown_ids_and_bad_bodies(jp_fetch: Any) -> None:
    code, out = await api(jp_fetch, "POST", "use", body={"id": "no-such-model"})
    assert (
        code == 404 and out["error"]["type"] == "unknown_model" and "no-such-model" in out["error"]["message"]
    )
    code, out = await api(jp_fetch, "POST", "downloads", body={"id": "no-such-model"})
    assert code == 404 and out["error"]["type"] == "unknown_model"
    code, out = await api(jp_fetch, "POST", "use", body="{not json")
    assert code == 400 and out["error"]["type"] == "bad_json"
    code, out = await api(jp_fetch, "POST", "use", body={})
    assert code == 400 and out["error"]["type"] == "bad_request"
    code, out = await api(jp_fetch, "POST", "use", body={"id": "qwen2.5-coder-1.5b"})
    assert code == 409 and out["error"]["type"] == "not_downloaded"
    code, out = await api(jp_fetch, "DELETE", "downloads", "test-demo")
    assert code == 404 and out["error"]["type"] == "not_found"
    # the server still works
    assert (await choices(jp_fetch, detect=False))["serving"]["name"] == "test-coder"


async def test_base_url_must_be_http(jp_fetch: Any) -> None:
    for url in ("file:///etc/passwd", "ftp://host/v1", "localhost:8000", "http://"):
        custom = {"backend": "openai", "base_url": url, "model": "m"}
        code, out = await api(jp_fetch, "PUT", "custom", body=custom)
        assert code == 400 and out["error"]["type"] == "bad_url", url
        code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
        assert code == 400 and out["error"]["type"] == "bad_url", url
    code, out = await api(jp_fetch, "PUT", "custom", body={"backend": "gopher", "base_url": "http://h/v1"})
    assert code == 400 and out["error"]["type"] == "bad_request"


async def test_the_custom_form_offers_the_kinds_that_say_so(jp_fetch: Any) -> None:
    """The Custom form's kinds are served by the server, from each kind's own declaration
    (``custom_form``), and the same list is what saving a custom endpoint accepts."""
    from jupyter_codecomplete.backends import backend_kinds, kind_attribute

    offered = (await choices(jp_fetch, detect=False))["custom_backends"]
    assert offered == [k for k in backend_kinds() if kind_attribute(k, "custom_form", False)]
    # the HTTP kinds with a URL, a model name and a key; not the in-process or LangChain ones
    assert {"openai", "openai-chat", "ollama", "llamacpp", "mistral"} <= set(offered)
    assert "embedded" not in offered and "langchain" not in offered
    code, out = await api(
        jp_fetch, "PUT", "custom", body={"backend": "embedded", "base_url": "http://h/v1", "model": "m"}
    )
    assert code == 400 and out["error"]["type"] == "bad_request" and "openai-chat" in out["error"]["message"]


async def test_unreachable_server_is_refused_and_nothing_changes(jp_fetch: Any) -> None:
    port = free_port()
    custom = {"backend": "openai", "base_url": f"http://127.0.0.1:{port}/v1", "model": "m"}
    code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
    assert code == 502 and out["error"]["type"] == "probe_failed"
    assert "reach" in out["error"]["message"].lower() or "connect" in out["error"]["message"].lower()
    listing = await choices(jp_fetch, detect=False)
    assert listing["serving"]["name"] == "test-coder" and listing["saved"] is None
    assert listing["active"] is None  # the administrator's model serves, nothing was chosen


async def test_a_file_that_is_not_gguf(jp_fetch: Any, models_dir: Path) -> None:
    bad = put_file(models_dir, "broken.gguf", lambda: b"<html>not a model</html>")
    code, out = await api(jp_fetch, "POST", "use", body={"id": f"file:{bad}"})
    assert code == 400 and out["error"]["type"] == "not_gguf"
    code, out = await api(jp_fetch, "POST", "use", body={"id": "file:/etc/hostname"})
    assert code == 404 and out["error"]["type"] == "unknown_model"


# -- switching -----------------------------------------------------------------------------------------


async def test_use_a_detected_ollama_model_switches_live(
    jp_fetch: Any, jp_ws_fetch: Any, ollama: OllamaUpstream, upstream: OpenAIUpstream, tmp_path: Path
) -> None:
    sock = await open_socket(jp_ws_fetch)
    await sock.send(request(1, "def add(a, b):"))
    first = await sock.until_done(1)
    assert first[-1]["model"]["name"] == "test-coder"
    listing = await choices(jp_fetch)
    qwen = next(e for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
    code, out = await api(jp_fetch, "POST", "use", body={"id": qwen["id"]})
    assert code == 200, out
    assert out["serving"]["name"] == "qwen2.5-coder:1.5b" and out["serving"]["backend"] == "ollama"
    report = out["report"]
    assert report["ok"] and report["style"] == "qwen2.5-coder" and report["fim_supported"]
    assert report["first_token_s"] is not None
    before = len(ollama.records)
    await sock.send(request(2, "def add(a, b):"))
    reply = await sock.until_done(2)
    assert "ollama" in reply[-1]["list"]["items"][0]["insertText"]
    assert reply[-1]["model"]["name"] == "qwen2.5-coder:1.5b"
    assert len(ollama.records) > before
    # saved for the next start, readable by the user only
    store = tmp_path / "store" / "user-model.json"
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
    assert json.loads(store.read_text())["choice"]["id"] == qwen["id"]
    assert (await choices(jp_fetch, detect=False))["active"] == qwen["id"]


async def test_switching_while_a_suggestion_streams(
    jp_fetch: Any, jp_ws_fetch: Any, ollama: OllamaUpstream, upstream: OpenAIUpstream
) -> None:
    sock = await open_socket(jp_ws_fetch)
    await sock.send(request(1, "SLOW", stream=True))
    msg = await sock.recv()
    while not (msg.get("type") == "stream" and msg["response"]["insertText"]):
        msg = await sock.recv()  # the old model has started to stream
    listing = await choices(jp_fetch)
    qwen = next(e for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
    code, out = await api(jp_fetch, "POST", "use", body={"id": qwen["id"]})
    assert code == 200, out
    rest = await sock.until_done(1)
    last = rest[-1]
    assert last["type"] == "stream" and last["done"] and last.get("error") is None
    assert last["response"]["insertText"].startswith("word0 word1")  # finished on the old model
    slow = [r for r in upstream.records if "SLOW" in json.dumps(r.body)]
    assert slow and slow[0].finished and not slow[0].client_closed
    await sock.send(request(2, "def add(a, b):"))
    reply = await sock.until_done(2)
    assert "ollama" in reply[-1]["list"]["items"][0]["insertText"]  # new requests: the new model


# -- the custom endpoint and its key -------------------------------------------------------------------


async def test_custom_endpoint_key_never_leaves_the_server(
    jp_fetch: Any, jp_serverapp: Any, upstream: OpenAIUpstream, tmp_path: Path
) -> None:
    records: list[str] = []

    class Grab(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    grab = Grab(level=logging.DEBUG)
    loggers = [logging.getLogger(), jp_serverapp.log, logging.getLogger("tornado.access")]
    for lg in loggers:
        lg.addHandler(grab)
    try:
        custom = {
            "backend": "openai",
            "base_url": upstream.base_url,
            "model": "team-coder",
            "api_key": SECRET,
        }
        bodies = []
        code, out = await api(jp_fetch, "PUT", "custom", body=custom)
        bodies.append(json.dumps(out))
        assert (
            code == 200
            and out["entry"]["api_key_set"]
            and out["entry"]["api_key_masked"].endswith(SECRET[-4:])
        )
        code, out = await api(jp_fetch, "POST", "test", body={"id": "custom"})
        bodies.append(json.dumps(out))
        assert code == 200 and out["report"]["ok"], out
        code, out = await api(jp_fetch, "POST", "use", body={"id": "custom"})
        bodies.append(json.dumps(out))
        assert code == 200 and out["serving"]["name"] == "team-coder"
        listing = await choices(jp_fetch)
        bodies.append(json.dumps(listing))
        for endpoint in ("models", "stats"):
            r = await jp_fetch("api", "codecomplete", endpoint, raise_error=False)
            bodies.append(r.body.decode())
        # the key went to the model server, as a bearer token
        assert any(rec.headers.get("authorization") == f"Bearer {SECRET}" for rec in upstream.records)
    finally:
        for lg in loggers:
            lg.removeHandler(grab)
    leaks = [b for b in bodies if SECRET in b or SECRET[-12:] in b]
    assert not leaks
    assert not any(SECRET in line for line in records)
    store = tmp_path / "store" / "user-model.json"
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
    assert json.loads(store.read_text())["custom"]["api_key"] == SECRET  # kept server-side only
    # a new base URL needs a new key: the stored one is never sent to another server
    code, out = await api(
        jp_fetch, "PUT", "custom", body={"backend": "openai", "base_url": "http://127.0.0.1:9/v1"}
    )
    assert code == 200 and not out["entry"]["api_key_set"]


# -- the administrator's locks -------------------------------------------------------------------------


class TestLocked:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        return {**service_config, "allow_user_choice": False}

    async def test_every_choice_is_refused(self, jp_fetch: Any, ollama: OllamaUpstream) -> None:
        listing = await choices(jp_fetch)
        assert listing["policy"]["allow_user_choice"] is False
        qwen = next(e for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
        assert qwen["locked"] and "administrator" in qwen["locked_reason"]
        for body in (
            {"id": qwen["id"]},
            {"id": "demo"},
            {"id": "custom", "custom": {"backend": "openai", "base_url": "http://127.0.0.1:1/v1"}},
        ):
            code, out = await api(jp_fetch, "POST", "use", body=body)
            assert code == 403 and out["error"]["type"] == "locked", body
        code, out = await api(jp_fetch, "POST", "downloads", body={"id": "test-demo"})
        assert code == 403 and out["error"]["type"] == "locked"
        assert (await choices(jp_fetch, detect=False))["serving"]["name"] == "test-coder"


class TestAllowList:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        return {**service_config, "allowed_hosts": ["models.example.internal"], "allowed_catalogue": ["x"]}

    async def test_hosts_and_catalogue_are_enforced(self, jp_fetch: Any, upstream: OpenAIUpstream) -> None:
        custom = {"backend": "openai", "base_url": upstream.base_url, "model": "m"}
        code, out = await api(jp_fetch, "POST", "use", body={"id": "custom", "custom": custom})
        assert code == 403 and out["error"]["type"] == "locked" and "127.0.0.1" in out["error"]["message"]
        code, out = await api(jp_fetch, "POST", "downloads", body={"id": "test-demo"})
        assert code == 403 and out["error"]["type"] == "locked"


# -- downloads -----------------------------------------------------------------------------------------


async def test_download_with_progress_then_switch_to_it(
    jp_fetch: Any, jp_ws_fetch: Any, hub: FakeHub, models_dir: Path
) -> None:
    hub.demo().bytes_per_s = 4_000_000  # about two seconds: several progress events
    code, events = await pull(jp_fetch, "test-demo")
    assert code == 200, events
    assert events[-1]["state"] == "done" and events[-1]["done"] == events[-1]["total"] == 8144384
    assert len(events) >= 2 and any(0 < (e["fraction"] or 0) < 1 for e in events)
    assert is_gguf(models_dir / "codecomplete-demo.Q8_0.gguf")
    assert by_id(await choices(jp_fetch, detect=False))["test-demo"]["status"] == "downloaded"
    code, out = await api(jp_fetch, "POST", "use", body={"id": "test-demo"})
    assert code == 200, out
    assert out["serving"]["backend"] == "embedded" and out["serving"]["style"] == "qwen2.5-coder"
    sock = await open_socket(jp_ws_fetch)
    await sock.send(request(1, "def fibonacci(n):\n    "))
    reply = await sock.until_done(1)
    assert reply[-1]["type"] == "inline_completion" and reply[-1]["model"]["backend"] == "embedded"


async def test_checksum_mismatch_removes_the_file(jp_fetch: Any, hub: FakeHub, models_dir: Path) -> None:
    hub.demo().corrupt = True
    _, events = await pull(jp_fetch, "test-demo")
    assert events[-1]["state"] == "failed" and events[-1]["error"]["type"] == "checksum_mismatch"
    assert not (models_dir / "codecomplete-demo.Q8_0.gguf").exists()
    assert not partials(models_dir)
    hub.demo().corrupt = False
    _, events = await pull(jp_fetch, "test-demo")
    assert events[-1]["state"] == "done"


class TestNotEnoughDisk:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        return {**service_config, "extra_catalogue": [demo_entry(size_bytes=10**18)]}

    async def test_nothing_is_transferred(self, jp_fetch: Any, hub: FakeHub) -> None:
        hub.demo().advertised_size = 10**18  # the hub agrees with the pinned size
        code, out = await api(jp_fetch, "POST", "downloads", body={"id": "test-demo"})
        assert code == 507 and out["error"]["type"] == "not_enough_disk" and "free" in out["error"]["message"]
        assert not any(r.method == "GET" for r in hub.records)  # nothing was transferred


async def test_two_pulls_at_once_and_cancel(jp_fetch: Any, hub: FakeHub, models_dir: Path) -> None:
    hub.demo().bytes_per_s = 1_000_000  # about 8 s
    code, out = await api(jp_fetch, "POST", "downloads", body={"id": "test-demo"})
    assert code == 202 and out["state"] == "running"
    code, out = await api(jp_fetch, "POST", "downloads", body={"id": "test-demo"})
    assert code == 409 and out["error"]["type"] == "already_downloading"
    code, out = await api(jp_fetch, "DELETE", "downloads", "test-demo")
    assert code == 200 and out["state"] == "cancelled"
    assert not (models_dir / "codecomplete-demo.Q8_0.gguf").exists()
    assert not partials(models_dir)


async def test_network_drop_is_resumed_and_network_gone_is_clear(
    jp_fetch: Any, hub: FakeHub, models_dir: Path
) -> None:
    # a drop the hub recovers from: resumed within the same pull, with a range request
    hub.demo().drop_after = 2_000_000
    _, events = await pull(jp_fetch, "test-demo")
    assert events[-1]["state"] == "done", events[-1]
    assert [r.range for r in hub.records if r.path.startswith("/_cdn/") and r.range] == ["bytes=2000000-"]
    assert (models_dir / "codecomplete-demo.Q8_0.gguf").read_bytes() == hub.demo().data
    (models_dir / "codecomplete-demo.Q8_0.gguf").unlink()
    # gone for good mid-download: a clear error, the partial file kept, the server keeps working
    hub.demo().drop_after = 3_000_000
    hub.demo().fail_after_drop = True
    _, events = await pull(jp_fetch, "test-demo")
    assert events[-1]["state"] == "failed" and events[-1]["error"]["type"] == "network"
    assert "pull it again to resume" in events[-1]["error"]["message"]
    assert [p.stat().st_size for p in partials(models_dir)] == [3_000_000]
    # back: pull again, from where it stopped
    hub.heal()
    _, events = await pull(jp_fetch, "test-demo")
    assert events[-1]["state"] == "done"
    assert hub.ranges()[-1] == "bytes=3000000-"
    assert (models_dir / "codecomplete-demo.Q8_0.gguf").stat().st_size == 8144384
    assert not partials(models_dir)


async def test_fake_hub_serves_ranges(hub: FakeHub) -> None:
    import httpx

    async with httpx.AsyncClient(follow_redirects=True) as client:
        url = f"{hub.endpoint}/codecomplete/codecomplete-demo-GGUF/resolve/main/codecomplete-demo.Q8_0.gguf"
        head = await client.head(url, follow_redirects=False)
        assert head.status_code == 302 and head.headers["x-linked-etag"].strip('"') == hub.demo().sha256
        r = await client.get(url, headers={"Range": "bytes=100-"})
        assert r.status_code == 206 and r.content == hub.demo().data[100:]
        assert r.headers["content-range"] == f"bytes 100-{len(hub.demo().data) - 1}/{len(hub.demo().data)}"


async def test_offline_says_where_to_put_a_file(
    jp_fetch: Any, monkeypatch: pytest.MonkeyPatch, models_dir: Path
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, out = await api(jp_fetch, "POST", "downloads", body={"id": "test-demo"})
    assert code == 503 and out["error"]["type"] == "offline"
    assert str(models_dir) in out["error"]["message"] and "GGUF" in out["error"]["message"]


def partials(folder: Path) -> list[Path]:
    return list(folder.rglob("*.incomplete"))


def put_file(folder: Path, name: str, content: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(content())
    return path


def _demo_path() -> str:
    from jupyter_codecomplete.backends.embedded import default_model_path

    return default_model_path()


class TestHubUnreachable:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        port = free_port()
        return {**service_config, "hub_endpoint": f"http://127.0.0.1:{port}"}

    async def test_a_clear_error_with_the_hand_placement_hint(self, jp_fetch: Any, models_dir: Path) -> None:
        code, out = await api(jp_fetch, "POST", "downloads", body={"id": "test-demo"})
        assert code == 502 and out["error"]["type"] == "hub_unreachable"
        assert str(models_dir) in out["error"]["message"]
        assert (await choices(jp_fetch, detect=False))["serving"]["name"] == "test-coder"
