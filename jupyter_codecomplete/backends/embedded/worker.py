"""The shared model: one loaded engine (:mod:`.engines`: the numpy engine or llama.cpp) per model
file and engine for the whole process, driven by ONE worker thread that takes requests from a FIFO
queue (one generation at a time, first come first served). Tokens travel from that thread through a
queue to the caller; the event loop never blocks. When a consumer stops listening, a flag stops the
generation before the next token is computed. Tokenizing, stops and decoding are done here, the same
way for every engine."""

from __future__ import annotations

import collections
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .engines import LLAMA_CPP, Engine, GenerationParams, load_engine
from .gguf import DEFAULT_MAX_CTX, read_gguf_info

__all__ = ["Event", "GenerationParams", "GenerationStats", "SharedLlama", "shared_model"]

# ------------------------------------------------------------------------------------ shared model


@dataclass
class GenerationStats:
    """What one request did (kept in :attr:`SharedLlama.history` for diagnostics and tests)."""

    prompt_tokens: int = 0
    tokens: int = 0
    tokens_at_cancel: int | None = None
    finish_reason: str = ""
    queued_seconds: float = 0.0
    seconds: float = 0.0


# What the worker sends to a consumer: ("text", str), ("error", BaseException) or ("end", None).
Event = tuple[str, Any]


class _Job:
    def __init__(self, prompt: str, params: GenerationParams, sink: Callable[[Event], None]) -> None:
        self.prompt = prompt
        self.params = params
        self.sink = sink
        self.stats = GenerationStats()
        self.submitted = time.perf_counter()
        self.done = threading.Event()
        self._cancelled = threading.Event()
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        with self._lock:
            if not self._cancelled.is_set() and not self.done.is_set():
                self.stats.tokens_at_cancel = self.stats.tokens
                self._cancelled.set()

    def count_token(self) -> None:
        with self._lock:
            self.stats.tokens += 1

    def emit(self, event: Event) -> None:
        try:
            self.sink(event)
        except RuntimeError:  # the consumer's event loop is gone: nobody listens any more
            self.cancel()


def utf8_complete_prefix(data: bytes) -> int:
    """Length of the longest prefix of ``data`` that does not end inside a UTF-8 character."""
    n = len(data)
    for back in range(1, min(4, n) + 1):
        b = data[n - back]
        if b & 0xC0 == 0x80:  # continuation byte: keep looking for the lead byte
            continue
        if b >> 5 == 0b110:
            need = 2
        elif b >> 4 == 0b1110:
            need = 3
        elif b >> 3 == 0b11110:
            need = 4
        else:
            need = 1
        return n if back >= need else n - back
    return n


def held_back(text: str, stops: list[str]) -> int:
    """How many trailing characters of ``text`` could be the start of a stop string."""
    best = 0
    for stop in stops:
        for k in range(min(len(stop) - 1, len(text)), best, -1):
            if text.endswith(stop[:k]):
                best = k
                break
    return best


class SharedLlama:
    """One loaded model and the single worker thread that runs its generations in FIFO order."""

    def __init__(
        self, model_path: str, n_ctx: int = 0, n_threads: int | None = None, engine: str = LLAMA_CPP
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.engine_name = engine
        self.history: collections.deque[GenerationStats] = collections.deque(maxlen=64)
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._engine: Engine | None = None
        self._load_error: BaseException | None = None
        self._loaded = threading.Event()
        self._idle = threading.Condition()
        self._pending = 0
        self._thread = threading.Thread(
            target=self._run, name=f"{engine}:{Path(model_path).name}", daemon=True
        )
        self._thread.start()

    # -- public API (any thread)
    def submit(self, prompt: str, params: GenerationParams, sink: Callable[[Event], None]) -> _Job:
        job = _Job(prompt, params, sink)
        with self._idle:
            self._pending += 1
        self._jobs.put(job)
        return job

    def engine(self, timeout: float | None = None) -> Engine:
        """The loaded engine (waits for the load); raises the load error if it failed."""
        if not self._loaded.wait(timeout):
            raise TimeoutError("the model is still loading")
        if self._load_error is not None:
            raise self._load_error
        assert self._engine is not None
        return self._engine

    def tokenize(self, text: str) -> list[int]:
        return self.engine().tokenize(text)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """True once no job is queued or running (for tests and shutdown); False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    @property
    def pending(self) -> int:
        """Jobs queued or running."""
        return self._pending

    # -- worker thread
    def _load(self) -> None:
        try:
            n_ctx = self.n_ctx
            if n_ctx <= 0:  # the model's own context, capped so a 32k-context model does not eat the RAM
                trained = read_gguf_info(self.model_path).get("context_length")
                n_ctx = min(int(trained), DEFAULT_MAX_CTX) if isinstance(trained, int) else DEFAULT_MAX_CTX
            self._engine = load_engine(self.engine_name, self.model_path, n_ctx, self.n_threads)
        except BaseException as exc:  # reported to every request
            self._load_error = exc
        finally:
            self._loaded.set()

    def _run(self) -> None:
        self._load()
        while True:
            job = self._jobs.get()
            job.stats.queued_seconds = time.perf_counter() - job.submitted
            try:
                if self._load_error is not None:
                    job.stats.finish_reason = "error"
                    job.emit(("error", self._load_error))
                elif job.cancelled:
                    job.stats.finish_reason = "cancelled"
                else:
                    self._generate(job)
            except BaseException as exc:
                job.stats.finish_reason = "error"
                job.emit(("error", exc))
            finally:
                job.stats.seconds = time.perf_counter() - job.submitted - job.stats.queued_seconds
                self.history.append(job.stats)
                job.done.set()
                job.emit(("end", None))
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    @staticmethod
    def _special_ids(engine: Engine, texts: list[str]) -> set[int]:
        """Token ids of the stop strings that are single special tokens."""
        ids: set[int] = set()
        for text in texts:
            toks = engine.tokenize(text, bos=False)
            if len(toks) == 1 and engine.is_control(toks[0]):
                ids.add(toks[0])
        return ids

    def _generate(self, job: _Job) -> None:
        engine = self.engine()
        p = job.params
        tokens = engine.tokenize(job.prompt)
        n_ctx = engine.n_ctx()
        max_tokens = max(1, min(p.max_tokens, n_ctx - 1))
        room = n_ctx - max_tokens
        if len(tokens) > room:
            # Keep a leading special token (FIM prefix, repository name); drop the oldest text.
            keep = 1 if tokens and engine.is_control(tokens[0]) else 0
            tokens = tokens[:keep] + tokens[len(tokens) - (room - keep) :]
        job.stats.prompt_tokens = len(tokens)
        stop_ids = self._special_ids(engine, p.stop)
        text_stops = [s for s in p.stop if s]
        raw = b""
        sent = 0  # characters of the decoded text already sent
        finish = "length"
        gen = engine.generate(tokens, p)
        completion: list[int] = []
        try:
            for token in gen:
                if job.cancelled:
                    finish = "cancelled"
                    break
                job.count_token()
                if token in stop_ids or engine.is_eog(token):
                    finish = "stop"
                    break
                raw += engine.piece(token, tokens + completion)
                completion.append(token)
                text = raw[: utf8_complete_prefix(raw)].decode("utf-8", errors="replace")
                cut = min((i for i in (text.find(s) for s in text_stops) if i >= 0), default=-1)
                if cut >= 0:
                    if cut > sent:
                        job.emit(("text", text[sent:cut]))
                    sent = cut
                    finish = "stop"
                    break
                upto = len(text) - held_back(text, text_stops)
                if upto > sent:
                    job.emit(("text", text[sent:upto]))
                    sent = upto
                if len(completion) >= max_tokens or job.cancelled:
                    finish = "cancelled" if job.cancelled else "length"
                    break
        finally:
            gen.close()
        if finish == "length":  # flush what was held back for a possible stop
            text = raw.decode("utf-8", errors="replace")
            if len(text) > sent:
                job.emit(("text", text[sent:]))
        job.stats.finish_reason = finish


_SHARED: dict[tuple[str, str], SharedLlama] = {}
_SHARED_LOCK = threading.Lock()


def shared_model(
    model_path: str, n_ctx: int = 0, n_threads: int | None = None, engine: str = LLAMA_CPP
) -> SharedLlama:
    """The process-wide model for ``model_path`` run by ``engine`` (the first caller's
    ``n_ctx``/``n_threads`` win)."""
    key = os.path.realpath(model_path)
    with _SHARED_LOCK:
        model = _SHARED.get((key, engine))
        if model is None:
            model = _SHARED[(key, engine)] = SharedLlama(key, n_ctx=n_ctx, n_threads=n_threads, engine=engine)
        return model
