"""Hostile upstreams and clumsy clients (issue 18): every answer stays bounded, through a running server.

The upstream is the real scripted model server (``testing/openai_upstream.py``) in its hostile
modes; the client is a real websocket or HTTP client. No timed assertions: what is checked is what
was sent, what was closed and what was answered.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.testing import CompletionSocket, OpenAIUpstream, open_socket, request

SECRET = "sk-hostile-SECRET-0123456789abcdef"
HEADER_SECRET = "hdr-hostile-SECRET-fedcba9876543210"
MAX_CHARS = 2_000
MAX_LINES = 50
# Lines that never repeat (the repetition filter would end a repeating answer by itself).
VARIED = "".join(f"value_{i} = compute({i}, {i * 7})\n" for i in range(100_000))  # ~3.4 MB

RULES: list[dict[str, Any]] = [
    # a model that ignores max_tokens and streams 620 KB in 500-character events
    {"contains": "FLOOD", "completion": VARIED, "ignore_max_tokens": True, "piece_chars": 500},
    # the same as one line (no newline the cleaning could end on)
    {"contains": "ONELINE", "completion": "y" * 3_000_000, "ignore_max_tokens": True, "piece_chars": 500},
    # a model that writes the API key and the auth header into its suggestion, split across events
    {
        "contains": "LEAKS",
        "completion": f"key = '{SECRET}'\nhdr = '{HEADER_SECRET}'\n",
        "piece_chars": 5,
    },
    {"contains": "BADJSON", "completion": "never shown", "invalid_json": True},
    {"contains": "SLOW", "completion": " ".join(f"word{i}" for i in range(400)), "token_s": 0.02},
    {"contains": "HANG", "hang": True},
    {"contains": "import num", "completion": "py as np\n"},
]


@pytest.fixture
def model_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    upstream.set_rules([dict(r) for r in RULES])
    return upstream.model_config(
        first_request_timeout=5.0, api_key=SECRET, headers={"Authorization": f"Bearer {HEADER_SECRET}"}
    )


@pytest.fixture
def codecomplete_config(model_config: dict[str, Any]) -> dict[str, Any]:
    return {
        "completion_model": model_config,
        "max_suggestion_chars": MAX_CHARS,
        "max_suggestion_lines": MAX_LINES,
    }


async def open_v2(jp_ws_fetch: Any) -> CompletionSocket:
    """A client that speaks protocol 2 (stream deltas)."""
    socket = await open_socket(jp_ws_fetch)
    assert socket.hello is not None and 2 in socket.hello["protocols"]
    await socket.use_protocol(2)
    return socket


def rebuild(msgs: list[dict[str, Any]]) -> str:
    """The suggestion from protocol-2 stream messages (what the TypeScript client does)."""
    streams = [m for m in msgs if m["type"] == "stream"]
    assert all(m["delta"] for m in streams)
    return "".join(m["response"]["insertText"] for m in streams)


async def ok_after(socket: CompletionSocket, number: int) -> None:
    await socket.send(request(number, "import num"))
    [reply] = await socket.until_done(number)
    assert reply["error"] is None and reply["list"]["items"][0]["insertText"] == "py as np"


async def closed(record: Any) -> bool:
    """Whether the upstream saw its client hang up (polled; the model timeout is far longer)."""
    for _ in range(300):
        if record.client_closed or record.finished:
            return bool(record.client_closed)
        await asyncio.sleep(0.01)
    return bool(record.client_closed)


# -- 1. maximum suggestion size, the model stream closed ------------------------------------------------


@pytest.mark.parametrize("marker", ["FLOOD", "ONELINE"])
async def test_streamed_flood_is_cut_and_closed(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, marker: str
) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, f"# {marker}\n", stream=True))
    msgs = await socket.until_done(1)
    last = msgs[-1]
    assert last["done"] is True and last["error"] is None
    text = last["response"]["insertText"]
    assert 0 < len(text) <= MAX_CHARS
    assert text.count("\n") < MAX_LINES
    assert any("maximum size" in n for n in last["notes"])
    record = upstream.last()
    assert await closed(record)  # the model's stream was closed, not read to its end
    assert record.tokens_sent < len(VARIED) // 500
    await ok_after(socket, 2)


async def test_not_streamed_flood_is_cut(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "# FLOOD\n"))
    [reply] = await socket.until_done(1)
    text = reply["list"]["items"][0]["insertText"]
    assert 0 < len(text) <= MAX_CHARS
    assert any("maximum size" in n for n in reply["notes"])


class TestNotStreamedUpstream:
    """The model answers in one 10 MB JSON body (``streaming: False``)."""

    @pytest.fixture
    def codecomplete_config(self, model_config: dict[str, Any]) -> dict[str, Any]:
        return {
            "completion_model": {**model_config, "streaming": False},
            "max_suggestion_chars": MAX_CHARS,
        }

    async def test_ten_megabytes_in_one_answer(self, jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
        upstream.set_rules(
            [{"contains": "BIG", "completion": "z" * 10_000_000, "ignore_max_tokens": True, "piece_chars": 1}]
        )
        socket = await open_socket(jp_ws_fetch)
        await socket.send(request(1, "# BIG\n", stream=True))
        msgs = await socket.until_done(1)
        assert msgs[-1]["error"] is None
        assert 0 < len(msgs[-1]["response"]["insertText"]) <= MAX_CHARS


# -- 2. O(n) wire bytes: protocol 2 deltas, negotiated in hello --------------------------------------


async def test_protocol_2_streams_deltas(jp_ws_fetch: Any) -> None:
    old = await open_socket(jp_ws_fetch)
    assert old.hello is not None and old.hello["protocol"] == 1
    await old.send(request(1, "# FLOOD\n", stream=True))
    v1 = await old.until_done(1)
    whole = v1[-1]["response"]["insertText"]

    new = await open_v2(jp_ws_fetch)
    await new.send(request(1, "# FLOOD\n", stream=True))
    v2 = await new.until_done(1)
    assert rebuild(v2) == whole
    # every character crosses the wire once
    assert sum(len(m["response"]["insertText"]) for m in v2 if m["type"] == "stream") == len(whole)
    assert len(v2) > 2  # it did stream
    assert v2[-1]["done"] is True and v2[-1]["notes"]


async def test_unknown_protocol_version_falls_back(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.use_protocol(99)  # a newer client: the newest both speak
    await socket.send(request(1, "import num", stream=True))
    msgs = await socket.until_done(1)
    assert rebuild(msgs) == "py as np"
    await socket.send({"type": "hello", "protocol": 0, "number": 3})
    err = await socket.recv()
    assert err["type"] == "error" and err["error"]["type"] == "bad_request"


# -- 4. nesting ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "number"),
    [
        ("[" * 100_000, -1),
        ('{"a": ' * 100_000, -1),
        ('{"type": "inline_completion", "number": 7, "prefix": ' + "[" * 20_000 + "]" * 20_000 + "}", 7),
        ('{"type": "inline_completion", "number": 8, "files": ' + "[" * 40 + "]" * 40 + "}", 8),
    ],
)
async def test_deep_nesting_gets_a_reply(jp_ws_fetch: Any, message: str, number: int) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(message)
    reply = await socket.recv()
    assert reply["type"] == "error" and reply["reply_to"] == number
    assert reply["error"]["type"] in {"bad_json", "bad_request"}
    assert "nested too deeply" in reply["error"]["message"]
    await ok_after(socket, 100)


@pytest.mark.parametrize("endpoint", ["prompt", "completions"])
async def test_deep_nesting_on_rest_is_400(jp_fetch: Any, endpoint: str) -> None:
    for body in ('{"prompt": ' + "[" * 100_000, '{"prompt": "x", "files": ' + "{" * 20_000):
        r = await jp_fetch("api", "codecomplete", endpoint, method="POST", body=body, raise_error=False)
        assert r.code == 400
        assert json.loads(r.body)["error"]["type"] in {"bad_json", "bad_request"}


async def test_too_many_stop_strings_on_rest_is_400(jp_fetch: Any) -> None:
    body = json.dumps({"prompt": "import num", "stop": [f"s{i}" for i in range(100_000)]})
    r = await jp_fetch("api", "codecomplete", "completions", method="POST", body=body, raise_error=False)
    assert r.code == 400 and json.loads(r.body)["error"]["type"] == "bad_request"


# -- 5. parse failures are backend_error on every backend ---------------------------------------------


class TestChatBackend:
    @pytest.fixture
    def codecomplete_config(self, model_config: dict[str, Any]) -> dict[str, Any]:
        return {"completion_model": {**model_config, "backend": "openai-chat", "style": "chat"}}

    async def test_stream_event_not_json(self, jp_ws_fetch: Any) -> None:
        socket = await open_socket(jp_ws_fetch)
        for n, stream in ((1, True), (2, False)):
            await socket.send(request(n, "BADJSON", stream=stream))
            msgs = await socket.until_done(n)
            assert msgs[-1]["error"]["type"] == "backend_error", msgs[-1]


async def test_completions_stream_event_not_json(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "BADJSON", stream=True))
    msgs = await socket.until_done(1)
    assert msgs[-1]["error"]["type"] == "backend_error"


# -- 6. a REST client that hangs up closes the model request ------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
async def test_rest_disconnect_closes_the_model_request(
    jp_fetch: Any, upstream: OpenAIUpstream, stream: bool
) -> None:
    body = json.dumps({"prompt": "HANG", "stream": stream})
    with pytest.raises(HTTPClientError):
        await jp_fetch("api", "codecomplete", "completions", method="POST", body=body, request_timeout=0.5)
    record = upstream.last()
    assert await closed(record)  # long before the model timeout (5 s)


# -- 7. cancel of an unknown or finished number --------------------------------------------------------


async def test_cancel_unknown_or_finished_gets_a_reply(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.cancel(42)
    reply = await socket.recv()
    assert reply == {**reply, "type": "error", "reply_to": 42}
    assert reply["error"]["type"] == "not_running"
    await ok_after(socket, 1)
    await socket.cancel(1)
    reply = await socket.recv()
    assert reply["reply_to"] == 1 and reply["error"]["type"] == "not_running"


# -- 8. configured secrets are scrubbed from suggestions ---------------------------------------------


async def test_secrets_are_scrubbed_from_suggestions(jp_ws_fetch: Any, jp_fetch: Any) -> None:
    seen: list[str] = []
    v1 = await open_socket(jp_ws_fetch)
    v2 = await open_v2(jp_ws_fetch)
    for n, (socket, stream) in enumerate([(v1, False), (v1, True), (v2, True)], start=1):
        await socket.send(request(n, "# LEAKS\n", stream=stream))
        msgs = await socket.until_done(n)
        seen += [json.dumps(m) for m in msgs]
        text = rebuild(msgs) if socket is v2 else json.dumps(msgs[-1])
        assert "***" in text
    for stream in (False, True):
        r = await jp_fetch(
            "api",
            "codecomplete",
            "completions",
            method="POST",
            body=json.dumps({"prompt": "# LEAKS\n", "stream": stream}),
        )
        seen.append(r.body.decode())
        assert "***" in r.body.decode()
    everything = "\n".join(seen)
    assert SECRET not in everything and HEADER_SECRET not in everything


# -- 12. quiet writes to closed sockets, 1007 on invalid UTF-8 ----------------------------------------


async def test_closing_while_replies_are_written_is_quiet(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for _ in range(5):
        socket = await open_socket(jp_ws_fetch)
        for n in range(1, 6):
            await socket.send(request(n, "SLOW", stream=True))
        while (await socket.recv())["type"] != "stream":
            pass  # replies are being written: now hang up
        socket.ws.close()
    for record in upstream.records:
        assert await closed(record)
    await asyncio.sleep(0.1)
    gc.collect()
    await asyncio.sleep(0)
    assert "never retrieved" not in caplog.text
    assert "WebSocketClosedError" not in caplog.text


def live_handlers() -> int:
    from jupyter_codecomplete.web.websocket import InlineCompletionWebSocket

    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, InlineCompletionWebSocket))


async def test_closed_sockets_are_let_go(jp_ws_fetch: Any) -> None:
    """A closed socket's handler is freed at once, not kept by the keep-alive ping's timer (30 s)
    with everything it holds: 1,000 sockets opened and closed must not hold 1,000 handlers."""
    before = live_handlers()
    for n in range(10):
        socket = await open_socket(jp_ws_fetch)
        await ok_after(socket, n + 1)
        socket.ws.close()
        for _ in range(200):  # the server's side of the close
            await asyncio.sleep(0.01)
            if socket.ws.close_code is not None:
                break
    for _ in range(100):
        if live_handlers() <= before:
            break
        await asyncio.sleep(0.02)
    assert live_handlers() <= before


async def test_invalid_utf8_closes_with_1007(jp_ws_fetch: Any) -> None:
    socket = await open_socket(jp_ws_fetch)
    socket.ws.protocol._write_frame(True, 0x1, b'{"bad": "\xff\xfe"}')
    assert await socket.ws.read_message() is None
    assert socket.ws.close_code == 1007


# -- 10. a client that never reads -------------------------------------------------------------------


class TestClientThatNeverReads:
    @pytest.fixture
    def codecomplete_config(self, model_config: dict[str, Any]) -> dict[str, Any]:
        return {"completion_model": model_config, "max_queued_bytes": 256 * 1024}

    async def test_queue_is_bounded(self, jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
        import socket as sk

        ws = await jp_ws_fetch("api", "codecomplete", "inline")
        ws.protocol.stream.socket.setsockopt(sk.SOL_SOCKET, sk.SO_RCVBUF, 4096)
        client = CompletionSocket(ws)
        # protocol 1 (cumulative) and 16,000-character suggestions: ~25 MB if every message queued
        for n in range(1, 41):
            await client.send(request(n, "# FLOOD\n", stream=True))
            await asyncio.sleep(0.05)
        # now read everything the server kept for us
        received = 0
        ended: dict[int, str] = {}
        while True:
            try:
                raw = await asyncio.wait_for(ws.read_message(), 3.0)
            except asyncio.TimeoutError:
                break
            if raw is None:
                break
            received += len(raw)
            msg = json.loads(raw)
            if msg["type"] == "error":
                ended[msg["reply_to"]] = msg["error"]["type"]
            elif msg["type"] == "stream" and msg["done"]:
                ended[msg["reply_to"]] = "done"
        assert received < 16 * 1024 * 1024
        assert ended, "the server answered nothing"
        # one stream may still be held open by back-pressure (its frames under the bound, waiting
        # for a client that does not read); once the client goes, nothing may be left streaming
        ws.close()
        loop = asyncio.get_running_loop()
        end = loop.time() + 10.0
        while loop.time() < end and any(not (r.finished or r.client_closed) for r in upstream.records):  # noqa: ASYNC110 - polls flags set by the upstream's handlers
            await asyncio.sleep(0.05)
        for record in upstream.records:
            assert record.finished or record.client_closed


# -- 3/13. a burst from many sockets: every request answered, in order, through the gates ------------


async def test_burst_from_many_sockets(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    sockets = [await open_v2(jp_ws_fetch) for _ in range(20)]
    for n in range(1, 6):
        for socket in sockets:
            await socket.send(request(n, "import num", stream=True))
    started = len(upstream.records)
    for socket in sockets:
        answered: dict[int, str] = {}
        while 5 not in answered:
            msg = await socket.recv()
            if msg["type"] == "error":
                answered[msg["reply_to"]] = msg["error"]["type"]
            elif msg["type"] == "stream" and msg["done"]:
                answered[msg["reply_to"]] = "done"
        assert answered[5] == "done"
        assert all(answered.get(n) in {"superseded", "done"} for n in range(1, 5))
    # far fewer model requests than requests: most were superseded before they started
    assert len(upstream.records) - started < 100


async def test_many_streams_at_once_all_reach_the_model(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    """More requests in flight than httpx's default pool (100 connections) all reach the model
    server at once: none waits in our connection pool (where its bookkeeping grew with the square
    of the streams); the model server queues what it cannot serve."""
    started = len(upstream.records)
    sockets = [await open_v2(jp_ws_fetch) for _ in range(120)]
    try:
        for socket in sockets:
            await socket.send(request(1, "HANG", stream=True))
        for _ in range(500):
            if len(upstream.records) - started >= 120:
                break
            await asyncio.sleep(0.02)
        assert len(upstream.records) - started == 120
    finally:
        for socket in sockets:
            socket.ws.close()
    for record in upstream.records[started:]:
        assert await closed(record)  # each hung request is closed with its socket


# -- 5. every backend: an answer that cannot be parsed is backend_error --------------------------------


class TestParseFailuresOnEveryBackend:
    @pytest.fixture
    def natives(self) -> Any:
        from jupyter_codecomplete.testing import (
            LlamaCppUpstream,
            MistralUpstream,
            OllamaUpstream,
            UpstreamConfig,
        )

        ups = {
            "ollama": OllamaUpstream(UpstreamConfig(model="qwen2.5-coder:1.5b")),
            "llamacpp": LlamaCppUpstream(UpstreamConfig(model="qwen2.5-coder")),
            "mistral": MistralUpstream(UpstreamConfig(model="codestral-latest"), api_key=SECRET),
        }
        for up in ups.values():
            up.set_rules([dict(r) for r in HOSTILE_RULES])
            up.start()
        yield ups
        for up in ups.values():
            up.stop()

    @pytest.fixture
    def codecomplete_config(
        self, model_config: dict[str, Any], natives: Any, upstream: OpenAIUpstream
    ) -> Any:
        upstream.set_rules([dict(r) for r in HOSTILE_RULES])
        common = {"style": "raw", "timeout": 5.0, "first_request_timeout": 5.0}
        models = {
            "chat": {**model_config, "backend": "openai-chat", "style": "chat"},
            "ollama": {"backend": "ollama", "base_url": natives["ollama"].root_url, "model": "m", **common},
            "llamacpp": {
                "backend": "llamacpp",
                "base_url": natives["llamacpp"].root_url,
                "model": "m",
                **common,
            },
            "mistral": {
                "backend": "mistral",
                "base_url": natives["mistral"].base_url,
                "api_key": SECRET,
                "model": "codestral-latest",
                **common,
            },
        }
        return {
            "completion_model": model_config,
            "models": models,
            "routes": {f"text/x-{name}": name for name in models},
        }

    @pytest.mark.parametrize("backend", ["openai", "chat", "ollama", "llamacpp", "mistral"])
    async def test_unparseable_answers(self, jp_ws_fetch: Any, backend: str) -> None:
        socket = await open_socket(jp_ws_fetch)
        n = 0
        for marker in ("NOTJSON", "BADSHAPE"):
            for stream in (True, False):
                n += 1
                await socket.send(request(n, f"# {marker}\n", stream=stream, mime=f"text/x-{backend}"))
                msgs = await socket.until_done(n)
                error = msgs[-1]["error"]
                assert error is not None and error["type"] == "backend_error", (marker, stream, error)
        await ok_after(socket, 100)


HOSTILE_RULES: list[dict[str, Any]] = [
    {"contains": "NOTJSON", "completion": "never shown", "invalid_json": True},
    {"contains": "BADSHAPE", "completion": "never shown", "bad_shape": True},
    {"contains": "import num", "completion": "py as np\n"},
]
