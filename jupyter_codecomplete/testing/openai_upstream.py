"""A scripted model server that speaks the OpenAI wire format, for tests, UI tests and benchmarks.

It is a real HTTP server on a loopback port (tornado, in its own thread or as a process), not a
mock: requests go through sockets, streams are real server-sent events, and it records what the
client did (bodies, headers, when the client hung up, how many tokens it generated after that).

Behaviour comes from *rules*: ``{"contains": "<substring of the prompt>", "completion": "..."}``;
the first rule whose ``contains`` is in the prompt (or chat messages) decides, else ``default``.
A rule can also script a fault: ``status`` (+ ``body``, ``retry_after``), ``hang`` (never answer),
``drip_s`` (one byte per N seconds), ``close_after`` (close mid-stream after N tokens),
``invalid_json``, ``error_body`` (200 with an error body), ``echo_prompt``, ``literal_newlines``,
``no_finish_reason``, ``leading_space``, ``reject_fields`` (400 when a body has these fields),
``repeat`` (repeat the completion N times: a large response), ``model`` (the reported model).
Hostile modes: ``ignore_max_tokens`` (send everything whatever ``max_tokens`` says),
``piece_chars`` (stream events of N characters instead of word-like tokens), ``bad_shape`` (stream
events that are JSON but not completion chunks).

Run as a process: ``python -m jupyter_codecomplete.testing.openai_upstream --port 8911 --rules R.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tornado import httpserver, iostream, web
from tornado.netutil import bind_sockets

_TOKEN_RE = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def split_tokens(text: str) -> list[str]:
    """Split text into token-like pieces: runs of whitespace, words, single punctuation."""
    return _TOKEN_RE.findall(text)


@dataclass
class RequestRecord:
    """What the upstream saw of one request."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    started: float = field(default_factory=time.monotonic)
    tokens_sent: int = 0
    finished: bool = False
    client_closed: bool = False
    closed_at: float | None = None
    tokens_after_close: int = 0
    token_times: list[float] = field(default_factory=list)


@dataclass
class UpstreamConfig:
    rules: list[dict[str, Any]] = field(default_factory=list)
    default: str = "pass\n"
    model: str = "test-coder"
    ttft_s: float = 0.0
    token_s: float = 0.0


class _Base(web.RequestHandler):
    def initialize(self, upstream: ScriptedUpstream) -> None:
        self.upstream = upstream
        self.record: RequestRecord | None = None

    def check_xsrf_cookie(self) -> None:  # an API server: no xsrf
        return

    def on_connection_close(self) -> None:
        if self.record is not None and not self.record.finished and not self.record.client_closed:
            self.record.client_closed = True
            self.record.closed_at = time.monotonic()


class ModelsHandler(_Base):
    def get(self) -> None:
        cfg = self.upstream.config
        self.write({"object": "list", "data": [{"id": cfg.model, "object": "model", "owned_by": "test"}]})


class StatsHandler(_Base):
    def get(self) -> None:
        self.write({"requests": [r.__dict__ for r in self.upstream.records]})


class _CompletionBase(_Base):
    chat = False

    def _prompt_text(self, body: dict[str, Any]) -> str:
        if self.chat:
            return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        prompt = body.get("prompt", "")
        if isinstance(prompt, list):
            prompt = "".join(str(p) for p in prompt)
        return str(prompt) + str(body.get("suffix") or "")

    async def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"{}")
        except json.JSONDecodeError:
            self.set_status(400)
            self.write({"error": {"message": "invalid JSON body", "type": "invalid_request_error"}})
            return
        record = RequestRecord(
            path=self.request.path,
            body=body,
            headers={k.lower(): v for k, v in self.request.headers.items()},
        )
        self.record = record
        self.upstream.records.append(record)
        cfg = self.upstream.config
        prompt = self._prompt_text(body)
        rule: dict[str, Any] = {}
        for r in cfg.rules:
            if str(r.get("contains", "")) in prompt:
                rule = r
                break
        try:
            await self._answer(body, rule, prompt, record)
        finally:
            record.finished = True

    async def _answer(
        self, body: dict[str, Any], rule: dict[str, Any], prompt: str, rec: RequestRecord
    ) -> None:
        cfg = self.upstream.config
        for name in rule.get("reject_fields", []):
            if name in body:
                self.set_status(400)
                self.write(
                    {"error": {"message": f"Unrecognized request argument: {name}", "type": "invalid"}}
                )
                return
        if "status" in rule:
            self.set_status(int(rule["status"]))
            if "retry_after" in rule:
                self.set_header("Retry-After", str(rule["retry_after"]))
            self.write(rule.get("body", {"error": {"message": f"scripted status {rule['status']}"}}))
            return
        if rule.get("hang"):
            while not rec.client_closed:  # noqa: ASYNC110 - polls a flag set by tornado's callback
                await asyncio.sleep(0.05)
            return
        if rule.get("error_body"):
            self.write({"error": {"message": rule["error_body"], "type": "server_error"}})
            return
        text = str(rule.get("completion", cfg.default))
        text = text * int(rule.get("repeat", 1))
        if rule.get("echo_prompt"):
            text = prompt + text
        if rule.get("leading_space"):
            text = " " + text
        if rule.get("literal_newlines"):
            text = text.replace("\n", "\\n")
        stops = body.get("stop") or []
        if isinstance(stops, str):
            stops = [stops]
        finish = "stop"
        for s in stops:
            i = text.find(s) if s else -1
            if i != -1:
                text = text[:i]
        piece = int(rule.get("piece_chars", 0))
        tokens = [text[i : i + piece] for i in range(0, len(text), piece)] if piece else split_tokens(text)
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
        if rule.get("ignore_max_tokens"):
            max_tokens = None
        if isinstance(max_tokens, int) and len(tokens) > max_tokens:
            tokens, finish = tokens[:max_tokens], "length"
        model = str(rule.get("model", cfg.model))
        ttft = float(rule.get("ttft_s", cfg.ttft_s))
        tok_s = float(rule.get("token_s", cfg.token_s))
        if not body.get("stream"):
            if ttft:
                await asyncio.sleep(ttft)
            content = "".join(tokens)
            if self.chat:
                choice: dict[str, Any] = {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            else:
                choice = {"index": 0, "text": content, "finish_reason": finish, "logprobs": None}
            rec.tokens_sent = len(tokens)
            self.write(
                {
                    "id": f"cmpl-{uuid.uuid4().hex[:12]}",
                    "object": "chat.completion" if self.chat else "text_completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [choice],
                    "usage": {"prompt_tokens": len(split_tokens(prompt)), "completion_tokens": len(tokens)},
                }
            )
            return
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        cid = f"cmpl-{uuid.uuid4().hex[:12]}"
        if ttft:
            await asyncio.sleep(ttft)
        drip = float(rule.get("drip_s", 0))
        close_after = rule.get("close_after")
        for i, tok in enumerate(tokens):
            if close_after is not None and i >= int(close_after):
                self.request.connection.close()  # type: ignore[union-attr]
                return
            if rule.get("invalid_json"):
                payload = "data: {not json\n\n"
            elif rule.get("bad_shape"):
                payload = "data: [1, 2, 3]\n\n"
            else:
                payload = "data: " + json.dumps(self._chunk(cid, model, tok, None)) + "\n\n"
            if rec.client_closed:
                rec.tokens_after_close += 1
                if rec.tokens_after_close > 50:
                    return
            try:
                if drip:
                    for ch in payload:
                        self.write(ch)
                        await self.flush()
                        await asyncio.sleep(drip)
                else:
                    self.write(payload)
                    await self.flush()
            except iostream.StreamClosedError:
                rec.client_closed = True
                rec.closed_at = rec.closed_at or time.monotonic()
                return
            rec.tokens_sent += 1
            rec.token_times.append(time.monotonic())
            if i + 1 < len(tokens) and tok_s:
                await asyncio.sleep(tok_s)
        try:
            if not rule.get("no_finish_reason"):
                self.write("data: " + json.dumps(self._chunk(cid, model, "", finish)) + "\n\n")
            self.write("data: [DONE]\n\n")
            await self.flush()
        except iostream.StreamClosedError:
            rec.client_closed = True

    def _chunk(self, cid: str, model: str, text: str, finish: str | None) -> dict[str, Any]:
        if self.chat:
            choice: dict[str, Any] = {
                "index": 0,
                "delta": {"content": text} if text else {},
                "finish_reason": finish,
            }
            obj = "chat.completion.chunk"
        else:
            choice = {"index": 0, "text": text, "finish_reason": finish, "logprobs": None}
            obj = "text_completion"
        return {"id": cid, "object": obj, "created": int(time.time()), "model": model, "choices": [choice]}


class CompletionsHandler(_CompletionBase):
    chat = False


class ChatCompletionsHandler(_CompletionBase):
    chat = True


class ScriptedUpstream:
    """The server. ``start()`` runs it on its own thread and event loop; ``stop()`` ends it."""

    def __init__(self, config: UpstreamConfig | None = None, port: int = 0, host: str = "127.0.0.1") -> None:
        self.config = config or UpstreamConfig()
        self.records: list[RequestRecord] = []
        self.host = host
        self._port = port
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: httpserver.HTTPServer | None = None
        self._ready = threading.Event()
        self.port = 0

    def make_app(self) -> web.Application:
        args = {"upstream": self}
        return web.Application(
            [
                (r"/v1/models", ModelsHandler, args),
                (r"/v1/completions", CompletionsHandler, args),
                (r"/v1/chat/completions", ChatCompletionsHandler, args),
                (r"/_stats", StatsHandler, args),
            ]
        )

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def _bind(self) -> None:
        sockets = bind_sockets(self._port, self.host)
        self.port = sockets[0].getsockname()[1]
        self._server = httpserver.HTTPServer(self.make_app(), max_buffer_size=200 * 1024 * 1024)
        self._server.add_sockets(sockets)

    def start(self) -> ScriptedUpstream:
        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self._bind()
            self._ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="scripted-upstream", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None or loop.is_closed():
            return

        def shutdown() -> None:
            if self._server is not None:
                self._server.stop()
            loop.stop()

        loop.call_soon_threadsafe(shutdown)
        if self._thread is not None:
            self._thread.join(5)

    def set_rules(self, rules: list[dict[str, Any]], default: str | None = None) -> None:
        self.config.rules = rules
        if default is not None:
            self.config.default = default

    def last(self) -> RequestRecord:
        return self.records[-1]

    def __enter__(self) -> ScriptedUpstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8911)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--rules", help="JSON file: a list of rules")
    parser.add_argument("--default", default="pass\n")
    parser.add_argument("--model", default="test-coder")
    parser.add_argument("--ttft-ms", type=float, default=0.0)
    parser.add_argument("--token-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    rules: list[dict[str, Any]] = []
    if args.rules:
        with open(args.rules, encoding="utf-8") as f:
            rules = json.load(f)
    cfg = UpstreamConfig(
        rules=rules,
        default=args.default,
        model=args.model,
        ttft_s=args.ttft_ms / 1000,
        token_s=args.token_ms / 1000,
    )
    up = ScriptedUpstream(cfg, port=args.port, host=args.host)

    async def serve() -> None:
        up._bind()
        print(f"scripted upstream on {up.base_url}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
