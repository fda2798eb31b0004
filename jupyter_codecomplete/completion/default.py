"""The default completion handler: prompt | model | output parsing, as a LangChain runnable.

Every path (websocket, REST, ``check``, ``eval``) goes through the same two steps:

- :meth:`DefaultInlineCompletionHandler.prepare` decides everything before the model is called:
  the model (routing by language or MIME type, or the request's override), the prompt style,
  single- or multi-line (decided here once, from the cursor, and passed down to the cleaning
  pipeline), the output budget and deadlines, stop sequences, and the prompt sized so that
  prompt + output fit the context window. A request's own ``max_tokens``, ``stop``,
  ``temperature``, model and mode (:class:`~.settings.Overrides`) are applied here.
- :meth:`DefaultInlineCompletionHandler.drive` streams the model with ``astream`` under the
  first-token and total deadlines and cleans the stream with the post-processing pipeline. When
  the pipeline says the suggestion has ended, a deadline passes, or the request is cancelled,
  the upstream stream is closed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from typing import Any

from langchain_core.callbacks import AsyncCallbackManager
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import (
    Runnable,
    RunnableConfig,
    RunnableGenerator,
    RunnableLambda,
    ensure_config,
)

from .. import languages
from ..backends import (
    Backend,
    Description,
    DirectStream,
    ModelConfig,
    SessionAware,
    make_backend,
    native_suffix,
    read_hold,
    whole_answer_hold,
)
from ..postprocess import Cursor, Pipeline, PostprocessContext, analyze, make_pipeline, normalize_newlines
from ..privacy import (
    DEFAULT_EXCLUDE,
    PLACEHOLDER_START,
    ChannelPolicy,
    Exclusions,
    Gate,
    channel_policy,
    environment_secrets,
)
from ..prompting import Budget, PromptRequest, PromptStyle, StyleRegistry, build_prompt
from ..protocol import (
    ContextCell,
    EditPredictionReply,
    EditPredictionRequest,
    InlineCompletionRequest,
    KernelCandidates,
    ServingModel,
)
from .ahead import AheadBudget
from .base import BaseInlineCompletionHandler, CompletionError, StreamReader, with_deadlines
from .edits import edit_model_key, handle_edit_request
from .facts import RequestFacts, resolve_language
from .notebook_edits import handle_notebook_edit_request
from .prepared import Prepared, deadlines
from .recent import RecentCompletions, fingerprint
from .settings import EngineSettings, Overrides

# How long the first request to a model waits for the server's answer to "what do you serve?"
# (:meth:`DefaultInlineCompletionHandler.learn_reported`) before it goes on without it.
REPORTED_WAIT = 1.0

# Requests with more text than this are prepared (prompt, cursor analysis) on a worker thread, so
# the event loop is never held by one large request.
OFF_LOOP_CHARS = 256_000

# Failures that say a model is not ready (its server is down or not answering), not that one
# request went wrong: the status shows them until the model answers again.
NOT_READY_ERRORS = frozenset({"backend_unreachable", "backend_unavailable"})

# How many requests' serving models are remembered for their replies (the oldest go first).
SERVED_RECORDS = 1024


def request_size(request: InlineCompletionRequest) -> int:
    """Characters of text a request carries (prefix, suffix, cells, files)."""
    return (
        len(request.prefix)
        + len(request.suffix)
        + sum(len(c.source) for c in (*request.cells_above, *request.cells_below))
        + sum(len(f.content) for f in request.files)
    )


def analyze_cursor(
    language: str | languages.Language | None, prefix: str, suffix: str, single: bool = False
) -> Cursor:
    """The cursor analysis a request's budget, deadlines and cleaning all follow (made once per
    request, in :meth:`DefaultInlineCompletionHandler.prepare`). ``single``: force one line.
    ``language``: a name, or its record when the caller has it."""
    forced = False if single else None
    return analyze(language, normalize_newlines(prefix), normalize_newlines(suffix), forced)


def is_single_line(prefix: str, suffix: str, language: str | None = None) -> bool:
    """Does the cursor ask for a single-line suggestion? Inside a line (text other than closers
    after it), and at the end of an ordinary line (``x = compute(a, b)|``): yes. On an empty line,
    after a block opener or an open bracket, inside a string that spans lines: no (multi-line)."""
    return not analyze_cursor(language, prefix, suffix).multiline


def chunk_text(chunk: Any) -> str:
    """The text of one streamed model chunk (a str from an LLM, a message chunk from a chat model)."""
    return chunk if isinstance(chunk, str) else str(chunk.text)


def _texts(chunks: Iterator[Any]) -> Iterator[str]:
    for chunk in chunks:
        yield chunk_text(chunk)


async def _atexts(chunks: AsyncIterator[Any]) -> AsyncIterator[str]:
    async for chunk in chunks:
        yield chunk_text(chunk)


class DefaultInlineCompletionHandler(BaseInlineCompletionHandler, Runnable[InlineCompletionRequest, str]):
    """Serves completions from the configured models.

    ``settings``: the keys of :class:`~.settings.EngineSettings` (build one with
    :func:`~.engine.make_engine`): ``models`` (name → :class:`ModelConfig`, at least
    ``"completion"``), ``routes`` (language or MIME type → model name), ``styles``
    (:class:`StyleRegistry`), ``repo_name``, ``recent_completions``, the suggestion bounds.
    """

    def __init__(self, *, log: Any = None, settings: dict[str, Any] | None = None) -> None:
        super().__init__(log=log, settings=settings)
        engine = EngineSettings.from_mapping(self.settings)
        self.engine_settings = engine
        self.models: dict[str, ModelConfig] = dict(engine.models)
        self.routes: dict[str, str] = dict(engine.routes)
        self.styles: StyleRegistry = engine.styles
        self.repo_name: str | None = engine.repo_name
        self._backends: dict[str, Backend] = {}
        self._warm: set[str] = set()
        self._reported: dict[str, str | None] = {}
        self._described: dict[str, Description] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.recent = RecentCompletions(engine.recent_completions)
        self.warm_up = engine.warm_up
        # the session key of each request, for a session-aware router (backends/affinity.py)
        self.affinity = engine.affinity
        # warm-ups and prefetches that may reach a shared model (completion/ahead.py)
        self.ahead = AheadBudget(engine.shared_ahead_per_minute)
        # what must not leave the machine: the one gate every request's context passes
        self._known_secrets = engine.known_secrets
        self._environment_secrets = environment_secrets(os.environ)
        self.gate = Gate(
            Exclusions(
                engine.root_dir,
                engine.exclude,
                DEFAULT_EXCLUDE if engine.default_exclude is None else engine.default_exclude,
                engine.exclude_gitignored,
            ),
            engine.forbid_context,
            known=self.known_secrets,
        )
        # route key -> (the config it was made from, the fingerprint of its settings)
        self._fingerprints: dict[str, tuple[ModelConfig, str]] = {}
        # the records of the latest requests (request id -> (request, its facts, the model that
        # served it once known)): every stage reads the facts made once, and a reply names the
        # model that produced its text, also when the model was switched while it ran
        # (weak references: a large request is never kept alive by this)
        self._records: OrderedDict[
            int, tuple[weakref.ref[InlineCompletionRequest], RequestFacts, ServingModel | None]
        ] = OrderedDict()
        # route key -> why its model is not ready (start-up check, or the last request's failure)
        self._problems: dict[str, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None  # the sync methods' private loop
        self._thread: threading.Thread | None = None  # and the thread that runs it
        self._sync_lock = threading.Lock()

    # -- model choice -----------------------------------------------------------------------------
    def route(self, request: InlineCompletionRequest | None) -> str:
        if request is None:
            return self._route(None, None)
        return self._route(request.mime, languages.normalize(request.language))

    def _route(self, mime: str | None, language: str | None) -> str:
        """The configured model for a MIME type and a language id (already normalized)."""
        # A route keyed by any name of a language (``ipython``, ``objectivec``) serves it.
        # The MIME type first, then the language.
        if mime and self.routes.get(mime) in self.models:
            return self.routes[mime]
        if language is not None:
            for key, name in self.routes.items():
                if name in self.models and languages.normalize(key) == language:
                    return name
        if "completion" in self.models:
            return "completion"
        if not self.models:
            raise CompletionError(
                "no_model",
                "Configure c.CodeCompleteApp.completion_model (see the docs) or install the embedded model.",
                title="No model configured",
            )
        return next(iter(self.models))

    def facts(
        self,
        request: InlineCompletionRequest,
        key: str | None = None,
        overrides: Overrides | None = None,
    ) -> RequestFacts:
        """The record of ``request`` (:mod:`.facts`): made the first time it is asked for and kept
        for the request (weakly); ``key`` and ``overrides`` (REST, ``check``) make a record of
        their own. Raises :class:`CompletionError` for an unknown ``key`` or no model."""
        own = key is None and overrides is None
        if own:
            found = self._records.get(id(request))
            if found is not None and found[0]() is request:
                return found[1]
        over = overrides or Overrides()
        key = key or over.model
        if key is not None and key not in self.models:
            raise CompletionError(
                "unknown_model",
                f"No model named {key!r}; configured: {sorted(self.models)}.",
                title="Unknown model",
            )
        language, rules = resolve_language(request.language)
        key = key or self._route(request.mime, language)
        backend = self.backend(key)
        facts = RequestFacts(key, backend, self.style_for(backend), language, rules, over)
        if own:
            self._remember(request, facts, None)
        return facts

    def _remember(
        self, request: InlineCompletionRequest, facts: RequestFacts, served: ServingModel | None
    ) -> None:
        self._records[id(request)] = (weakref.ref(request), facts, served)
        self._records.move_to_end(id(request))
        while len(self._records) > SERVED_RECORDS:
            self._records.popitem(last=False)

    def backend(self, key: str) -> Backend:
        if key not in self._backends:
            self._backends[key] = make_backend(self.models[key])
        return self._backends[key]

    def replace_model(self, key: str, config: ModelConfig, reported: str | None = None) -> Backend | None:
        """Serve ``key`` with ``config`` from the next request on; the old backend is returned, not closed:
        requests in flight hold it (``Prepared.backend``) and finish on it. ``reported``: what the
        new model's server said it serves, when the caller has just asked it (the switch's check)."""
        old = self._backends.pop(key, None)
        self.models[key] = config
        self._warm.discard(key)
        self._reported.pop(key, None)
        if reported:
            self._reported[key] = reported
        self._described.pop(key, None)
        self._fingerprints.pop(key, None)
        self._problems.pop(key, None)  # the switch checked the new model: it answers
        self.recent.forget(key)  # the old model's suggestions never answer for the new one
        return old

    def style_for(self, backend: Backend) -> PromptStyle:
        cfg = backend.config
        if cfg.style:
            return self.styles.get(cfg.style)
        if backend.style is not None:
            return backend.style
        if backend.style_hint:
            with contextlib.suppress(Exception):
                return self.styles.get(backend.style_hint)
        if backend.chat:
            with contextlib.suppress(Exception):
                return self.styles.get("chat")
        return self.styles.for_model(cfg.model or "")

    def secrets(self) -> list[str]:
        out: list[str] = []
        for cfg in self.models.values():
            out.extend(cfg.secrets())
        return out

    def known_secrets(self) -> list[str]:
        """Every secret the server knows, redacted wherever a request's context carries it: the
        models' keys, the user's stored keys, the server's own secret environment variables."""
        extra = self._known_secrets() if self._known_secrets is not None else ()
        return [*self.secrets(), *extra, *self._environment_secrets]

    def policy(self, backend: Backend) -> ChannelPolicy:
        """What ``backend``'s model may be sent (its config's ``context`` and ``redact``, the
        administrator's ``forbid_context``, and whether the backend says it is local)."""
        cfg = backend.config
        return channel_policy(cfg.context, cfg.redact, backend.local, self.gate.forbidden)

    def warms(self, request: InlineCompletionRequest | None = None) -> bool:
        """Whether a warm-up (or a prefetch) for ``request`` (None: the default model) may reach
        the model that serves its route (``warm_up``: ``auto`` warms a model in this process, on
        this machine or a private network, as its backend states; never a paid API); never for
        an excluded document."""
        if request is not None and self.gate.document(request.path) is not None:
            return False
        try:
            backend = self.backend(self.route(request))
        except Exception:
            return False
        return self.warms_backend(backend)

    def warms_backend(self, backend: Backend) -> bool:
        """Whether ``backend``'s model may be warmed and prefetched for: ``warm_up`` (``auto``:
        never a remote service), and for a shared model (``Backend.shared``) only when
        ``shared_ahead_per_minute`` allows any (each one is then counted: :meth:`spend_ahead`)."""
        if self.warm_up == "off":
            return False
        if self.warm_up == "auto" and backend.locality == "remote":
            return False
        return not backend.shared or self.ahead.allows_any

    def spend_ahead(self, request: InlineCompletionRequest | None = None) -> bool:
        """Count one warm-up or prefetch for ``request``'s model: False when it is a shared model
        whose cap for this minute is spent (nothing is sent then)."""
        try:
            key = self.route(request)
            backend = self.backend(key)
        except Exception:
            return False
        return not backend.shared or self.ahead.spend(key)

    def warm_routes(self) -> dict[str, bool]:
        """For each configured route (language or MIME type), whether its model may be warmed
        (the hello's ``warm_routes``; the default model is the hello's ``warm``)."""
        out: dict[str, bool] = {}
        for key, name in self.routes.items():
            if name in self.models:
                mime = key if "/" in key else None
                language = None if mime else languages.normalize(key)
                out[key] = self.warms(
                    InlineCompletionRequest(number=0, prefix="", mime=mime, language=language)
                )
        return out

    async def warm(self, request: InlineCompletionRequest) -> None:
        """Have the model evaluate the prompt ``request`` would make, for its prompt cache: the
        same prompt (the same budget) with a one-token answer, read to its end and dropped."""
        await self.learn_reported(self.facts(request).key)
        prepared, _ = await self.prepare_async(request)
        one = dataclasses.replace(prepared, max_tokens=1)
        source = with_deadlines(self.raw_stream(one), one.first_timeout, one.total_timeout, max_chars=64)
        async with contextlib.aclosing(source):  # type: ignore[type-var]  # an async generator
            async for _ in source:
                pass
        self._warm.add(prepared.key)

    def model_info(self, request: InlineCompletionRequest | None = None) -> ServingModel | None:
        if request is not None:
            found = self._records.get(id(request))
            if found is not None and found[0]() is request and found[2] is not None:
                return found[2]  # the model that served it, even if another serves by now
        try:
            if request is not None:
                facts = self.facts(request)
                return self.serving(facts.key, facts.backend, facts.style)
            key = self.route(None)
            backend = self.backend(key)
            style = self.style_for(backend)
        except Exception:
            return None
        return self.serving(key, backend, style)

    def serving(self, key: str, backend: Backend, style: PromptStyle) -> ServingModel:
        """Which model serves route ``key`` (its backend and prompt style): the one shape of "the
        serving model" (the websocket's replies, the model list, the prompt preview)."""
        reported = self._reported.get(key)
        return ServingModel(
            # a model left empty (the server's default): the one the server reports
            name=backend.config.model or reported or backend.name,
            backend=backend.kind,
            reported=reported,
            style=style.name,
            demo=backend.demo,
            notice=backend.config.notice,
            problem=self._problems.get(key),
            key=key,
        )

    def _record_served(self, request: InlineCompletionRequest, prepared: Prepared) -> None:
        serving = self.serving(prepared.key, prepared.backend, prepared.style)
        facts = prepared.facts
        if facts is None or facts.overrides != Overrides():
            facts = RequestFacts(prepared.key, prepared.backend, prepared.style, None, None)
        self._remember(request, facts, serving)

    def set_problem(self, key: str, problem: str | None) -> None:
        """Say why model ``key`` is not ready (None: it is); :meth:`model_info` carries it."""
        if problem is None:
            self._problems.pop(key, None)
        else:
            self._problems[key] = problem

    async def reported_model(self, key: str) -> str | None:
        """What the backend says it serves (``/v1/models`` for OpenAI-compatible servers)."""
        if key in self._reported:
            return self._reported[key]
        backend = self.backend(key)
        reported: str | None = None
        try:
            described = await backend.describe()
            self._described[key] = described
            reported = described.model
            if self.models.get(key) is backend.config:
                self.set_problem(key, None)
        except Exception as exc:
            info = self.error_info(exc)
            if info.type in NOT_READY_ERRORS | {"timeout"} and self.models.get(key) is backend.config:
                self.set_problem(key, info.message)
        self._reported[key] = reported
        return reported

    async def check_ready(self, key: str = "completion") -> ServingModel | None:
        """Ask model ``key``'s server what it serves now (at start-up, off the request path): a
        server that does not answer is reported through :meth:`model_info` (``problem``) until it
        answers a completion. Bounded by the backend's own description timeout."""
        if key not in self.models:
            return None
        self._reported.pop(key, None)
        await self.reported_model(key)
        return self.model_info(None) if key == self.route(None) else None

    def is_warm(self, key: str) -> bool:
        """Whether model ``key`` has answered since it was (re)configured (its first request gets
        the longer ``first_request_timeout``)."""
        return key in self._warm

    def mark_warm(self, key: str) -> None:
        """Model ``key`` has answered: later requests get its usual deadlines."""
        self._warm.add(key)

    def reported(self, key: str) -> str | None:
        """What model ``key``'s server said it serves, when it has been asked (else None)."""
        return self._reported.get(key)

    def remember_described(self, key: str, described: Description | None, reported: str | None) -> None:
        """What model ``key``'s server said of itself, learned elsewhere (the check asks it with its
        own deadline): kept for the style choice, the suffix field and the replies."""
        self._reported[key] = reported
        if described is not None:
            self._described[key] = described

    async def learn_reported(self, key: str, wait: float = REPORTED_WAIT) -> None:
        """Ask the server what it serves (:meth:`reported_model`) before the first completion on
        ``key``, not while it streams: a server that serves one request at a time may end the
        running one for any request that arrives meanwhile. llama-cpp-python's server does
        (``interrupt_requests``, on by default): ``GET /v1/models`` during a stream made it send
        ``[DONE]`` at once, an empty or cut suggestion. Concurrent first requests share one
        lookup; after ``wait`` seconds a request goes on without the answer (the lookup goes on)."""
        if key in self._reported:
            return
        name = f"reported:{key}"
        task = next((t for t in self._tasks if t.get_name() == name), None)
        if task is None:
            task = asyncio.get_running_loop().create_task(self.reported_model(key), name=name)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        # asyncio.wait, not wait_for(shield(...)): on Python 3.11 wait_for loses a cancel that
        # arrives as the lookup ends (a superseded request would then run on), and wait leaves
        # the lookup running after the timeout
        await asyncio.wait({task}, timeout=wait)

    # -- the engine -------------------------------------------------------------------------------
    def prompt_request(
        self,
        request: InlineCompletionRequest,
        *,
        files: Mapping[str, str] | None = None,
        repo_name: str | None = None,
        cells_above: list[ContextCell] | None = None,
        cells_below: list[ContextCell] | None = None,
        kernel_candidates: KernelCandidates | None = None,
    ) -> PromptRequest:
        """The prompt engine's request for ``request`` (the websocket's and REST's alike: REST
        passes the context its body carries besides the text around the cursor)."""
        shown = {f.path: f.content for f in request.files} if files is None else dict(files)
        return PromptRequest(
            prefix=request.prefix,
            suffix=request.suffix,
            files=shown,
            repo_name=repo_name or self.repo_name_for(shown),
            file_path=request.path,
            language=request.language,
            cells_above=request.cells_above if cells_above is None else cells_above,
            cells_below=request.cells_below if cells_below is None else cells_below,
            kernel_candidates=request.kernel_candidates if kernel_candidates is None else kernel_candidates,
        )

    def repo_name_for(self, files: Mapping[str, str]) -> str | None:
        """The one repository-name rule: the repository's name only goes with other files (a
        repository-level prompt): the configured one, else the working directory's."""
        return (self.repo_name or os.path.basename(os.getcwd())) if files else None

    def prepare(
        self,
        request: InlineCompletionRequest,
        prompt_request: PromptRequest | None = None,
        key: str | None = None,
        overrides: Overrides | None = None,
    ) -> Prepared:
        """Everything decided about ``request`` before the model is called (see the module docstring).

        ``prompt_request``: the prompt engine's request when the caller built its own (REST);
        ``key``: the configured model to use; ``overrides``: what this request changes."""
        facts = self.facts(request, key, overrides)
        over, key, backend, style = facts.overrides, facts.key, facts.backend, facts.style
        cfg = backend.config
        # single- or multi-line, decided once: the budget, the deadline and the cleaning follow it
        cursor = analyze_cursor(
            facts.rules or facts.language, request.prefix, request.suffix, single=backend.demo
        )
        single = not cursor.multiline
        max_tokens = over.max_tokens or (cfg.max_tokens_single_line if single else cfg.max_tokens)
        preq = prompt_request or self.prompt_request(request)
        # exclusion, the model's channels, redaction: before anything of the prompt is built
        excluded = self.gate.document(preq.file_path if preq.file_path is not None else request.path)
        if excluded is not None:
            raise CompletionError("excluded", excluded.reason, title="Excluded from code suggestions")
        preq, gate = self.gate.prompt_request(preq, self.policy(backend))
        updates: dict[str, Any] = {}
        if over.mode is not None:
            updates["mode"] = over.mode
        native = native_suffix(backend, style, self._described.get(key))
        if preq.native_suffix is None:
            updates["native_suffix"] = native
        extra_files: dict[str, str] = {}
        if backend.input_extra and preq.files:
            # the server renders other files itself (llama.cpp /infill input_extra)
            extra_files, updates["files"] = dict(preq.files), {}
        if updates:
            preq = preq.model_copy(update=updates)
        # The prompt leaves room for the larger of the two answer budgets, whichever this request
        # has: sized by each, the window's start would move whenever the cursor went from a
        # multi-line place to the end of an ordinary line and back, and the model server would
        # evaluate the whole prompt again (benchmarks/bench_keystrokes.py: 5 of 35 keystrokes).
        room = over.max_tokens or max(cfg.max_tokens, cfg.max_tokens_single_line)
        built = build_prompt(
            preq,
            style,
            Budget(context_window=cfg.context_window, max_new_tokens=room),
            self.token_counter(backend),
            facts.rules,
        )
        # a placeholder the model repeats ends the suggestion there (it is not the user's text)
        redacted = [PLACEHOLDER_START] if gate.redacted else []
        stop = list(dict.fromkeys([*built.stop, *cfg.stop, *over.stop, *redacted]))
        first, total = deadlines(cfg, self.is_warm(key), single)
        pp = PostprocessContext(
            language=request.language,
            prefix=request.prefix,
            suffix=request.suffix,
            stop=stop,
            leftovers=list(getattr(built, "leftovers", None) or style.leftovers),
            heal=built.heal,
            # inside a line, and for the demo model (it shows the mechanics: one line at most, and
            # no garbage), one line; at the end of an ordinary line the cursor analysis says so
            # itself (one line, unless that line opens a block)
            multiline=False if backend.demo or (single and not cursor.eol) else None,
            reject_degenerate=backend.demo,
            max_tokens=max_tokens,
        )
        bind: dict[str, Any] = {}
        if over.temperature is not None:
            bind["temperature"] = over.temperature
        if extra_files:
            bind.update(backend.extra_files(extra_files))
        return Prepared(
            key,
            backend,
            style,
            built,
            pp,
            max_tokens,
            stop,
            first,
            total,
            bind,
            cursor=cursor,
            single_line=single,
            native_suffix=native,
            facts=facts,
            gate=gate,
            session=self.affinity.session(preq.file_path if preq.file_path is not None else request.path),
        )

    def pipeline(self, prepared: Prepared) -> Pipeline:
        """The cleaning pipeline of a prepared request (it reuses the request's cursor analysis)."""
        return make_pipeline(prepared.postprocess, prepared.cursor)

    def token_counter(self, backend: Backend) -> Any:
        """The model's own tokenizer when one is at hand (embedded model), else None: estimate."""
        return backend.token_counter() if backend.token_counter is not None else None

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

    def model_kwargs(self, prepared: Prepared) -> dict[str, Any]:
        """What the model call gets besides its input (both paths): budget, stops, suffix, extras."""
        kwargs: dict[str, Any] = dict(prepared.bind)
        if prepared.session is not None and isinstance(prepared.backend.llm, SessionAware):
            kwargs["session"] = prepared.session  # the model sends it (backends/affinity.py)
        if prepared.backend.config.send_stop and prepared.stop:
            kwargs["stop"] = prepared.stop
        if prepared.backend.chat:
            kwargs["max_completion_tokens"] = prepared.max_tokens
        else:
            kwargs["max_tokens"] = prepared.max_tokens
        if prepared.built.suffix is not None and prepared.native_suffix:
            kwargs["suffix"] = prepared.built.suffix
        return kwargs

    def raw_chain(self, prepared: Prepared) -> Runnable[Prepared, str]:
        """prompt | model | output parsing, for one prepared request."""
        model = prepared.backend.llm.bind(**self.model_kwargs(prepared))
        # Both ends have async versions: StrOutputParser and a sync-only RunnableLambda run every
        # call and every chunk through a thread pool, which cost ~5 ms to the first chunk (measured).
        text = RunnableGenerator(_texts, _atexts, name="text")
        return RunnableLambda(self.model_input, afunc=self._amodel_input) | model | text

    def direct(self, prepared: Prepared, config: RunnableConfig | None = None) -> DirectStream | None:
        """The model to stream from directly (:meth:`DirectStream.stream_text`), or None: use the
        runnable (:meth:`raw_chain`).

        LangChain's runnable layers around each chunk (config, callback managers, the stream's
        tee) were about a fifth of the server's CPU per streamed completion (measured,
        docs/performance.md). They are skipped only where that changes nothing anyone can see:
        the model says it can (:class:`DirectStream`: our HTTP kinds), ``raw_chain`` is this
        class's own, and no callback would see the run (none from ``config``, the enclosing
        run, the model, tracing, debug or a configure hook: what LangChain's own callback
        manager would collect)."""
        llm = prepared.backend.llm
        if not isinstance(llm, DirectStream) or not llm.streams_directly():
            return None
        if type(self).raw_chain is not DefaultInlineCompletionHandler.raw_chain:
            return None
        cfg = ensure_config(config)  # with the enclosing run's config, as the runnable would
        observers = AsyncCallbackManager.configure(
            inheritable_callbacks=cfg.get("callbacks"),
            local_callbacks=llm.callbacks,
            verbose=llm.verbose,
            inheritable_tags=cfg.get("tags"),
            local_tags=llm.tags,
            inheritable_metadata=cfg.get("metadata"),
            local_metadata=llm.metadata,
        )
        return None if observers.handlers else llm

    async def raw_stream(
        self, prepared: Prepared, config: RunnableConfig | None = None
    ) -> AsyncIterator[str]:
        """The model's own text, as it streams (no cleaning). ``config``: LangChain's run config.

        The same text either way: straight from our HTTP backends when nothing observes the run
        (:meth:`direct`), else through the runnable, so callbacks and tracing see every token."""
        llm = self.direct(prepared, config)
        if llm is not None:
            texts = llm.stream_text(await self._amodel_input(prepared), **self.model_kwargs(prepared))
            async with contextlib.aclosing(texts):
                async for piece in texts:
                    # One event-loop turn between reading a piece and cleaning and sending it, as
                    # the runnable's layers gave: with 200 streams whose pieces arrive together,
                    # one turn otherwise runs every stream's whole step, and the loop's worst lag
                    # grew from ~105 to ~160 ms (bench_hostile, docs/performance.md).
                    await asyncio.sleep(0)
                    yield piece
            return
        stream = self.raw_chain(prepared).astream(prepared, config)
        try:
            async for piece in stream:
                yield piece
        except ValueError as exc:
            # LangChain's astream raises this when the model ended without any text (e.g. an
            # immediate end-of-text): that is an empty suggestion, not an error.
            if "No generation chunks" not in str(exc):
                raise
        finally:
            await stream.aclose()  # type: ignore[attr-defined]

    def recent_key(self, request: InlineCompletionRequest, prepared: Prepared) -> tuple[str, str]:
        """The key of a request in the recent completions: model, settings, what is sent."""
        key = prepared.key
        config = prepared.backend.config
        known = self._fingerprints.get(key)
        if known is not None and known[0] is config:
            settings = known[1]
        else:  # the model of this request, also when it was switched since (never the new one's)
            settings = fingerprint(config.model_dump(mode="json"))
            if self.models.get(key) is config:
                self._fingerprints[key] = (config, settings)
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

    async def prepare_async(
        self,
        request: InlineCompletionRequest,
        prompt_request: PromptRequest | None = None,
        overrides: Overrides | None = None,
    ) -> tuple[Prepared, Pipeline]:
        """:meth:`prepare` and the cleaning pipeline; off the event loop for a large request."""

        def work() -> tuple[Prepared, Pipeline]:
            prepared = self.prepare(request, prompt_request, overrides=overrides)
            return prepared, self.pipeline(prepared)

        size = request_size(request)
        if prompt_request is not None:
            size += sum(len(v) for v in prompt_request.files.values()) + sum(
                len(c.source) for c in (*prompt_request.cells_above, *prompt_request.cells_below)
            )
        if size <= OFF_LOOP_CHARS:
            return work()
        return await asyncio.to_thread(work)

    async def drive(
        self,
        prepared: Prepared,
        pipeline: StreamReader,
        notes: list[str],
        config: RunnableConfig | None = None,
        max_chars: int | None = None,
    ) -> AsyncGenerator[str, None]:
        """The one driver of model → reader: what the reader passes on of a prepared request's text.

        The model's stream runs under the request's first-token and total deadlines (a late model
        raises :class:`TimeoutError`) and is read up to ``max_chars`` (:attr:`max_raw_chars` by
        default); it is closed as soon as the reader says it is done, or when the caller closes
        this iterator. A completion's reader is its cleaning pipeline (the websocket through
        :meth:`suggest`, ``POST api/codecomplete/completions``, ``eval``); an edit prediction's
        reads the answer up to its format's end marker (``edits.read_answer``)."""
        source = with_deadlines(
            self.raw_stream(prepared, config),
            prepared.first_timeout,
            prepared.total_timeout,
            max_chars=self.max_raw_chars if max_chars is None else max_chars,
            notes=notes,
        )
        try:
            async for chunk in source:
                self._warm.add(prepared.key)
                out = pipeline.feed(chunk)
                if out:
                    yield out
                if pipeline.done:
                    break
        finally:
            await source.aclose()  # type: ignore[attr-defined]  # an async generator has aclose
        # the model used its whole token limit: a last line it was still writing is dropped
        tail = pipeline.finish(truncated=pipeline.budget_spent)
        if tail:
            yield tail

    async def suggest(
        self, request: InlineCompletionRequest, notes: list[str], config: RunnableConfig | None = None
    ) -> AsyncIterator[str]:
        if request.prefetch and not self.warms(request):
            # asked ahead of the user: only where a model request costs nothing but time
            notes.append("prefetch not sent: the model for this route is not one that is warmed")
            return
        if request.prefetch and not self.spend_ahead(request):
            notes.append("prefetch not sent: the shared model's requests ahead for this minute are spent")
            return
        # before the first model request (the answer also informs its prompt), not during it
        await self.learn_reported(self.facts(request).key)
        prepared, pipeline = await self.prepare_async(request)
        self._record_served(request, prepared)
        notes.extend(prepared.built.notes)
        if prepared.gate is not None:
            notes.extend(prepared.gate.notes())
        recent = self.recent_key(request, prepared) if self.recent.size else None
        if recent is not None:
            cached = self.recent.get(recent)
            if cached is not None:
                notes.append("answered from recent completions")
                if cached:
                    yield cached
                return
        parts: list[str] = []
        try:
            async with contextlib.aclosing(self.drive(prepared, pipeline, notes, config)) as deltas:
                async for out in deltas:
                    parts.append(out)
                    yield out
        except Exception as exc:
            info = self.error_info(exc)
            # a server that says when to ask again (503 with Retry-After) is saturated, not down
            saturated = info.retry_after is not None
            if (
                info.type in NOT_READY_ERRORS
                and not saturated
                and self.models.get(prepared.key) is prepared.backend.config
            ):
                self.set_problem(prepared.key, info.message)
                self._record_served(request, prepared)  # the reply says so
            raise
        if self._problems.get(prepared.key) and self.models.get(prepared.key) is prepared.backend.config:
            self.set_problem(prepared.key, None)  # it answered
            self._record_served(request, prepared)
        text = "".join(parts)
        if recent is not None and text:
            # Only reached when the suggestion ran to its end (not cancelled, no error). An empty
            # answer is not kept: a sampled model (the demo's) may end at once one time and write
            # a line the next; remembered, the same fresh line showed nothing until the user typed.
            self.recent.put(recent, text)

    # -- edit predictions (completion/edits.py) ---------------------------------------------------
    supports_edits = True
    # notebook_edits / error_fix: completion/notebook_edits.py; edit_history: inline completion
    # requests may carry recent_edits (accepted; the fill-in-the-middle prompt leaves them out);
    # prefetch: requests marked so are answered only where the route's model may be warmed
    features = ("edit_prediction", "notebook_edits", "error_fix", "edit_history", "prefetch")

    async def handle_edit_request(self, request: EditPredictionRequest) -> EditPredictionReply:
        """An edit prediction or the fix after an error, through the privacy gate: the model sees
        the request as the gate lets it (its offsets moved with the redacted text), and the
        reply's edits are mapped back to the user's text."""
        excluded = self.gate.document(request.path)
        if excluded is not None:
            return EditPredictionReply(
                reply_to=request.number,
                version=request.version,
                error=self.error_info(
                    CompletionError("excluded", excluded.reason, title="Excluded from code suggestions")
                ),
            )
        try:
            backend = self.backend(edit_model_key(self))
        except Exception as exc:
            return EditPredictionReply(
                reply_to=request.number,
                version=request.version,
                error=self.failed(request.number, exc, "edit"),
            )
        guarded = self.gate.edit_request(request, self.policy(backend))
        # the reply leaves once the whole answer is read: the model's stream read in a few reads
        with read_hold(whole_answer_hold):
            if request.scope == "notebook" or request.trigger == "error":
                reply = await handle_notebook_edit_request(self, guarded.request)  # notebook_edits.py
            else:
                reply = await handle_edit_request(self, guarded.request)
        reply = guarded.restore(reply)
        notes = guarded.report.notes()
        return reply.model_copy(update={"notes": [*notes, *reply.notes]}) if notes else reply

    # -- Runnable ---------------------------------------------------------------------------------
    # The async methods are the engine's own path (prepare → drive, deadlines, bounds). The sync
    # ones run that same path on a private event loop in a worker thread, so they work anywhere,
    # also inside a running event loop (a notebook cell, a LangChain sync chain called from async
    # code). The model's HTTP clients are made on the loop that first uses them, so use one
    # handler either from sync code or from async code. ``config`` (callbacks, tags, run name)
    # reaches the model call.
    def _sync_loop(self) -> asyncio.AbstractEventLoop:
        with self._sync_lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="codecomplete-sync", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def invoke(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> str:
        return "".join(self.stream(input, config, **kwargs))

    async def ainvoke(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> str:
        return "".join([d async for d in self.astream(input, config, **kwargs)])

    async def astream(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncGenerator[str, None]:
        """Deltas of the suggestion, bounded and scrubbed as on the websocket."""
        notes: list[str] = []
        source = self.suggest(input, notes, ensure_config(config))
        async with contextlib.aclosing(self.bound(source, notes)) as deltas:
            async for delta in deltas:
                yield delta

    def stream(
        self, input: InlineCompletionRequest, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[str]:
        """Deltas as they come (not the whole suggestion at the end), from the private loop."""
        loop = self._sync_loop()
        agen = self.astream(input, config, **kwargs)

        async def step() -> str:
            return await agen.__anext__()

        try:
            while True:
                try:
                    yield asyncio.run_coroutine_threadsafe(step(), loop).result()
                except StopAsyncIteration:
                    return
        finally:
            asyncio.run_coroutine_threadsafe(agen.aclose(), loop).result()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
            await asyncio.to_thread(thread.join, 5.0)
            if not thread.is_alive():
                loop.close()
        for backend in self._backends.values():
            with contextlib.suppress(Exception):
                await backend.aclose()
