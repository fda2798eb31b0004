"""How the model's stream is read (``backends/http.py`` ``Lines`` and ``_decode``,
``backends/aio.py`` ``READ_HOLD``): lines end only where server-sent events end them, one
read's events travel as one piece that counts them (the token limit is counted in tokens), and
a consumer's hold gathers what the model sends meanwhile into few reads, without delaying the
answer's end. Against real servers on loopback."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import pytest
from aiohttp.client_proto import ResponseHandler
from backends.helpers import aclose_backend, collect
from tornado import web

from jupyter_codecomplete.backends import ModelConfig, make_backend
from jupyter_codecomplete.backends.aio import read_hold
from jupyter_codecomplete.backends.http import MAX_EVENT_CHARS, POOL_LIMITS, Lines, make_client
from jupyter_codecomplete.errors import BackendError
from jupyter_codecomplete.pieces import tokens_in
from jupyter_codecomplete.testing.openai_upstream import OpenAIUpstream, UpstreamConfig
from jupyter_codecomplete.testing.server import LocalServer, Route

TOKENS = [f"t{i} " for i in range(30)]


@pytest.mark.parametrize(
    ("pieces", "lines"),
    [
        (["a\nb\n"], ["a", "b"]),
        (["a\r\nb\r\n"], ["a", "b"]),
        (["a\r", "\nb\r\n"], ["a", "b"]),  # a \r\n cut between two reads is one line end
        (["a\rb\r", ""], ["a", "b"]),  # a lone \r ends a line (known at the end)
        (["da", "ta: 1", "\n"], ["data: 1"]),
        (['data: {"t": "a\u2028b\u2029c\x85d\x0ce"}\n'], ['data: {"t": "a\u2028b\u2029c\x85d\x0ce"}']),
        (["a\n", "tail"], ["a", "tail"]),  # the body's last line without a line end
        (["\n\n"], ["", ""]),
    ],
)
def test_lines_end_only_at_cr_and_lf(pieces: list[str], lines: list[str]) -> None:
    split = Lines()
    out: list[str] = []
    for piece in pieces:
        out += split.feed(piece)
    out += split.end()
    assert out == lines


def _config(url: str) -> ModelConfig:
    return ModelConfig.model_validate({"backend": "openai", "base_url": url, "model": "m"})


def _event(text: str) -> bytes:
    data = {"choices": [{"text": text, "index": 0, "finish_reason": None}]}
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


class _Writes(web.RequestHandler):
    """``/completions``: the events of each of ``writes`` in one write, flushed, 50 ms apart."""

    writes: ClassVar[list[list[str]]] = []

    def initialize(self, upstream: Any) -> None:
        pass

    async def post(self) -> None:
        self.set_header("Content-Type", "text/event-stream")
        for i, texts in enumerate(self.writes):
            if i:
                await asyncio.sleep(0.05)
            self.write(b"".join(_event(t) for t in texts))
            await self.flush()
        self.write(b"data: [DONE]\n\n")


class _Endless(web.RequestHandler):
    """``/completions`` answering one line that never ends (``sse``) or a JSON body (``json``)
    past the longest event read."""

    kind: ClassVar[str] = "sse"

    def initialize(self, upstream: Any) -> None:
        pass

    async def post(self) -> None:
        sse = self.kind == "sse"
        self.set_header("Content-Type", "text/event-stream" if sse else "application/json")
        self.write(b'data: {"choices": [{"text": "' if sse else b'{"choices": [{"text": "')
        block = b"x" * (1 << 20)
        for _ in range((MAX_EVENT_CHARS >> 20) + 2):
            self.write(block)
            await self.flush()
        if sse:
            await asyncio.sleep(30)  # and never a line end
        self.write(b'"}]}')


class WritesServer(LocalServer):
    def routes(self) -> list[Route]:
        return [(r"/completions", _Writes)]


class EndlessServer(LocalServer):
    def routes(self) -> list[Route]:
        return [(r"/completions", _Endless)]


@pytest.fixture
def writes_server() -> Iterator[WritesServer]:
    server = WritesServer()
    server.start()
    yield server
    server.stop()


async def _pieces(url: str, prompt: str = "x = ") -> list[str]:
    backend = make_backend(_config(url))
    try:
        stream: AsyncIterator[str] = backend.llm.stream_text(prompt)  # type: ignore[attr-defined]
        return [piece async for piece in stream]
    finally:
        await aclose_backend(backend)


async def test_an_event_holding_a_unicode_line_separator_is_one_event(writes_server: WritesServer) -> None:
    # llama.cpp's server writes JSON strings unescaped: U+2028 inside one is not a line end (an
    # event cut there was "an event that is not JSON")
    _Writes.writes = [["a = '\u2028'", "\u2029b"]]
    backend = make_backend(_config(writes_server.base_url))
    try:
        assert await collect(backend, "x = ") == "a = '\u2028'\u2029b"
    finally:
        await aclose_backend(backend)


async def test_one_read_is_one_piece_that_counts_its_events(writes_server: WritesServer) -> None:
    # two writes 50 ms apart, single-character events: each piece holds as many tokens as letters
    _Writes.writes = [["a", "b", "c", "d"], ["e", "f"]]
    pieces = await _pieces(writes_server.base_url)
    assert "".join(pieces) == "abcdef"
    assert [tokens_in(p) for p in pieces] == [len(p) for p in pieces]
    assert len(pieces) <= 2  # one per read, not one per event


async def test_langchain_sees_one_chunk_per_event(writes_server: WritesServer) -> None:
    # callbacks and tracing count the model's tokens in chunks: the runnable's stream is per event
    _Writes.writes = [["a", "b", "c", "d"], ["e", "f"]]
    backend = make_backend(_config(writes_server.base_url))
    try:
        chunks = [chunk async for chunk in backend.llm.astream("x = ")]
    finally:
        await aclose_backend(backend)
    assert chunks == ["a", "b", "c", "d", "e", "f"]


@pytest.mark.parametrize(("kind", "what"), [("sse", "an event longer"), ("json", "an answer longer")])
async def test_an_answer_past_the_longest_event_is_an_error_not_memory(kind: str, what: str) -> None:
    _Endless.kind = kind
    server = EndlessServer()
    server.start()
    backend = make_backend(_config(server.base_url))
    try:
        if kind == "json":
            backend = make_backend(
                ModelConfig.model_validate(
                    {"backend": "openai", "base_url": server.base_url, "model": "m", "streaming": False}
                )
            )
        with pytest.raises(BackendError) as caught:
            await asyncio.wait_for(collect(backend, "x = "), 20)
        assert caught.value.type == "backend_error"
        assert f"{what} than 16 MiB" in caught.value.message
    finally:
        await aclose_backend(backend)
        server.stop()


@pytest.fixture
def paced_upstream() -> Iterator[OpenAIUpstream]:
    up = OpenAIUpstream(UpstreamConfig(token_s=0.005))
    up.set_rules([], default="".join(TOKENS))
    up.start()
    yield up
    up.stop()


async def _reads(url: str, hold: float | None, pause: bool = False, times: int = 1) -> list[bytes]:
    """The body's reads, as httpx gets them from the model's client, under ``hold`` (the last of
    ``times`` requests on one client)."""
    client = make_client(30.0, limits=POOL_LIMITS, lean=True)
    body = {"model": "m", "prompt": "x = ", "stream": True, "max_tokens": 64}
    reads: list[bytes] = []
    try:
        with read_hold(None if hold is None else lambda: hold, pause=pause):
            for _ in range(times):
                async with client.stream("POST", url + "/completions", json=body) as resp:
                    reads = [chunk async for chunk in resp.aiter_raw()]
        return reads
    finally:
        await client.aclose()


@pytest.fixture
def socket_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes of each read of a model's socket that aiohttp's protocol gets (a spy on it)."""
    seen: list[int] = []
    real = ResponseHandler.data_received

    def counted(self: ResponseHandler, data: bytes) -> None:
        if data:  # aiohttp calls it with b"" too, to resume its parser
            seen.append(len(data))
        real(self, data)

    monkeypatch.setattr(ResponseHandler, "data_received", counted)
    return seen


def _texts(reads: list[bytes]) -> str:
    lines = Lines().feed(b"".join(reads).decode())
    events = [json.loads(line[5:]) for line in lines if line.startswith("data: {")]
    return "".join(e["choices"][0]["text"] for e in events)


async def test_a_hold_gathers_what_the_model_sends_meanwhile(paced_upstream: OpenAIUpstream) -> None:
    plain = await _reads(paced_upstream.base_url, None)
    held = await _reads(paced_upstream.base_url, 0.05)
    assert _texts(plain) == _texts(held) == "".join(TOKENS)
    # 30 tokens 5 ms apart (150 ms), read at most every 50 ms: a few reads, not one per token
    assert len(held) <= 8 < len(plain)


async def test_the_end_of_the_answer_ends_a_hold(paced_upstream: OpenAIUpstream) -> None:
    # a hold far longer than the answer: the body's end wakes the reader, the stream ends
    reads = await asyncio.wait_for(_reads(paced_upstream.base_url, 600.0), 30)
    assert _texts(reads) == "".join(TOKENS)


async def test_the_pieces_read_under_a_hold_are_the_models(paced_upstream: OpenAIUpstream) -> None:
    plain = await _pieces(paced_upstream.base_url)
    with read_hold(lambda: 0.05):
        held = await _pieces(paced_upstream.base_url)
    assert "".join(held) == "".join(plain) == "".join(TOKENS)
    # the same tokens counted (the model's events: at least one a word), in a few pieces
    assert sum(map(tokens_in, held)) == sum(map(tokens_in, plain)) >= len(TOKENS)
    assert len(held) <= 8


async def test_a_paused_hold_reads_the_socket_once_a_hold(
    paced_upstream: OpenAIUpstream, socket_reads: list[int]
) -> None:
    await _reads(paced_upstream.base_url, 0.05)
    buffered = len(socket_reads)
    socket_reads.clear()
    paused = await _reads(paced_upstream.base_url, 0.1, pause=True)
    assert _texts(paused) == "".join(TOKENS)
    # unpaused, aiohttp reads each packet (a token every 5 ms) into its buffer; paused, the
    # socket is read only from READ_LEAD_S before the end of each 100 ms hold (once for what
    # came, and for a token or two of the lead), and for the headers
    assert len(socket_reads) <= 10 < buffered


async def test_a_paused_hold_gives_the_connection_back(
    paced_upstream: OpenAIUpstream, socket_reads: list[int]
) -> None:
    # three answers read under a paused hold on one client: each whole, over one connection
    reads = await _reads(paced_upstream.base_url, 0.05, pause=True, times=3)
    assert _texts(reads) == "".join(TOKENS)
    peers = [r.peer for r in paced_upstream.records]
    assert len(peers) == 3 and len(set(peers)) == 1


async def test_a_hold_is_the_consumers_own(paced_upstream: OpenAIUpstream) -> None:
    # the hold is set in one task's context: another stream of the process is read as it comes
    held, plain = await asyncio.gather(
        asyncio.create_task(_reads(paced_upstream.base_url, 0.05)),
        asyncio.create_task(_reads(paced_upstream.base_url, None)),
    )
    assert len(held) <= 8 < len(plain)
