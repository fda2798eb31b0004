"""The default completion handler: prompt | model | output parsing, as a LangChain runnable.

For each request it picks the model (routing by language or MIME type), the prompt style, builds
the prompt with the prompt engine, streams the model with ``astream`` and cleans the stream with
the post-processing pipeline. When the pipeline says the suggestion has ended, or the request
is cancelled, the upstream stream is closed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableGenerator, RunnableLambda

from ..backends import Backend, ModelConfig, make_backend
from ..postprocess import Pipeline, PostprocessContext, make_pipeline
from ..prompting import Budget, BuiltPrompt, PromptRequest, PromptStyle, StyleRegistry, build_prompt
from ..protocol import InlineCompletionRequest, ServingModel
from .base import BaseInlineCompletionHandler, CompletionError, with_deadlines
from .recent import RecentCompletions, fingerprint

_CLOSERS = frozenset(")]}>\"'`;:, \t")
# Requests with more text than this are prepared (prompt, cursor analysis) on a worker thread, so
# the event loop is never held by one large request.
OFF_LOOP_CHARS = 256_000


def request_size(request: InlineCompletionRequest) -> int:
    """Characters of text a request carries (prefix, suffix, cells, files)."""
    return (
        len(request.prefix)
        + len(request.suffix)
        + sum(len(c.source) for c in (*request.cells_above, *request.cells_below))
        + sum(len(f.content) for f in request.files)
    )


def is_single_line(prefix: str, suffix: str) -> bool:
    """Mid-line cursor (text other than closers after it on the line) → a single-line suggestion."""
    rest = suffix.split("\n", 1)[0]
    return any(ch not in _CLOSERS for ch in rest)


def chunk_text(chunk: Any) -> str:
    """The text of one streamed model chunk (a str from an LLM, a message chunk from a chat model)."""
    return chunk if isinstance(chunk, str) else str(chunk.text)


def _texts(chunks: Iterator[Any]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk_text(chunk)


async def _atexts(chunks: AsyncIterator[Any]) -> AsyncIterator[str]:
    async for chunk in chunks:
        yield chunk_text(chunk)


@dataclass
class Prepared:
    """Everything decided about one request before the model is called."""

    key: str
    backend: Backend
    style: PromptStyle
    built: BuiltPrompt
    postprocess: PostprocessContext
    max_tokens: int
    stop: list[str]
    first_timeout: float
    total_timeout: float
    bind: dict[str, Any] = field(default_factory=dict)


class DefaultInlineCompletionHandler(BaseInlineCompletionHandler, Runnable[InlineCompletionRequest, str]):
    """Serves completions from the configured models.

    ``settings`` keys: ``models`` (name → :class:`ModelConfig`, at least ``"completion"``),
    ``routes`` (language or MIME type → model name), ``styles`` (:class:`StyleRegistry`),
    ``repo_name`` (str).
    """

    def __init__(self, *, log: Any = None, settings: dict[str, Any] | None = None) -> None:
        super().__init__(log=log, settings=settings)
        models = self.settings.get("models") or {}
        self.models: dict[str, ModelConfig] = {
            k: v if isinstance(v, ModelConfig) else ModelConfig.model_validate(v) for k, v in models.items()
        }
        self.routes: dict[str, str] = dict(self.settings.get("routes") or {})
        self.styles: StyleRegistry = self.settings.get("styles") or StyleRegistry()
        self.repo_name: str | None = self.settings.get("repo_name")
        self._backends: dict[str, Backend] = {}
        self._warm: set[str] = set()
        self._reported: dict[str, str | None] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.recent = RecentCompletions(self.settings.get("recent_completions", 256))
        self._fingerprints: dict[str, str] = {}

    # -- model choice -----------------------------------------------------------------------------
    def route(self, request: InlineCompletionRequest | None) -> str:
        if request is not None:
            for key in (request.mime, request.language):
                if key and key in self.routes and self.routes[key] in self.models:
                    return self.routes[key]
        if "completion" in self.models:
            return "completion"
        if not self.models:
            raise CompletionError(
                "no_model",
                "No model configured",
                "Configure c.CodeCompleteApp.completion_model (see the docs) or install the embedded model.",
            )
        return next(iter(self.models))

    def backend(self, key: str) -> Backend:
        if key not in self._backends:
            self._backends[key] = make_backend(self.models[key])
        return self._backends[key]

    def replace_model(self, key: str, config: ModelConfig) -> Backend | None:
        """Serve ``key`` with ``config`` from the next request on; the old backend is returned, not closed:
        requests in flight hold it (``Prepared.backend``) and finish on it."""
        old = self._backends.pop(key, None)
        self.models[key] = config
        self._warm.discard(key)
        self._reported.pop(key, None)
        return old

    def style_for(self, backend: Backend) -> PromptStyle:
        cfg = backend.config
        if cfg.style:
            return self.styles.get(cfg.style)
        own = backend.extra.get("style")
        if isinstance(own, PromptStyle):
            return own
        hint = backend.extra.get("style_hint")
        if isinstance(hint, str):
            with contextlib.suppress(Exception):
                return self.styles.get(hint)
        if backend.chat:
            with contextlib.suppress(Exception):
                return self.styles.get("chat")
        return self.styles.for_model(cfg.model or "")

    def secrets(self) -> list[str]:
        out: list[str] = []
        for cfg in self.models.values():
            out.extend(cfg.secrets())
        return out

    def model_info(self, request: InlineCompletionRequest | None = None) -> ServingModel | None:
        try:
            key = self.route(request)
            backend = self.backend(key)
            style = self.style_for(backend)
        except Exception:
            return None
        return ServingModel(
            name=backend.name,
            backend=backend.kind,
            reported=self._reported.get(key),
            style=style.name,
            demo=backend.demo,
        )

    async def reported_model(self, key: str) -> str | None:
        """What the backend says it serves (``/v1/models`` for OpenAI-compatible servers)."""
        if key in self._reported:
            return self._reported[key]
        backend = self.backend(key)
        reported: str | None = None
        describe = backend.describe
        if describe is not None:
            with contextlib.suppress(Exception):
                reported = await describe()
        elif backend.config.base_url:
            headers = dict(backend.config.headers)
            api_key = backend.config.resolved_api_key()
            if api_key:
                headers["Authorization"] = f"Bearer {api_key}"
            with contextlib.suppress(Exception):
                async with httpx.AsyncClient(timeout=3.0) as client:
                    r = await client.get(backend.config.base_url.rstrip("/") + "/models", headers=headers)
                    data = r.json().get("data") or []
                    ids = [str(m.get("id")) for m in data if isinstance(m, dict)]
                    want = backend.config.api_model or backend.config.model
                    reported = want if want in ids else (ids[0] if ids else None)
        self._reported[key] = reported
        return reported

    def _learn_reported(self, key: str) -> None:
        if key in self._reported or any(t.get_name() == f"reported:{key}" for t in self._tasks):
            return
        task = asyncio.get_running_loop().create_task(self.reported_model(key), name=f"reported:{key}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the engine -------------------------------------------------------------------------------
    def prompt_request(self, request: InlineCompletionRequest) -> PromptRequest:
        return PromptRequest(
            prefix=request.prefix,
            suffix=request.suffix,
            files={f.path: f.content for f in request.files},
            # the repository's name only goes with other files (a repository-level prompt)
            repo_name=(self.repo_name or os.path.basename(os.getcwd())) if request.files else None,
            file_path=request.path,
            language=request.language,
            cells_above=request.cells_above,
            cells_below=request.cells_below,
            kernel_candidates=request.kernel_candidates,
        )

    def prepare(
        self,
        request: InlineCompletionRequest,
        prompt_request: PromptRequest | None = None,
        key: str | None = None,
    ) -> Prepared:
        key = key or self.route(request)
        backend = self.backend(key)
        cfg = backend.config
        style = self.style_for(backend)
        single = is_single_line(request.prefix, request.suffix)
        max_tokens = cfg.max_tokens_single_line if single else cfg.max_tokens
        preq = prompt_request or self.prompt_request(request)
        updates: dict[str, Any] = {}
        if preq.native_suffix is None:
            # a server that writes the FIM prompt from its own template (llama.cpp /infill) only for
            # families it renders as the style says; else our prompt goes to its completion endpoint
            generic = backend.extra.get("generic_infill", False)
            updates["native_suffix"] = backend.native_suffix and (not generic or style.server_can_infill)
        extra_files: dict[str, str] = {}
        if backend.extra.get("input_extra") and preq.files:
            # the server renders other files itself (llama.cpp /infill input_extra)
            extra_files, updates["files"] = dict(preq.files), {}
        if updates:
            preq = preq.model_copy(update=updates)
        built = build_prompt(
            preq,
            style,
            Budget(context_window=cfg.context_window, max_new_tokens=max_tokens),
            self.token_counter(backend),
        )
        stop = list(dict.fromkeys([*built.stop, *cfg.stop]))
        total = cfg.timeout_single_line if single and cfg.timeout_single_line else cfg.timeout
        first = total
        if key not in self._warm:
            first = total = max(total, cfg.first_request_timeout)
        pp = PostprocessContext(
            language=request.language,
            prefix=request.prefix,
            suffix=request.suffix,
            stop=stop,
            leftovers=list(getattr(built, "leftovers", None) or style.leftovers),
            heal=built.heal,
            # the demo model shows the mechanics: one line at most, and no garbage
            multiline=False if single or backend.demo else None,
            reject_degenerate=backend.demo,
        )
        bind: dict[str, Any] = {}
        if extra_files:
            from ..backends.llamacpp import files_as_input_extra

            bind["input_extra"] = files_as_input_extra(extra_files)
        return Prepared(key, backend, style, built, pp, max_tokens, stop, first, total, bind)

    def token_counter(self, backend: Backend) -> Any:
        """The model's own tokenizer when one is at hand (embedded model), else None: estimate."""
        factory = backend.extra.get("token_counter_factory")
        return factory() if callable(factory) else backend.extra.get("token_counter")

    def model_input(self, prepared: Prepared) -> Any:
        built = prepared.built
        messages = getattr(built, "messages", None)
        if prepared.backend.chat:
            if messages:
                return [
                    SystemMessage(m["content"]) if m.get("role") == "system" else HumanMessage(m["content"])
                    for m in messages
                ]
            return [HumanMessage(built.prompt)]
        return built.prompt

    async def _amodel_input(self, prepared: Prepared) -> Any:
        return self.model_input(prepared)

    def raw_chain(self, prepared: Prepared) -> Runnable[Prepared, str]:
        """prompt | model | output parsing, for one prepared request."""
        kwargs: dict[str, Any] = dict(prepared.bind)
        if prepared.backend.config.send_stop and prepared.stop:
            kwargs["stop"] = prepared.stop
        if prepared.backend.chat:
            kwargs["max_completion_tokens"] = prepared.max_tokens
        else:
            kwargs["max_tokens"] = prepared.max_tokens
        if prepared.built.suffix is not None and prepared.backend.native_suffix:
            kwargs["suffix"] = prepared.built.suffix
        model = prepared.backend.llm.bind(**kwargs)
        # Both ends have async versions: StrOutputParser and a sync-only RunnableLambda run every
        # call and every chunk through a thread pool, which cost ~5 ms to the first chunk (measured).
        text = RunnableGenerator(_texts, _atexts, name="text")
        return RunnableLambda(self.model_input, afunc=self._amodel_input) | model | text

    async def raw_stream(self, prepared: Prepared) -> AsyncIterator[str]:
        """The model's own text, as it streams (no cleaning)."""
        # Runnable.astream is an async generator; LangChain declares the wider AsyncIterator
        stream = cast("AsyncGenerator[str, None]", self.raw_chain(prepared).astream(prepared))
        try:
            async for piece in stream:
                yield piece
        except ValueError as exc:
            # LangChain's astream raises this when the model ended without any text (e.g. an
            # immediate end-of-text): that is an empty suggestion, not an error.
            if "No generation chunks" not in str(exc):
                raise
        finally:
            await stream.aclose()

    def recent_key(self, request: InlineCompletionRequest, prepared: Prepared) -> tuple[str, str]:
        """The key of a request in the recent completions: model, settings, what is sent."""
        key = prepared.key
        settings = self._fingerprints.get(key)
        if settings is None:
            settings = self._fingerprints[key] = fingerprint(prepared.backend.config.model_dump(mode="json"))
        built = prepared.built
        return RecentCompletions.key(
            key,
            settings,
            built.prompt,
            getattr(built, "messages", None) or "",
            built.suffix or "",
            request.prefix,
            request.suffix,
            request.language or "",
            [prepared.max_tokens, prepared.stop, prepared.bind],
        )

    async def prepare_async(self, request: InlineCompletionRequest) -> tuple[Prepared, Pipeline]:
        """:meth:`prepare` and the cleaning pipeline; off the event loop for a large request."""

        def work() -> tuple[Prepared, Pipeline]:
            prepared = self.prepare(request)
            return prepared, make_pipeline(prepared.postprocess)

        if request_size(request) <= OFF_LOOP_CHARS:
            return work()
        return await asyncio.to_thread(work)

    async def suggest(self, request: InlineCompletionRequest, notes: list[str]) -> AsyncIterator[str]:
        prepared, pipeline = await self.prepare_async(request)
        notes.extend(prepared.built.notes)
        self._learn_reported(prepared.key)
        recent = self.recent_key(request, prepared) if self.recent.size else None
        if recent is not None:
            cached = self.recent.get(recent)
            if cached is not None:
                notes.append("answered from recent completions")
                if cached:
                    yield cached
                return
        source = with_deadlines(
            self.raw_stream(prepared),
            prepared.first_timeout,
            prepared.total_timeout,
            max_chars=self.max_raw_chars,
            notes=notes,
        )
        parts: list[str] = []
        try:
            async for chunk in source:
                self._warm.add(prepared.key)
                out = pipeline.feed(chunk)
                if out:
                    parts.append(out)
                    yield out
                if pipeline.done:
                    break
        finally:
            await source.aclose()
        tail = pipeline.finish()
        if recent is not None:
            # Only reached when the suggestion ran to its end (not cancelled, no error).
            self.recent.put(recent, "".join(parts) + tail)
        if tail:
            yield tail

    # -- Runnable ---------------------------------------------------------------------------------
    def invoke(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> str:
        return asyncio.run(self.ainvoke(input, config))

    async def ainvoke(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> str:
        return "".join([d async for d in self.suggest(input, [])])

    async def astream(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        async for delta in self.suggest(input, []):
            yield delta

    def stream(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[str]:
        yield self.invoke(input, config)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for backend in self._backends.values():
            with contextlib.suppress(Exception):
                aclose = getattr(backend.llm, "aclose", None)
                if aclose is not None:
                    await aclose()
                client = getattr(backend.llm, "async_client", None)
                if client is not None and hasattr(client, "_client"):
                    await client._client.close()
