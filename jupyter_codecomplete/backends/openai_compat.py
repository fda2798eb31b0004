"""OpenAI-compatible endpoints (legacy ``/v1/completions`` and ``/v1/chat/completions``).

``openai`` (legacy completions) is an :class:`~.http.HttpStreamingLLM`: the body is built here and
the stream read by the shared httpx base, which owns what real "OpenAI-compatible" servers need:

* the response stream is read inside ``async with`` so that closing the generator closes the
  HTTP response (the server sees the disconnect and stops generating);
* provider errors become :class:`BackendError` through :mod:`jupyter_codecomplete.errors`
  (``429``/``502``/``503``/``504`` with ``Retry-After``, a ``200`` carrying an error body, an error
  event inside the stream);
* a ``400`` naming an optional field (``suffix``, ``stop``) is retried once without it, and the field
  is not sent to that server again;
* the completion text is repaired as the model's :class:`Quirks` declare (echoed prompt, literal
  ``\\n``, a stray leading space); an empty completion is one empty chunk, not an error.

``openai-chat`` (``/v1/chat/completions``) is an :class:`~.http.HttpStreamingChat` on the same base.
Neither goes through the OpenAI SDK or langchain-openai: building and validating the request
there was most of the server's time from a websocket frame to the model request.

The client never retries on its own (a retry in the typing path only adds latency); timeouts come
from the model config. ``native_suffix`` is off unless ``options["native_suffix"]`` turns it on and the
server's quirks allow it (llama-cpp-python's ``suffix`` is broken: :data:`quirks.SERVER_QUIRKS`);
:func:`~.base.native_suffix` decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import httpx
from pydantic import Field

from .base import LocalServer, ModelConfig, ProviderKey
from .discovery import Candidate, openai_candidates
from .http import Call, Event, HttpBackend, HttpStreamingChat, HttpStreamingLLM, fetch_models
from .quirks import Quirks, resolve_quirks

DEFAULT_URL = "https://api.openai.com/v1"


def _sampling(
    body: dict[str, Any], llm: OpenAICompletionsLLM | OpenAIChatLLM, stop: list[str], kwargs: dict[str, Any]
) -> None:
    """Add what both OpenAI routes take the same way: sampling, streaming, stops, then the
    configured ``extra_body`` and anything else bound on the model, sent as it is."""
    body["temperature"] = float(kwargs.pop("temperature", llm.temperature))
    body["stream"] = llm.streaming
    body.update(llm.optional_sampling(stop, kwargs))
    body.update(llm.extra_body)
    body.update(kwargs)


class OpenAICompletionsLLM(HttpStreamingLLM):
    """Legacy ``POST /v1/completions`` on the shared httpx base: one JSON body, server-sent events.

    Built here rather than through the OpenAI SDK and langchain-openai: the body is a small dict,
    the stream is read once by :class:`HttpStreamingLLM` (cancellation, the one error mapping,
    retry-without-a-rejected-field, quirk repairs), and nothing is validated twice on the way. That
    path cost most of the server's time from a websocket frame to the model request
    (docs/performance.md)."""

    # Sent as they are (a config's ``options.extra_body``: e.g. vLLM's ``min_tokens``).
    extra_body: dict[str, Any] = Field(default_factory=dict)
    # OpenAI's end-user field: the session key goes there too (backends/affinity.py)
    session_field: ClassVar[str | None] = "user"

    @property
    def _llm_type(self) -> str:
        return "openai-completions"

    def _request(self, prompt: str, stop: list[str], kwargs: dict[str, Any]) -> Call:
        body: dict[str, Any] = {
            "model": self.model or "default",
            "prompt": prompt,
            "max_tokens": int(kwargs.pop("max_tokens", self.max_tokens)),
        }
        suffix = kwargs.pop("suffix", None)
        if suffix is not None:
            body["suffix"] = suffix
        _sampling(body, self, stop, kwargs)
        return Call("/completions", body, "sse" if self.streaming else "json", before_cursor=prompt)

    def _read_event(self, data: Any) -> Event:
        choices = data.get("choices") or []
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        return Event(
            text=str(choice.get("text") or ""),
            done=not self.streaming,  # a stream ends with [DONE] or its end
            model=data.get("model") or None,
            finish_reason=choice.get("finish_reason"),
        )


class OpenAIChatLLM(HttpStreamingChat):
    """``POST /v1/chat/completions`` on the shared httpx base (the same errors, retries and
    cancellation as every other HTTP backend)."""

    extra_body: dict[str, Any] = Field(default_factory=dict)
    session_field: ClassVar[str | None] = "user"

    @property
    def _llm_type(self) -> str:
        return "openai-chat"

    def _chat_request(self, messages: list[dict[str, Any]], stop: list[str], kwargs: dict[str, Any]) -> Call:
        kwargs.pop("max_tokens", None)
        body: dict[str, Any] = {
            "model": self.model or "default",
            "messages": messages,
            "max_completion_tokens": int(kwargs.pop("max_completion_tokens", self.max_tokens)),
        }
        _sampling(body, self, stop, kwargs)
        return Call("/chat/completions", body, "sse" if self.streaming else "json")

    def _read_event(self, data: Any) -> Event:
        choices = data.get("choices") or []
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        part = choice.get("delta") or choice.get("message") or {}
        text = part.get("content") if isinstance(part, dict) else None
        return Event(
            text=str(text or ""),
            done=not self.streaming,
            model=data.get("model") or None,
            finish_reason=choice.get("finish_reason"),
        )


@dataclass
class OpenAICompletionsBackend(HttpBackend):
    """``/v1/completions``: the suffix goes natively only when ``options.native_suffix`` says so."""

    kind: ClassVar[str] = "openai"
    default_url: ClassVar[str | None] = DEFAULT_URL
    provider_key: ClassVar[ProviderKey | None] = ProviderKey("OPENAI_API_KEY", ("api.openai.com",))
    # LM Studio serves the OpenAI routes only (discovery names it as a server of this kind)
    local_servers: ClassVar[tuple[LocalServer, ...]] = (LocalServer("lmstudio", 1234, 2),)
    wire: ClassVar[str | None] = "openai"
    custom_form: ClassVar[bool] = True

    @classmethod
    def create(cls, config: ModelConfig) -> OpenAICompletionsBackend:
        quirks = resolve_quirks(cls.kind, config.server, config.quirks)
        return cls(config=config, llm=_model(OpenAICompletionsLLM, config, quirks), quirks=quirks)

    @classmethod
    async def probe(cls, server: str, client: httpx.AsyncClient, root: str, order: int) -> list[Candidate]:
        """LM Studio: one candidate per model it lists (embedding models left out)."""
        ids = await fetch_models(client, root + "/v1/models")
        return openai_candidates([i for i in ids if "embed" not in i.lower()], root, server, order)


@dataclass
class OpenAIChatBackend(HttpBackend):
    """``/v1/chat/completions``: a chat model (the ``chat`` prompt style, no suffix)."""

    kind: ClassVar[str] = "openai-chat"
    default_url: ClassVar[str | None] = DEFAULT_URL
    provider_key: ClassVar[ProviderKey | None] = ProviderKey("OPENAI_API_KEY", ("api.openai.com",))
    wire: ClassVar[str | None] = "openai"
    custom_form: ClassVar[bool] = True

    @classmethod
    def create(cls, config: ModelConfig) -> OpenAIChatBackend:
        quirks = resolve_quirks(cls.kind, config.server, config.quirks)
        return cls(config=config, llm=_model(OpenAIChatLLM, config, quirks), chat=True, quirks=quirks)


M = TypeVar("M", OpenAICompletionsLLM, OpenAIChatLLM)


def _model(model: type[M], config: ModelConfig, quirks: Quirks) -> M:
    """Either OpenAI route's model, configured the same way (``options.extra_body`` sent as it is)."""
    return model(
        base_url=(config.base_url or DEFAULT_URL).rstrip("/"),
        extra_body=dict(config.options.get("extra_body") or {}),
        **model.config_kwargs(config, quirks),
    )
