"""Scripted model servers for the native provider APIs: Ollama, llama.cpp server, Mistral FIM.

Real HTTP servers on loopback ports (tornado, on their own thread), built on
:class:`~jupyter_codecomplete.testing.openai_upstream.OpenAIUpstream`: they keep its OpenAI routes
(Ollama, llama.cpp and Mistral all serve ``/v1`` too), its request records and its *rules*, and add
each provider's documented native routes with their own framing:

* :class:`OllamaUpstream`: ``POST /api/generate`` (NDJSON stream, ``done``/``done_reason`` last line,
  ``{"error": ...}`` lines), ``POST /api/show`` (``template``, ``capabilities``, ``details``,
  ``model_info``), ``GET /api/tags``, ``GET /api/version``;
* :class:`LlamaCppUpstream`: ``POST /infill`` and ``POST /completion`` (server-sent events
  ``{"content", "stop"}``, the last with ``stop: true``), ``GET /props``, ``GET /health``;
* :class:`MistralUpstream`: ``POST /v1/fim/completions`` (chat-completion shaped chunks, ``[DONE]``),
  an ``Authorization: Bearer`` check when ``api_key`` is set.

Rules (first whose ``contains`` is in prompt + suffix wins), faults and records are the engine's
(:mod:`jupyter_codecomplete.testing.scripted`, where every rule key is listed): each route here only
says how its provider frames a token, the last event, a whole answer and an error.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, ClassVar

from typing_extensions import Unpack

from ..backends import builtin_kinds, kind_attribute
from .openai_upstream import OpenAIUpstream, UpstreamConfig
from .scripted import Handlers, RecordingHandler, ScriptedHandler
from .server import Listen


class _NativeHandler(ScriptedHandler):
    """A native completion route: it streams unless the body says ``"stream": false``."""

    stream_default = True


# ------------------------------------------------------------------------------------------ Ollama


class OllamaGenerateHandler(_NativeHandler):
    path = r"/api/generate"
    content_type = "application/x-ndjson"

    def prompt_of(self, body: dict[str, Any]) -> tuple[str, str]:
        return str(body.get("prompt", "")), str(body.get("suffix") or "")

    def stops_of(self, body: dict[str, Any]) -> list[str]:
        stops = (body.get("options") or {}).get("stop") or []
        return [stops] if isinstance(stops, str) else list(stops)

    def limit_of(self, body: dict[str, Any]) -> int | None:
        n = (body.get("options") or {}).get("num_predict")
        return n if isinstance(n, int) and n >= 0 else None

    def error_payload(self, status: int, message: str) -> dict[str, Any]:
        return {"error": message}

    def error_frame(self, message: str) -> str:
        return json.dumps({"error": message}) + "\n"

    def raw_frame(self, data: str) -> str:
        return data + "\n"

    def _now(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())

    def frame(self, text: str, model: str) -> str:
        return json.dumps({"model": model, "created_at": self._now(), "response": text, "done": False}) + "\n"

    def final(self, text: str, finish: str, model: str, n: int) -> str:
        return json.dumps(self.whole("", finish, model, n)) + "\n"

    def whole(self, text: str, finish: str, model: str, n: int) -> dict[str, Any]:
        return {
            "model": model,
            "created_at": self._now(),
            "response": text,
            "done": True,
            "done_reason": finish,
            "total_duration": 1000,
            "eval_count": n,
        }

    async def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"{}")
        except json.JSONDecodeError:
            body = {}
        name = body.get("model")
        if isinstance(self.upstream, OllamaUpstream) and name not in self.upstream.model_names():
            self.set_status(404)
            self.write({"error": f"model '{name}' not found"})
            return
        await super().post()


class OllamaShowHandler(RecordingHandler):
    path = r"/api/show"

    def post(self) -> None:
        body = json.loads(self.request.body or b"{}")
        up = self.upstream
        assert isinstance(up, OllamaUpstream)
        name = body.get("model") or body.get("name")
        model = up.models.get(str(name))
        if model is None:
            self.set_status(404)
            self.write({"error": f"model '{name}' not found"})
            return
        self.write(
            {
                "modelfile": f"FROM {name}",
                "parameters": "",
                "template": model.get("template", "{{ .Prompt }}"),
                "details": {
                    "family": model.get("family", "llama"),
                    "parameter_size": "1.5B",
                    "quantization_level": "Q4_K_M",
                    "format": "gguf",
                },
                "model_info": {
                    f"{model.get('family', 'llama')}.context_length": model.get("context_length", 32768)
                },
                "capabilities": model.get("capabilities", ["completion"]),
            }
        )


class OllamaTagsHandler(RecordingHandler):
    path = r"/api/tags"

    def get(self) -> None:
        up = self.upstream
        assert isinstance(up, OllamaUpstream)
        self.write(
            {
                "models": [
                    {
                        "name": name,
                        "model": name,
                        "size": 1000,
                        "details": {"family": m.get("family", "llama")},
                    }
                    for name, m in up.models.items()
                ]
            }
        )


class OllamaVersionHandler(RecordingHandler):
    path = r"/api/version"

    def get(self) -> None:
        self.write({"version": "0.12.0"})


FIM_TEMPLATE = (
    "{{- if .Suffix }}<|fim_prefix|>{{ .Prompt }}<|fim_suffix|>{{ .Suffix }}<|fim_middle|>"
    "{{- else }}{{ .Prompt }}{{- end }}"
)


class OllamaRootHandler(RecordingHandler):
    path = r"/"

    def get(self) -> None:
        self.write("Ollama is running")


# Ollama's models: name → ``{"capabilities": [...], "template": str, "family": str}``
Models = dict[str, dict[str, Any]]


class OllamaUpstream(OpenAIUpstream):
    """``models``: name → ``{"capabilities": [...], "template": str, "family": str}``."""

    wire = "ollama"
    native_root = True
    handlers: ClassVar[Handlers] = (*OpenAIUpstream.handlers, OllamaGenerateHandler, OllamaShowHandler)
    handlers += (OllamaTagsHandler, OllamaVersionHandler, OllamaRootHandler)

    def __init__(
        self, config: UpstreamConfig | None = None, *, models: Models | None = None, **listen: Unpack[Listen]
    ) -> None:
        super().__init__(config, **listen)
        self.models: Models = (
            models
            if models is not None
            else {
                self.config.model: {
                    "capabilities": ["completion", "insert"],
                    "template": FIM_TEMPLATE,
                    "family": "qwen2",
                },
            }
        )

    def model_names(self) -> list[str]:
        return list(self.models)


# --------------------------------------------------------------------------------------- llama.cpp


class _LlamaCppHandler(_NativeHandler):
    def limit_of(self, body: dict[str, Any]) -> int | None:
        n = body.get("n_predict")
        return n if isinstance(n, int) and n >= 0 else None

    def frame(self, text: str, model: str) -> str:
        return "data: " + json.dumps({"content": text, "stop": False, "index": 0}) + "\n\n"

    def final(self, text: str, finish: str, model: str, n: int) -> str:
        return "data: " + json.dumps(self.whole("", finish, model, n)) + "\n\n"

    def whole(self, text: str, finish: str, model: str, n: int) -> dict[str, Any]:
        return {
            "content": text,
            "stop": True,
            "model": model,
            "stop_type": "eos" if finish == "stop" else "limit",
            "tokens_predicted": n,
            "timings": {"predicted_n": n},
        }


class LlamaCppInfillHandler(_LlamaCppHandler):
    path = r"/infill"

    def prompt_of(self, body: dict[str, Any]) -> tuple[str, str]:
        extra = "".join(str(c.get("text", "")) for c in body.get("input_extra") or [] if isinstance(c, dict))
        return extra + str(body.get("input_prefix", "")) + str(body.get("prompt", "")), str(
            body.get("input_suffix", "")
        )

    async def post(self) -> None:
        up = self.upstream
        if isinstance(up, LlamaCppUpstream) and not up.fim:
            self.set_status(501)
            self.write(
                self.error_payload(501, "Infill is not supported by this model: prefix token is missing.")
            )
            return
        await super().post()


class LlamaCppCompletionHandler(_LlamaCppHandler):
    path = r"/completion"

    def prompt_of(self, body: dict[str, Any]) -> tuple[str, str]:
        prompt = body.get("prompt", "")
        return (prompt if isinstance(prompt, str) else json.dumps(prompt)), ""


class LlamaCppPropsHandler(RecordingHandler):
    path = r"/props"

    def get(self) -> None:
        up = self.upstream
        self.write(
            {
                "default_generation_settings": {"n_ctx": 8192, "params": {"n_predict": -1}},
                "total_slots": 1,
                "model_path": f"/models/{up.config.model}.gguf",
                "chat_template": "",
                "build_info": "b6000-test",
            }
        )


class LlamaCppTokenizeHandler(RecordingHandler):
    """``POST /tokenize`` as llama.cpp answers it: a special token of the model's vocabulary is one
    token (its piece the token's text), other text one token per character (ids are made up)."""

    path = r"/tokenize"

    def post(self) -> None:
        up = self.upstream
        body = json.loads(self.request.body or b"{}")
        content = str(body.get("content", ""))
        vocabulary = up.vocabulary if isinstance(up, LlamaCppUpstream) else ()
        pieces = [content] if content in vocabulary else list(content)
        if body.get("with_pieces"):
            self.write({"tokens": [{"id": 1000 + i, "piece": p} for i, p in enumerate(pieces)]})
        else:
            self.write({"tokens": [1000 + i for i, _ in enumerate(pieces)]})


class LlamaCppHealthHandler(RecordingHandler):
    path = r"/health"

    def get(self) -> None:
        self.write({"status": "ok"})


class LlamaCppUpstream(OpenAIUpstream):
    """``fim``: whether the loaded model has FIM tokens (else ``/infill`` answers 501);
    ``vocabulary``: the model's special tokens, for ``/tokenize``."""

    wire = "llamacpp"
    native_root = True
    handlers: ClassVar[Handlers] = (*OpenAIUpstream.handlers, LlamaCppInfillHandler, LlamaCppPropsHandler)
    handlers += (LlamaCppCompletionHandler, LlamaCppTokenizeHandler, LlamaCppHealthHandler)

    def __init__(
        self,
        config: UpstreamConfig | None = None,
        *,
        fim: bool = True,
        vocabulary: tuple[str, ...] = (),
        **listen: Unpack[Listen],
    ) -> None:
        super().__init__(config, **listen)
        self.fim = fim
        self.vocabulary = vocabulary


# ----------------------------------------------------------------------------------------- Mistral


class MistralFimHandler(_NativeHandler):
    path = r"/v1/fim/completions"
    stream_default = False

    def prompt_of(self, body: dict[str, Any]) -> tuple[str, str]:
        return str(body.get("prompt", "")), str(body.get("suffix") or "")

    def limit_of(self, body: dict[str, Any]) -> int | None:
        n = body.get("max_tokens")
        return n if isinstance(n, int) and n >= 0 else None

    def error_payload(self, status: int, message: str) -> dict[str, Any]:
        return {"object": "error", "message": message, "type": "invalid_request_error", "code": status}

    def error_frame(self, message: str) -> str:
        return "data: " + json.dumps({"object": "error", "message": message, "type": "server_error"}) + "\n\n"

    def authorized(self) -> bool:
        up = self.upstream
        key = getattr(up, "api_key", None)
        return key is None or self.request.headers.get("Authorization") == f"Bearer {key}"

    def _chunk(self, text: str, finish: str | None, model: str) -> dict[str, Any]:
        return {
            "id": "cmpl-" + uuid.uuid4().hex[:12],
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
        }

    def frame(self, text: str, model: str) -> str:
        return "data: " + json.dumps(self._chunk(text, None, model)) + "\n\n"

    def final(self, text: str, finish: str, model: str, n: int) -> str:
        return "data: " + json.dumps(self._chunk("", finish, model)) + "\n\ndata: [DONE]\n\n"

    def whole(self, text: str, finish: str, model: str, n: int) -> dict[str, Any]:
        return {
            "id": "cmpl-" + uuid.uuid4().hex[:12],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "usage": {"prompt_tokens": 1, "completion_tokens": n, "total_tokens": n + 1},
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
            ],
        }


class MistralUpstream(OpenAIUpstream):
    wire = "mistral"
    handlers: ClassVar[Handlers] = (*OpenAIUpstream.handlers, MistralFimHandler)

    def __init__(
        self, config: UpstreamConfig | None = None, *, api_key: str | None = None, **listen: Unpack[Listen]
    ) -> None:
        super().__init__(config or UpstreamConfig(model="codestral-latest"), **listen)
        self.api_key = api_key


def _fakes(cls: type[OpenAIUpstream] = OpenAIUpstream) -> dict[str, type[OpenAIUpstream]]:
    """Every scripted fake by the wire it speaks (the subclasses of :class:`OpenAIUpstream`)."""
    out = {cls.wire: cls}
    for sub in cls.__subclasses__():
        for wire, fake in _fakes(sub).items():
            out.setdefault(wire, fake)
    return out


def served_kinds() -> list[str]:
    """The built-in backend kinds that talk to a model server over HTTP (``Backend.wire``), each
    served in tests by the fake of its wire (:func:`upstream_for`)."""
    return [kind for kind in builtin_kinds() if kind_attribute(kind, "wire")]


def upstream_for(backend: str, model: str = "m", api_key: str | None = None) -> OpenAIUpstream:
    """The scripted fake of the model server a backend kind talks to: the one that speaks its
    ``Backend.wire`` (the OpenAI-compatible one for a kind with none), not yet started."""
    config = UpstreamConfig(model=model)
    fake = _fakes().get(kind_attribute(backend, "wire") or "openai", OpenAIUpstream)
    if fake is MistralUpstream:
        return MistralUpstream(config, api_key=api_key)
    return fake(config)
