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

from typing import Any

import httpx
from pydantic import Field

from .. import errors
from .base import Backend, Describe, Description, ModelConfig
from .http import Call, Event, HttpStreamingChat, HttpStreamingLLM, HttpTransport
from .quirks import resolve_quirks

DEFAULT_URL = "https://api.openai.com/v1"

def _sampling(
    body: dict[str, Any], llm: OpenAICompletionsLLM | OpenAIChatLLM, stop: list[str], kwargs: dict[str, Any]
) -> None:
    """Add what both OpenAI routes take the same way: sampling, streaming, stops, then the
    configured ``extra_body`` and anything else bound on the model, sent as it is."""
    body["temperature"] = float(kwargs.pop("temperature", llm.temperature))
    body["stream"] = llm.streaming
    top_p = kwargs.pop("top_p", llm.top_p)
    if top_p is not None:
        body["top_p"] = top_p
    if stop:
        body["stop"] = stop
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


def _describe(llm: HttpTransport, config: ModelConfig) -> Describe:
    async def describe() -> Description:
        headers = dict(config.headers)
        key = config.resolved_api_key()
        if key:
            headers.setdefault("Authorization", f"Bearer {key}")
        base = (config.base_url or DEFAULT_URL).rstrip("/")
        async with httpx.AsyncClient(timeout=5.0) as client:
            try:
                r = await client.get(base + "/models", headers=headers)
            except httpx.TimeoutException as exc:
                raise errors.timed_out(base + "/models", exc, config.secrets()) from exc
            except httpx.TransportError as exc:
                raise errors.unreachable(base + "/models", exc, config.secrets()) from exc
        if r.status_code >= 400:
            secrets = config.secrets()
            raise errors.from_response(r.status_code, r.headers, r.content, secrets, base + "/models")
        data = r.json().get("data") or []
        ids = [str(m.get("id")) for m in data if isinstance(m, dict)]
        want = config.api_model or config.model
        model = want if want in ids else (ids[0] if ids else getattr(llm, "answered_model", None))
        return Description(model=model)

    return describe


def openai_completions(config: ModelConfig) -> Backend:
    """``/v1/completions``: the suffix goes natively only when ``options.native_suffix`` says so."""
    quirks = resolve_quirks("openai", config.server, config.quirks)
    kwargs = OpenAICompletionsLLM.config_kwargs(config, quirks)
    llm = OpenAICompletionsLLM(
        base_url=(config.base_url or DEFAULT_URL).rstrip("/"),
        extra_body=dict(config.options.get("extra_body") or {}),
        **kwargs,
    )
    return Backend(config=config, llm=llm, kind="openai", quirks=quirks, describe=_describe(llm, config))


def openai_chat(config: ModelConfig) -> Backend:
    quirks = resolve_quirks("openai-chat", config.server, config.quirks)
    llm = OpenAIChatLLM(
        base_url=(config.base_url or DEFAULT_URL).rstrip("/"),
        extra_body=dict(config.options.get("extra_body") or {}),
        **OpenAIChatLLM.config_kwargs(config, quirks),
    )
    return Backend(
        config=config, llm=llm, kind="openai-chat", chat=True, quirks=quirks, describe=_describe(llm, config)
    )
