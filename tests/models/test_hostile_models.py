"""The model service against bad files, lying servers and echoed keys, through a running server.

Every test that takes ``watch`` ends with every response body and every log line (all levels, the
root logger's, tracebacks included) checked for the store's key, the administrator's configured key
and header, and any key the test adds (:class:`LeakWatch`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from models.leaks import ADMIN_HEADER, ADMIN_KEY, STORE_KEY, LeakWatch
from tornado import web

from jupyter_codecomplete.testing import FakeHub, LocalServer, OpenAIUpstream, Route, UpstreamConfig


@pytest.fixture
def model_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    """The administrator's model carries a key and a credential-like header."""
    return upstream.model_config(api_key=ADMIN_KEY, headers={"X-Api-Key": ADMIN_HEADER})


def store_file(tmp_path: Path) -> Path:
    return tmp_path / "store" / "user-model.json"


def write_store(tmp_path: Path, data: Any) -> None:
    path = store_file(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


# -- keys -------------------------------------------------------------------------------------------


@pytest.fixture
def echo() -> Any:
    """A model server that writes its caller's key back in every completion."""
    with OpenAIUpstream(UpstreamConfig(default=f"key = '{STORE_KEY}'\n")) as up:
        yield up


async def test_a_model_that_echoes_its_key_is_scrubbed_in_test_and_use(
    watch: LeakWatch, echo: OpenAIUpstream
) -> None:
    custom = {"backend": "openai", "base_url": echo.base_url, "model": "m", "api_key": STORE_KEY}
    code, out = await watch.api("PUT", "custom", body=custom)
    assert code == 200, out
    code, out = await watch.api("POST", "test", body={"id": "custom"})
    assert code == 200 and out["report"]["ok"], out
    assert out["report"]["sample"] == "key = '***'\n"
    code, out = await watch.api("POST", "use", body={"id": "custom"})
    assert code == 200 and out["report"]["sample"] == "key = '***'\n", out
    # the key did go to the model server
    assert any(r.headers.get("authorization") == f"Bearer {STORE_KEY}" for r in echo.records)


async def test_use_configured_stores_a_reference_not_the_admin_keys(watch: LeakWatch, tmp_path: Path) -> None:
    code, out = await watch.api("POST", "use", body={"id": "configured:completion"})
    assert code == 200, out
    saved = store_file(tmp_path).read_text()
    assert json.loads(saved)["choice"] == {"id": "configured:completion"}
    assert ADMIN_KEY not in saved and ADMIN_HEADER not in saved
    listing = (await watch.api("GET", "choices", detect="0"))[1]
    assert listing["active"] == "configured:completion" and not listing["warnings"]


# -- the per-user store -----------------------------------------------------------------------------

BAD_CUSTOM = {
    "unknown field": {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "api_key": STORE_KEY, "x": 1},
    "non-string URL": {"backend": "openai", "base_url": 12345, "api_key": STORE_KEY},
    "10 KB key": {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "api_key": "k" * 10_000},
    "deep nesting": {
        "backend": "openai",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": STORE_KEY,
        "style": json.loads("[" * 40 + "]" * 40),
    },
}


@pytest.mark.parametrize("case", list(BAD_CUSTOM))
async def test_a_malformed_custom_entry_is_skipped_with_a_warning(
    watch: LeakWatch, tmp_path: Path, upstream: OpenAIUpstream, case: str
) -> None:
    watch.add_secret("k" * 10_000)
    choice = {"id": "configured:completion"}
    write_store(tmp_path, {"custom": BAD_CUSTOM[case], "choice": choice})
    code, listing = await watch.api("GET", "choices", detect="0")
    assert code == 200, listing
    assert not any(e["source"] == "custom" for e in listing["entries"])
    assert listing["warnings"] and str(store_file(tmp_path)) in listing["warnings"][0]
    code, out = await watch.api("POST", "use", body={"id": "custom"})
    assert code == 404 and out["error"]["type"] == "unknown_model", out
    assert "not valid" in out["error"]["message"] or "ignored" in out["error"]["message"]
    code, out = await watch.api("POST", "test", body={"id": "custom"})
    assert code == 404, out
    # the PUT that repairs it
    good = {"backend": "openai", "base_url": upstream.base_url, "model": "m", "api_key": STORE_KEY}
    code, out = await watch.api("PUT", "custom", body=good)
    assert code == 200 and out["entry"]["api_key_set"], out
    code, listing = await watch.api("GET", "choices", detect="0")
    assert code == 200 and not listing["warnings"]
    assert any(e["source"] == "custom" for e in listing["entries"])


class TestDeeplyNestedStoreAtStart:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
        # about 10 KB nested 5,000 levels deep, there before the server starts
        write_store(tmp_path, '{"custom": ' + "[" * 5000 + "]" * 5000 + "}")
        return service_config

    async def test_the_extension_loads_and_the_put_repairs(
        self, watch: LeakWatch, tmp_path: Path, upstream: OpenAIUpstream
    ) -> None:
        code, out = await watch.fetch("GET", "models")
        assert code == 200 and out["default"]["name"] == "test-coder", out
        code, listing = await watch.api("GET", "choices", detect="0")
        assert code == 200 and any("nested" in w for w in listing["warnings"]), listing
        custom = {"backend": "openai", "base_url": upstream.base_url, "model": "m", "api_key": STORE_KEY}
        code, out = await watch.api("PUT", "custom", body=custom)
        assert code == 200, out
        assert json.loads(store_file(tmp_path).read_text())["custom"]["base_url"] == upstream.base_url


async def test_a_store_path_that_is_a_directory(
    watch: LeakWatch, tmp_path: Path, upstream: OpenAIUpstream
) -> None:
    store_file(tmp_path).mkdir(parents=True)
    custom = {"backend": "openai", "base_url": upstream.base_url, "model": "m", "api_key": STORE_KEY}
    code, out = await watch.api("PUT", "custom", body=custom)
    assert code == 500 and out["error"]["type"] == "store_failed", out
    assert str(store_file(tmp_path)) in out["error"]["message"] and "directory" in out["error"]["message"]
    code, listing = await watch.api("GET", "choices", detect="0")
    assert code == 200 and any("is a directory" in w for w in listing["warnings"])


@pytest.fixture
def slow() -> Any:
    """A model server whose first token takes a second (a `use` is still testing it meanwhile)."""
    with OpenAIUpstream(UpstreamConfig(default="x = 1\n", ttft_s=1.0)) as up:
        yield up


async def test_a_put_while_use_runs_is_not_undone(
    watch: LeakWatch, tmp_path: Path, slow: OpenAIUpstream, upstream: OpenAIUpstream
) -> None:
    first = {"backend": "openai", "base_url": slow.base_url, "model": "first", "api_key": STORE_KEY}
    later = {"backend": "openai", "base_url": upstream.base_url, "model": "later"}
    use = asyncio.ensure_future(watch.api("POST", "use", body={"id": "custom", "custom": first}))
    while not slow.records:  # noqa: ASYNC110  # polls another thread's server until the probe reached it
        await asyncio.sleep(0.02)
    code, out = await watch.api("PUT", "custom", body=later)
    assert code == 200, out
    code, out = await use
    assert code == 200, out
    saved = json.loads(store_file(tmp_path).read_text())
    assert saved["custom"]["model"] == "later"  # the PUT that answered 200 stays
    assert saved["choice"]["config"]["model"] == "first"  # what `use` switched to and tested


# -- one body reader --------------------------------------------------------------------------------


async def test_every_rest_route_reads_bodies_the_same_way(watch: LeakWatch) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    routes = [
        ("POST", ("prompt",)),
        ("POST", ("completions",)),
        ("POST", ("models", "test")),
        ("POST", ("models", "use")),
        ("PUT", ("models", "custom")),
        ("POST", ("models", "downloads")),
    ]
    answers = []
    for method, path in routes:
        code, out = await watch.fetch(method, *path, body=deep)
        answers.append((code, out["error"]["type"], out["error"]["message"]))
        code, out = await watch.fetch(method, *path, body='{"a": ' * 40 + "1" + "}" * 40)
        answers.append((code, out["error"]["type"], out["error"]["message"]))
        code, out = await watch.fetch(method, *path, body="[1, 2]")
        answers.append((code, out["error"]["type"], out["error"]["message"]))
        code, out = await watch.fetch(method, *path, body=" " * (8 * 1024 * 1024 + 1))
        answers.append((code, out["error"]["type"], ""))
    per_route = [tuple(answers[i : i + 4]) for i in range(0, len(answers), 4)]
    assert len(set(per_route)) == 1, per_route  # the same answers on every route
    first = per_route[0]
    assert first[0][:2] == (400, "bad_json") and "nested too deeply" in first[0][2]
    assert first[1][:2] == (400, "bad_request") and "nested too deeply" in first[1][2]
    assert first[2][:2] == (400, "bad_request") and "JSON object" in first[2][2]
    assert first[3][:2] == (413, "body_too_large")
    code, out = await watch.api("GET", "choices", detect="0")
    assert code == 200  # the server keeps working


# -- probes, locks, listing -------------------------------------------------------------------------


class _Redirect(web.RequestHandler):
    def initialize(self, upstream: Any) -> None:
        self.upstream = upstream

    def check_xsrf_cookie(self) -> None:
        return

    def prepare(self) -> None:
        self.upstream.hits += 1
        self.redirect("http://127.0.0.1:9/elsewhere", status=307)


class RedirectOnly(LocalServer):
    """Answers every request with ``307`` to another address."""

    hits = 0

    def routes(self) -> list[Route]:
        return [(r"/.*", _Redirect)]


@pytest.mark.parametrize("backend", ["ollama", "llamacpp", "mistral"])
async def test_an_endpoint_that_only_redirects_fails_the_probe(watch: LeakWatch, backend: str) -> None:
    with RedirectOnly() as server:
        custom = {"backend": backend, "base_url": server.root_url, "model": "m", "api_key": STORE_KEY}
        code, out = await watch.api("POST", "test", body={"id": "custom", "custom": custom})
        assert code == 200 and out["report"]["ok"] is False, out
        assert "307" in out["report"]["error"] and "redirect" in out["report"]["error"]
        code, out = await watch.api("POST", "use", body={"id": "custom", "custom": custom})
        assert code == 502 and out["error"]["type"] == "probe_failed", out
        assert server.hits >= 2
    listing = (await watch.api("GET", "choices", detect="0"))[1]
    assert listing["active"] is None and listing["serving"]["name"] == "test-coder"


class TestLocalMeansInProcess:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        return {**service_config, "allowed_hosts": ["local"]}

    async def test_a_host_named_local_is_refused(self, watch: LeakWatch) -> None:
        custom = {"backend": "openai", "base_url": "http://local:8000/v1", "model": "m"}
        code, out = await watch.api("PUT", "custom", body=custom)
        assert code == 403 and out["error"]["type"] == "locked" and "'local'" in out["error"]["message"]
        code, out = await watch.api("POST", "use", body={"id": "custom", "custom": custom})
        assert code == 403 and out["error"]["type"] == "locked"
        listing = (await watch.api("GET", "choices", detect="0"))[1]
        rows = {e["id"]: e for e in listing["entries"]}
        assert rows["demo"]["locked"] is False  # in-process models are what 'local' allows


class TestRefusedChoiceAtRestart:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
        cfg = {"backend": "ollama", "base_url": "http://10.1.2.3:11434", "model": "qwen2.5-coder:1.5b"}
        write_store(tmp_path, {"choice": {"id": "detected:x", "config": cfg}})
        return {**service_config, "allowed_hosts": ["127.0.0.1"]}

    async def test_it_is_not_marked_active(self, watch: LeakWatch) -> None:
        code, listing = await watch.api("GET", "choices", detect="0")
        assert code == 200
        assert listing["active"] is None and listing["serving"]["name"] == "test-coder"
        assert not any(e["active"] for e in listing["entries"])
        assert any("detected:x" in w and "10.1.2.3" in w for w in listing["warnings"]), listing["warnings"]


# -- prompt context ---------------------------------------------------------------------------------


async def test_a_kernel_expression_stays_inside_its_comment(watch: LeakWatch) -> None:
    body = {
        "prompt": "import os\nx = df",
        "language": "python",
        "mode": "completion",
        "kernel_candidates": {
            "expression": "df\nos.system('expr')\x1b[31m\x00\x07\u2028bare()",
            "items": [{"text": "columns"}, {"text": "head\nos.system('item')"}],
        },
    }
    code, out = await watch.fetch("POST", "prompt", body=body)
    assert code == 200, out
    prompt = out["prompt"]
    for bad in ("\x1b", "\x00", "\x07", "\u2028"):
        assert bad not in prompt
    for line in prompt.splitlines():
        if "os.system" in line or "bare()" in line:
            assert line.lstrip().startswith("#"), line


async def test_a_line_separator_in_an_output_does_not_end_a_javascript_comment(watch: LeakWatch) -> None:
    body = {
        "prompt": "const y = ",
        "language": "javascript",
        "mode": "completion",
        "cells_above": [
            {
                "cell_type": "code",
                "language": "javascript",
                "source": "console.log(1)",
                "outputs": [{"output_type": "stream", "text": "a\u2028fetch('/x')\u2029run()\u0085more()\n"}],
            }
        ],
    }
    code, out = await watch.fetch("POST", "prompt", body=body)
    assert code == 200, out
    prompt = out["prompt"]
    assert "fetch('/x')" in prompt  # the output is in the prompt
    for sep in ("\u2028", "\u2029", "\u0085"):
        assert sep not in prompt
    for line in prompt.splitlines():
        if any(s in line for s in ("fetch(", "run()", "more()")):
            assert line.lstrip().startswith("//"), line


async def test_a_100_mb_frame_gets_a_close_code_and_the_server_keeps_working(
    jp_ws_fetch: Any, watch: LeakWatch
) -> None:
    ws = await jp_ws_fetch("api", "codecomplete", "inline")
    hello = json.loads(await ws.read_message())
    assert hello["type"] == "hello"
    ws.write_message("x" * (100 * 1024 * 1024)).add_done_callback(lambda f: f.exception())
    while await asyncio.wait_for(ws.read_message(), 30) is not None:
        pass  # until the server closes
    assert ws.close_code == 1009
    assert ws.close_reason and "too big" in ws.close_reason and "max_message_bytes" in ws.close_reason
    ws2 = await jp_ws_fetch("api", "codecomplete", "inline")
    assert json.loads(await ws2.read_message())["type"] == "hello"
    ws2.close()
    code, _ = await watch.api("GET", "choices", detect="0")
    assert code == 200


# -- downloads from a hub that lies -----------------------------------------------------------------


async def pull_events(watch: LeakWatch, entry_id: str = "test-demo") -> tuple[int, Any]:
    code, out = await watch.api("POST", "downloads", body={"id": entry_id})
    if code != 202:
        return code, out
    code, text = await watch.api("GET", "downloads", entry_id, stream="1")
    return code, [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def partials(models_dir: Path) -> list[Path]:
    return list(models_dir.rglob("*.incomplete"))


def leftovers(models_dir: Path) -> list[str]:
    """What a pull may leave behind besides the model: partial files, sidecars, the ``.partial``
    folder, lock files."""
    if not models_dir.exists():
        return []
    return sorted(
        str(p.relative_to(models_dir))
        for p in models_dir.rglob("*")
        if p.name.endswith((".incomplete", ".json", ".pull-lock")) or p.name == ".partial"
    )


def target(models_dir: Path) -> Path:
    return models_dir / "codecomplete-demo.Q8_0.gguf"


async def test_a_hub_that_streams_past_the_announced_size_is_cut_off(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    size = len(hub.demo().data)
    hub.demo().no_length = True
    hub.demo().extra_bytes = 64 * 1024 * 1024
    code, events = await pull_events(watch)
    assert code == 200, events
    last = events[-1]
    # cut at the size, in the piece that crossed it (not a piece later): the bytes up to the size
    # are the file, as its pinned digest says; what followed was never read
    assert last["state"] == "done", last
    assert "reading stopped at the size" in (last["notice"] or ""), last
    assert target(models_dir).read_bytes() == hub.demo().data
    sent = max(r.sent for r in hub.records if r.path.startswith("/_cdn/"))
    # stopped at the announcement, not at the end of the stream
    assert sent < size + 8 * 1024 * 1024, (sent, size)
    assert not partials(models_dir) and not leftovers(models_dir)


async def test_extra_bytes_that_are_not_the_file_fail_the_digest_and_leave_nothing(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    hub.demo().no_length = True
    hub.demo().extra_bytes = 1024 * 1024
    hub.demo().corrupt = True
    _, events = await pull_events(watch)
    assert events[-1]["state"] == "failed" and events[-1]["error"]["type"] == "checksum_mismatch"
    assert not target(models_dir).exists() and not leftovers(models_dir)


async def test_a_wrong_etag_and_corrupt_bytes_are_caught_by_the_pinned_digest(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    hub.demo().etag = "5d41402abc4b2a76b9719d911017c592"  # an MD5-style ETag: proves nothing
    hub.demo().corrupt = True
    _, events = await pull_events(watch)
    assert events[-1]["state"] == "failed" and events[-1]["error"]["type"] == "checksum_mismatch"
    assert not target(models_dir).exists() and not leftovers(models_dir)
    hub.demo().corrupt = False
    _, events = await pull_events(watch)
    assert events[-1]["state"] == "done", events[-1]


class TestUnpinnedEntry:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        from jupyter_codecomplete.testing import demo_entry

        return {**service_config, "extra_catalogue": [demo_entry(sha256=None)]}

    async def test_no_sha256_anywhere_is_refused_before_a_byte_moves(
        self, watch: LeakWatch, hub: FakeHub, models_dir: Path
    ) -> None:
        hub.demo().etag = "5d41402abc4b2a76b9719d911017c592"
        code, out = await watch.api("POST", "downloads", body={"id": "test-demo"})
        assert code == 502 and out["error"]["type"] == "no_checksum", out
        assert not any(r.path.startswith("/_cdn/") and r.method == "GET" for r in hub.records)
        hub.demo().etag = None  # the hub's ETag is the SHA-256 of an LFS file: that is checked
        hub.demo().corrupt = True
        _, events = await pull_events(watch)
        assert events[-1]["error"]["type"] == "checksum_mismatch"


async def test_a_hub_that_contradicts_the_pinned_size_is_refused(watch: LeakWatch, hub: FakeHub) -> None:
    hub.demo().advertised_size = len(hub.demo().data) + 1
    code, out = await watch.api("POST", "downloads", body={"id": "test-demo"})
    assert code == 502 and out["error"]["type"] == "checksum_mismatch" and "pins" in out["error"]["message"]


async def test_a_slow_hub_shows_progress_and_cancels_at_once(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    hub.demo().bytes_per_s = 256 * 1024  # 8 MB: about 30 s
    code, out = await watch.api("POST", "downloads", body={"id": "test-demo"})
    assert code == 202, out
    loop = asyncio.get_running_loop()
    started = loop.time()
    seen: list[int] = []
    while len(set(seen)) < 3:  # three different progress figures
        seen.append((await watch.api("GET", "downloads", "test-demo"))[1]["done"])
        await asyncio.sleep(0.1)
    assert loop.time() - started < 5 and seen[-1] > 0
    asked = loop.time()
    code, out = await watch.api("DELETE", "downloads", "test-demo")
    cancelled_in = loop.time() - asked
    assert code == 200 and out["state"] == "cancelled", out
    assert cancelled_in < 1.0, cancelled_in
    assert not target(models_dir).exists() and not leftovers(models_dir)


async def test_a_stalled_hub_cancels_at_once(watch: LeakWatch, hub: FakeHub, models_dir: Path) -> None:
    hub.demo().stall_after = 1024 * 1024
    code, out = await watch.api("POST", "downloads", body={"id": "test-demo"})
    assert code == 202, out
    while (await watch.api("GET", "downloads", "test-demo"))[1]["done"] < 1024 * 1024:  # noqa: ASYNC110
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)  # nothing comes any more
    loop = asyncio.get_running_loop()
    asked = loop.time()
    code, out = await watch.api("DELETE", "downloads", "test-demo")
    assert code == 200 and out["state"] == "cancelled", out
    assert loop.time() - asked < 1.0
    assert not leftovers(models_dir)


class TestShortReadTimeout:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        return {**service_config, "download_timeout": 1.0}

    async def test_a_stall_keeps_the_partial_file_and_the_next_pull_resumes(
        self, watch: LeakWatch, hub: FakeHub, models_dir: Path
    ) -> None:
        hub.demo().stall_after = 3 * 1024 * 1024
        _, events = await pull_events(watch)
        last = events[-1]
        assert last["state"] == "failed" and last["error"]["type"] == "network", last
        assert "sent nothing" in last["error"]["message"] and "resume" in last["error"]["message"]
        kept = partials(models_dir)
        assert len(kept) == 1 and kept[0].stat().st_size >= 3 * 1024 * 1024
        offset = kept[0].stat().st_size
        # kept because it can be resumed: the job and the catalogue row say so (the dialog's Resume),
        # and the pull's lock file is gone
        assert last["resumable"] is True
        row = next(
            e for e in (await watch.api("GET", "choices", detect="0"))[1]["entries"] if e["id"] == "test-demo"
        )
        assert row["partial_bytes"] == offset and row["status"] == "not downloaded"
        assert not [p for p in leftovers(models_dir) if p.endswith(".pull-lock")]
        hub.heal()
        _, events = await pull_events(watch)
        assert events[-1]["state"] == "done", events[-1]
        assert events[0]["resumed_from"] == offset
        assert f"bytes={offset}-" in hub.ranges()
        assert target(models_dir).read_bytes() == hub.demo().data
        assert not leftovers(models_dir)

    async def test_a_stall_before_any_byte_leaves_nothing(
        self, watch: LeakWatch, hub: FakeHub, models_dir: Path
    ) -> None:
        hub.demo().stall_after = 0
        _, events = await pull_events(watch)
        last = events[-1]
        assert last["state"] == "failed" and last["error"]["type"] == "network", last
        assert last["resumable"] is False and "when the network is back" in last["error"]["message"]
        assert not leftovers(models_dir)  # nothing to resume: no partial, sidecar, folder or lock


async def test_a_503_in_the_middle_is_resumed_by_itself_once_with_a_notice(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    hub.demo().drop_after = 3_000_000
    hub.demo().fail_after_drop = True  # then 503 until healed
    code, out = await watch.api("POST", "downloads", body={"id": "test-demo"})
    assert code == 202, out
    # the hub answers 503 once the connection dropped; it is back before the pull asks again
    for _ in range(200):
        if any(r.status == 503 for r in hub.records):
            break
        await asyncio.sleep(0.02)
    assert any(r.status == 503 for r in hub.records)
    seen = (await watch.api("GET", "downloads", "test-demo"))[1]
    assert seen["state"] == "running" and "503" in (seen["notice"] or ""), seen
    hub.heal()
    code, text = await watch.api("GET", "downloads", "test-demo", stream="1")
    last = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")][-1]
    assert last["state"] == "done", last
    assert "HTTP 503" in last["notice"] and "resumed from 3.0 MB by itself" in last["notice"]
    assert hub.ranges()[-1] == "bytes=3000000-"
    assert target(models_dir).read_bytes() == hub.demo().data
    assert not leftovers(models_dir)


async def test_a_failed_pull_that_cannot_resume_leaves_nothing(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    # 503 from the first byte, and again when asked once more: nothing was kept to resume
    hub.demo().failing = True
    _, events = await pull_events(watch)
    last = events[-1]
    assert last["state"] == "failed" and "HTTP 503" in last["error"]["message"], last
    assert last["resumable"] is False
    assert not leftovers(models_dir)


async def test_a_disconnect_mid_file_is_resumed_by_the_next_pull(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    hub.demo().drop_after = 3_000_000
    hub.demo().fail_after_drop = True
    _, events = await pull_events(watch)
    last = events[-1]
    assert last["state"] == "failed" and last["error"]["type"] == "network", last
    assert "pull it again to resume" in last["error"]["message"]
    kept = partials(models_dir)
    assert len(kept) == 1 and kept[0].stat().st_size == 3_000_000
    hub.heal()
    before = len(hub.records)
    _, events = await pull_events(watch)
    assert events[-1]["state"] == "done", events[-1]
    resumed = [r for r in hub.records[before:] if r.method == "GET" and r.path.startswith("/_cdn/")]
    assert [r.range for r in resumed] == ["bytes=3000000-"]
    assert resumed[0].status == 206 and resumed[0].sent == len(hub.demo().data) - 3_000_000
    assert target(models_dir).read_bytes() == hub.demo().data


async def test_a_hub_that_ignores_the_range_starts_over_correctly(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    hub.demo().drop_after = 2_000_000
    hub.demo().fail_after_drop = True
    await pull_events(watch)
    assert partials(models_dir)
    hub.heal()
    hub.demo().ignore_range = True
    _, events = await pull_events(watch)
    assert events[-1]["state"] == "done", events[-1]
    assert target(models_dir).read_bytes() == hub.demo().data


async def test_a_stale_partial_of_another_revision_is_not_resumed(
    watch: LeakWatch, hub: FakeHub, models_dir: Path
) -> None:
    part = models_dir / ".partial" / "codecomplete-demo.Q8_0.gguf.incomplete"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"GGUF" + b"\xff" * 1_000_000)
    part.with_suffix(".json").write_text(json.dumps({"repo": "x", "revision": "other"}))
    _, events = await pull_events(watch)
    assert events[-1]["state"] == "done" and events[0]["resumed_from"] == 0
    assert target(models_dir).read_bytes() == hub.demo().data
    assert not any(r.range for r in hub.records)


async def test_the_catalogue_is_pinned() -> None:
    from jupyter_codecomplete.models_service import load_catalogue

    for entry in load_catalogue().values():
        assert len(entry.revision) == 40 and int(entry.revision, 16) >= 0, entry.id
        assert entry.size_bytes > 0 and entry.sha256 and len(entry.sha256) == 64, entry.id
        assert entry.source, entry.id
        assert entry.repo.split("/")[0] not in ("tensorblock", "lmstudio-community"), entry.id
