"""The scripted model-server engine: rules, faults, request records and the streaming loop.

Every fake model server in :mod:`jupyter_codecomplete.testing` (OpenAI, Ollama, llama.cpp, Mistral)
is this engine plus a thin handler per route that says only how its provider's wire looks (where
the prompt is, how a token, the last event, a whole answer and an error are framed). The engine:

* records every request (:class:`RequestRecord`: body, headers, tokens sent, whether and when the
  client hung up, tokens written after that, when each token went out);
* picks the *rule*: the first whose ``contains`` is in the prompt (+ suffix), else the server's
  ``default`` completion (:class:`UpstreamConfig`);
* plays the rule's faults and hostile modes:

  ``status`` (+ ``body``, ``retry_after``), ``headers`` (set on any answer: a gateway's
  ``x-ratelimit-*``), ``hang`` (never answer), ``error_body`` (200 with an error body),
  ``reject_fields`` (400 when a body has these fields), ``drip_s`` (one byte per N seconds),
  ``close_after`` (close mid-stream after N tokens), ``stream_error`` (an error event after N
  tokens), ``invalid_json`` (events that are not JSON), ``bad_shape`` (events that are JSON of an
  unexpected shape), ``no_finish_reason``, ``echo_prompt``, ``literal_newlines``, ``leading_space``,
  ``repeat`` (the completion N times), ``model`` (the reported model), ``ttft_s``/``token_s``
  (time to first token, between tokens), ``ignore_max_tokens`` (send everything whatever the
  limit), ``piece_chars`` (events of N characters instead of word-like tokens), ``lockstep``
  (before each token after the first, wait up to N seconds until the client reports, through
  :attr:`ScriptedServer.client_seen`, that it shows the text sent so far, trailing whitespace
  aside: a server that holds a piece back makes every such wait run out, counted in
  ``RequestRecord.lockstep_timeouts``), ``contains_all`` (more substrings the prompt must hold
  for the rule to match), ``rewrite`` (answer an edit prompt from what it shows, see
  :func:`rewrite_answer`).

Servers run through :class:`~jupyter_codecomplete.testing.server.LocalServer` (threads, ports).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tornado import iostream, web
from typing_extensions import Unpack

from .server import Listen, LocalServer, Route, hang_up

Rule = dict[str, Any]
# a server's routes: each handler serves its ``path``
Handlers = tuple[type["RecordingHandler"], ...]

_TOKEN_RE = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def split_tokens(text: str) -> list[str]:
    """Split text into token-like pieces: runs of whitespace, words, single punctuation."""
    return _TOKEN_RE.findall(text)


@dataclass
class RequestRecord:
    """What the server saw of one request."""

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
    lockstep_timeouts: int = 0  # ``lockstep`` waits that ran out (the client never saw the text)
    peer: str = ""  # the client's address and port: one connection, one peer


def set_nodelay(handler: web.RequestHandler) -> None:
    """The handler's connection sends each write at once (``TCP_NODELAY``)."""
    stream = getattr(handler.request.connection, "stream", None)
    if isinstance(stream, iostream.IOStream) and not stream.closed():
        stream.set_nodelay(True)


def _peer(request: Any) -> str:
    """``host:port`` of the client's end of the request's connection."""
    address = getattr(getattr(request.connection, "context", None), "address", None)
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address or "")


@dataclass
class UpstreamConfig:
    rules: list[Rule] = field(default_factory=list)
    default: str = "pass\n"
    model: str = "test-coder"
    ttft_s: float = 0.0
    token_s: float = 0.0
    # Each write of a stream sent at once (TCP_NODELAY), as the model servers users run do: any
    # asyncio or uvloop server (uvicorn under vLLM, SGLang, llama-cpp-python, LiteLLM) and Go's
    # (Ollama). False: Nagle's algorithm, tornado's own default until a response finishes (a
    # small write waits for the ACK of the one before it).
    nodelay: bool = True


class ScriptedServer(LocalServer):
    """A model server whose answers come from rules; ``records`` lists every request it saw.

    ``handlers``: its routes, each handler serving its ``path`` (a subclass adds its own)."""

    handlers: ClassVar[Handlers] = ()

    def __init__(self, config: UpstreamConfig | None = None, **listen: Unpack[Listen]) -> None:
        super().__init__(**listen)
        self.config = config or UpstreamConfig()
        self.records: list[RequestRecord] = []
        # ``lockstep`` rules: characters of the suggestion the client says it shows (set by the test)
        self.client_seen = 0

    def rule_for(self, text: str) -> Rule:
        """The first rule whose ``contains`` is in ``text`` ({} when none: the default completion)."""
        for rule in self.config.rules:
            if str(rule.get("contains", "")) in text and all(
                str(s) in text for s in rule.get("contains_all", [])
            ):
                return rule
        return {}

    def set_rules(self, rules: list[Rule], default: str | None = None) -> None:
        self.config.rules = rules
        if default is not None:
            self.config.default = default

    def last(self) -> RequestRecord:
        return self.records[-1]

    def routes(self) -> list[Route]:
        return [(h.path, h) for h in self.handlers]


def rewrite_answer(spec: Mapping[str, Any], prompt: str) -> str | None:
    """The answer of a ``rewrite`` rule: the editable region the prompt shows, rewritten, in the
    format's answer frame; None when the prompt shows no region (the rule's ``completion`` then).

    ``spec``: ``region`` (a regular expression whose first group is the region; its last match in
    the prompt counts), ``strip`` (markers removed from the region, e.g. the cursor's),
    ``replace`` (``[pattern, replacement]`` pairs applied in order with :func:`re.sub`) and
    ``answer`` (the frame, ``{region}`` where the rewritten region goes). So a scripted "model"
    answers an edit prompt in its format from what the prompt contains (the UI tests of
    issue 27: fix ``"prcie"`` when the prompt shows the KeyError and the kernel's candidates; rename
    ``df`` in the other cells when the edit history shows the rename)."""
    matches = re.findall(str(spec["region"]), prompt, flags=re.DOTALL)
    if not matches:
        return None
    last = matches[-1]
    region = str(last[0] if isinstance(last, tuple) else last)
    for marker in spec.get("strip", []):
        region = region.replace(str(marker), "")
    for pattern, replacement in spec.get("replace", []):
        region = re.sub(str(pattern), str(replacement), region)
    return str(spec.get("answer", "{region}")).replace("{region}", region)


class RecordingHandler(web.RequestHandler):
    """A route of a :class:`ScriptedServer` (at ``path``): no XSRF, and it notes when the client hangs up."""

    path: ClassVar[str]

    def initialize(self, upstream: ScriptedServer) -> None:
        self.upstream = upstream
        self.record: RequestRecord | None = None

    def check_xsrf_cookie(self) -> None:  # an API server: no xsrf
        return

    def on_connection_close(self) -> None:
        if self.record is not None and not self.record.finished and not self.record.client_closed:
            self.record.client_closed = True
            self.record.closed_at = time.monotonic()


class ScriptedHandler(RecordingHandler):
    """One completion route: parse, record, pick the rule, play its faults, stream the frames.

    A provider's route overrides the hooks below (its wire format) and nothing else."""

    stream_default = False  # whether a body without "stream" asks for a stream
    content_type = "text/event-stream"

    # -- the provider's wire format
    def prompt_of(self, body: dict[str, Any]) -> tuple[str, str]:
        """(prompt, suffix) of a request body: rules match their concatenation."""
        raise NotImplementedError

    def stops_of(self, body: dict[str, Any]) -> list[str]:
        stops = body.get("stop") or []
        return [stops] if isinstance(stops, str) else list(stops)

    def limit_of(self, body: dict[str, Any]) -> int | None:
        """The most tokens the request allows (None: no limit)."""
        return None

    def error_payload(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "type": "invalid_request_error"}}

    def frame(self, text: str, model: str) -> str:
        """One streamed token."""
        raise NotImplementedError

    def final(self, text: str, finish: str, model: str, n: int) -> str:
        """The stream's last event (with the finish reason); ``no_finish_reason`` leaves it out."""
        raise NotImplementedError

    def end_of_stream(self) -> str:
        """Written after everything else (``[DONE]`` on OpenAI's wire)."""
        return ""

    def whole(self, text: str, finish: str, model: str, n: int) -> dict[str, Any]:
        """A whole answer (not streamed)."""
        raise NotImplementedError

    def error_frame(self, message: str) -> str:
        return "data: " + json.dumps({"error": {"message": message, "type": "server_error"}}) + "\n\n"

    def raw_frame(self, data: str) -> str:
        """One event carrying ``data`` as it is (hostile modes)."""
        return f"data: {data}\n\n"

    def authorized(self) -> bool:
        return True

    # -- the engine
    async def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"{}")
        except json.JSONDecodeError:
            self.set_status(400)
            self.write(self.error_payload(400, "invalid JSON body"))
            return
        record = RequestRecord(
            path=self.request.path,
            body=body,
            headers={k.lower(): v for k, v in self.request.headers.items()},
            peer=_peer(self.request),
        )
        self.record = record
        self.upstream.records.append(record)
        try:
            if not self.authorized():
                self.set_status(401)
                self.write({"message": "Unauthorized", "request_id": f"req-{id(record):x}"})
                return
            prompt, suffix = self.prompt_of(body)
            self.prompt = prompt
            await self.answer(body, self.upstream.rule_for(prompt + suffix), prompt, record)
        finally:
            record.finished = True

    async def answer(self, body: dict[str, Any], rule: Rule, prompt: str, rec: RequestRecord) -> None:
        cfg = self.upstream.config
        for name, value in dict(rule.get("headers") or {}).items():
            self.set_header(str(name), str(value))  # e.g. a gateway's x-ratelimit-* headers
        for name in rule.get("reject_fields", []):
            if name in body:
                self.set_status(400)
                self.write(self.error_payload(400, f"Unrecognized request argument supplied: {name}"))
                return
        if "status" in rule:
            status = int(rule["status"])
            self.set_status(status)
            if "retry_after" in rule:
                self.set_header("Retry-After", str(rule["retry_after"]))
            self.write(rule.get("body", self.error_payload(status, f"scripted status {status}")))
            return
        if rule.get("hang"):
            while not rec.client_closed:  # noqa: ASYNC110 - polls a flag set by tornado's callback
                await asyncio.sleep(0.05)
            return
        if rule.get("error_body"):
            self.write(self.error_payload(500, str(rule["error_body"])))  # with status 200
            return
        text = str(rule.get("completion", cfg.default)) * int(rule.get("repeat", 1))
        if "rewrite" in rule:
            text = rewrite_answer(rule["rewrite"], prompt) or text
        if rule.get("echo_prompt"):
            text = prompt + text
        if rule.get("leading_space"):
            text = " " + text
        if rule.get("literal_newlines"):
            text = text.replace("\n", "\\n")
        finish = "stop"
        for s in self.stops_of(body):
            i = text.find(s) if s else -1
            if i != -1:
                text = text[:i]
        piece = int(rule.get("piece_chars", 0))
        tokens = [text[i : i + piece] for i in range(0, len(text), piece)] if piece else split_tokens(text)
        limit = None if rule.get("ignore_max_tokens") else self.limit_of(body)
        if isinstance(limit, int) and 0 <= limit < len(tokens):
            tokens, finish = tokens[:limit], "length"
        model = str(rule.get("model", cfg.model))
        ttft = float(rule.get("ttft_s", cfg.ttft_s))
        if not body.get("stream", self.stream_default):
            if ttft:
                await asyncio.sleep(ttft)
            rec.tokens_sent = len(tokens)
            self.set_header("Content-Type", "application/json")
            self.write(self.whole("".join(tokens), finish, model, len(tokens)))
            return
        self.set_header("Content-Type", self.content_type)
        self.set_header("Cache-Control", "no-cache")
        if ttft:
            await asyncio.sleep(ttft)
        await self.stream(tokens, finish, model, rule, rec)

    async def _lockstep(self, shown: int, wait: float, rec: RequestRecord) -> None:
        """Wait (at most ``wait`` seconds) until the client shows ``shown`` characters."""
        end = time.monotonic() + wait
        while self.upstream.client_seen < shown and not rec.client_closed:
            if time.monotonic() > end:
                rec.lockstep_timeouts += 1
                return
            await asyncio.sleep(0.002)

    async def stream(
        self, tokens: list[str], finish: str, model: str, rule: Rule, rec: RequestRecord
    ) -> None:
        tok_s = float(rule.get("token_s", self.upstream.config.token_s))
        drip = float(rule.get("drip_s", 0))
        close_after = rule.get("close_after")
        stream_error = rule.get("stream_error")
        lockstep = float(rule.get("lockstep", 0))
        if self.upstream.config.nodelay:
            set_nodelay(self)
        for i, tok in enumerate(tokens):
            if lockstep and i:
                await self._lockstep(len("".join(tokens[:i]).rstrip()), lockstep, rec)
            if close_after is not None and i >= int(close_after):
                hang_up(self)
                return
            failing = stream_error is not None and i >= int(stream_error)
            if failing:
                payload = self.error_frame("scripted stream error")
            elif rule.get("invalid_json"):
                payload = self.raw_frame("{not json")
            elif rule.get("bad_shape"):
                payload = self.raw_frame("[1, 2, 3]")
            else:
                payload = self.frame(tok, model)
            if rec.client_closed:
                rec.tokens_after_close += 1
                if rec.tokens_after_close > 50:
                    return
            try:
                for part in payload if drip else [payload]:
                    self.write(part)
                    await self.flush()
                    if drip:
                        await asyncio.sleep(drip)
            except iostream.StreamClosedError:
                rec.client_closed = True
                rec.closed_at = rec.closed_at or time.monotonic()
                return
            if failing:
                return
            rec.tokens_sent += 1
            rec.token_times.append(time.monotonic())
            if i + 1 < len(tokens) and tok_s:
                await asyncio.sleep(tok_s)
        try:
            if not rule.get("no_finish_reason"):
                self.write(self.final("".join(tokens), finish, model, len(tokens)))
            self.write(self.end_of_stream())
            await self.flush()
        except iostream.StreamClosedError:
            rec.client_closed = True
