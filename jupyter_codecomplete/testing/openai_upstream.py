"""A scripted model server that speaks the OpenAI wire format, for tests, UI tests and benchmarks.

It is a real HTTP server on a loopback port (tornado, in its own thread or as a process), not a
mock: requests go through sockets, streams are real server-sent events, and it records what the
client did (bodies, headers, when the client hung up, how many tokens it generated after that).

Behaviour comes from *rules*: ``{"contains": "<substring of the prompt>", "completion": "..."}``;
the first rule whose ``contains`` is in the prompt (or chat messages) decides, else ``default``.
Rules, faults and records are the engine's (:mod:`jupyter_codecomplete.testing.scripted`, where
every rule key is listed); this module only frames its answers the OpenAI way: ``/v1/completions``
and ``/v1/chat/completions`` (server-sent events, ``[DONE]`` last), ``/v1/models``, and ``/_stats``
(the records as JSON, for a client in another process).

Run as a process: ``python -m jupyter_codecomplete.testing.openai_upstream --port 8911 --rules R.json``.
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from typing import Any, ClassVar

from .scripted import (
    Handlers,
    RecordingHandler,
    RequestRecord,
    ScriptedHandler,
    ScriptedServer,
    UpstreamConfig,
    split_tokens,
)

__all__ = ["OpenAIUpstream", "RequestRecord", "UpstreamConfig", "main", "split_tokens"]


class OpenAIModelsHandler(RecordingHandler):
    path = r"/v1/models"

    def get(self) -> None:
        cfg = self.upstream.config
        self.write({"object": "list", "data": [{"id": cfg.model, "object": "model", "owned_by": "test"}]})


class RecordsHandler(RecordingHandler):
    """The requests seen so far, as JSON (for a client in another process)."""

    path = r"/_stats"

    def get(self) -> None:
        self.write({"requests": [r.__dict__ for r in self.upstream.records]})


class OpenAICompletionsHandler(ScriptedHandler):
    """``/v1/completions`` (``chat = False``) and, as a subclass, ``/v1/chat/completions``."""

    path = r"/v1/completions"
    chat = False

    def prompt_of(self, body: dict[str, Any]) -> tuple[str, str]:
        if self.chat:
            return "\n".join(str(m.get("content", "")) for m in body.get("messages", [])), ""
        prompt = body.get("prompt", "")
        if isinstance(prompt, list):
            prompt = "".join(str(p) for p in prompt)
        # the suffix counts as prompt here (an echoed prompt repeats it too)
        return str(prompt) + str(body.get("suffix") or ""), ""

    def limit_of(self, body: dict[str, Any]) -> int | None:
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        return limit if isinstance(limit, int) else None

    def prepare(self) -> None:
        self.cid = f"cmpl-{uuid.uuid4().hex[:12]}"

    def _answer(self, text: str, finish: str | None, model: str, *, stream: bool) -> dict[str, Any]:
        choice: dict[str, Any]
        if not self.chat:
            kind = "text_completion"
            choice = {"index": 0, "text": text, "finish_reason": finish, "logprobs": None}
        elif stream:
            kind = "chat.completion.chunk"
            choice = {"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}
        else:
            kind = "chat.completion"
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        created = int(time.time())
        return {"id": self.cid, "object": kind, "created": created, "model": model, "choices": [choice]}

    def frame(self, text: str, model: str) -> str:
        return "data: " + json.dumps(self._answer(text, None, model, stream=True)) + "\n\n"

    def final(self, text: str, finish: str, model: str, n: int) -> str:
        return "data: " + json.dumps(self._answer("", finish, model, stream=True)) + "\n\n"

    def end_of_stream(self) -> str:
        return "data: [DONE]\n\n"

    def whole(self, text: str, finish: str, model: str, n: int) -> dict[str, Any]:
        answer = self._answer(text, finish, model, stream=False)
        answer["usage"] = {"prompt_tokens": len(split_tokens(self.prompt)), "completion_tokens": n}
        return answer


class OpenAIChatCompletionsHandler(OpenAICompletionsHandler):
    path = r"/v1/chat/completions"
    chat = True


class OpenAIUpstream(ScriptedServer):
    """The OpenAI-format server. ``start()`` runs it on its own thread and event loop; ``stop()`` ends it."""

    # the wire it speaks: a backend kind whose ``Backend.wire`` is this is served by it in tests
    wire = "openai"
    # its backend kind takes the server's root as ``base_url`` (a native API), not the ``/v1`` routes
    native_root = False

    handlers: ClassVar[Handlers] = (
        OpenAIModelsHandler,
        OpenAICompletionsHandler,
        OpenAIChatCompletionsHandler,
        RecordsHandler,
    )

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def backend_url(self) -> str:
        """The ``base_url`` a model config of this wire's backend kind gives (the OpenAI routes' ``/v1``;
        the native servers' own root)."""
        return self.root_url if self.native_root else self.base_url

    def model_config(self, **overrides: Any) -> dict[str, Any]:
        """A ``completion_model`` setting that points the ``openai`` backend here (raw prompts)."""
        return {
            "backend": "openai",
            "base_url": self.base_url,
            "model": self.config.model,
            "style": "raw",
            "timeout": 5.0,
            **overrides,
        }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, default=8911)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--rules", help="JSON file: a list of rules")
    parser.add_argument("--default", default="pass\n")
    parser.add_argument("--model", default="test-coder")
    parser.add_argument("--ttft-ms", type=float, default=0.0)
    parser.add_argument("--token-ms", type=float, default=0.0)
    parser.add_argument(
        "--nagle", action="store_true", help="stream with Nagle's algorithm on (no TCP_NODELAY)"
    )
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
        nodelay=not args.nagle,
    )
    OpenAIUpstream(cfg, port=args.port, host=args.host).serve_forever("scripted upstream")


if __name__ == "__main__":
    main()
