"""The LangChain face of the embedded model: :class:`EmbeddedLlamaLLM` (``_call``, ``_stream`` and
``_astream`` with real streaming and real cancellation) over the shared worker."""

from __future__ import annotations

import asyncio
import os
import queue
from collections.abc import AsyncGenerator, Iterator
from typing import Any, ClassVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.outputs import GenerationChunk
from pydantic import Field

from ..streaming import END, Identified, StreamedLLM, achunks, chunks, take
from .engines import AUTO, choose_engine
from .gguf import default_model_path
from .worker import Event, GenerationParams, SharedLlama, shared_model

# ------------------------------------------------------------------------------------ LangChain LLM


class EmbeddedLlamaLLM(Identified, StreamedLLM):
    """A GGUF model run in-process (the bundled demo model by default) by the numpy engine or
    llama-cpp-python (``engine``: ``auto``, ``numpy`` or ``llama.cpp``; see :mod:`.engines`)."""

    model_path: str = Field(default_factory=default_model_path)
    n_ctx: int = 0
    """Context window in tokens; 0 takes the model's training context, at most ``DEFAULT_MAX_CTX``."""
    max_tokens: int = 64
    temperature: float = 0.2
    top_p: float = 0.95
    repeat_penalty: float = 1.0
    stop: list[str] = Field(default_factory=list)
    n_threads: int | None = None
    engine: str = AUTO
    """Which engine runs the model: ``auto`` (:func:`.engines.choose_engine`), ``numpy`` or ``llama.cpp``."""

    @property
    def _llm_type(self) -> str:
        return "llamacpp-embedded"

    identity: ClassVar[tuple[str, ...]] = (
        "model_path",
        "n_ctx",
        "max_tokens",
        "temperature",
        "top_p",
        "repeat_penalty",
        "engine",
    )

    @property
    def engine_name(self) -> str:
        """The engine that runs this model (``numpy`` or ``llama.cpp``), decided once per file."""
        return choose_engine(self.model_path, self.engine, demo=_is_demo(self.model_path))

    @property
    def shared(self) -> SharedLlama:
        return shared_model(self.model_path, self.n_ctx, self.n_threads, self.engine_name)

    def get_token_ids(self, text: str) -> list[int]:
        return self.shared.tokenize(text)

    def _params(self, stop: list[str] | None, kwargs: dict[str, Any]) -> GenerationParams:
        stops = list(dict.fromkeys([*self.stop, *(stop or []), *kwargs.get("stop", [])]))
        return GenerationParams(
            max_tokens=int(kwargs.get("max_tokens", self.max_tokens)),
            temperature=float(kwargs.get("temperature", self.temperature)),
            top_p=float(kwargs.get("top_p", self.top_p)),
            repeat_penalty=float(kwargs.get("repeat_penalty", self.repeat_penalty)),
            stop=stops,
        )

    def _stream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[GenerationChunk]:
        params = self._params(stop, kwargs)

        def texts() -> Iterator[GenerationChunk]:
            events: queue.Queue[Event] = queue.Queue()
            job = self.shared.submit(prompt, params, events.put)
            try:
                while (value := take(events.get())) is not END:
                    yield GenerationChunk(text=value)
            finally:
                job.cancel()  # a no-op when the job already ended

        return chunks(texts(), run_manager)

    def _astream(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[GenerationChunk, None]:
        return achunks(self._atexts(prompt, self._params(stop, kwargs)), _chunk, run_manager)

    async def _atexts(self, prompt: str, params: GenerationParams) -> AsyncGenerator[str, None]:
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[Event] = asyncio.Queue()

        def sink(event: Event) -> None:
            loop.call_soon_threadsafe(events.put_nowait, event)

        job = self.shared.submit(prompt, params, sink)
        try:
            while (value := take(await events.get())) is not END:
                yield value
        finally:
            # Closed early (superseded request, cancelled task): stop spending compute on it.
            job.cancel()


def _is_demo(path: str) -> bool:
    try:
        return os.path.samefile(path, default_model_path())
    except OSError:
        return False


def _chunk(text: str) -> GenerationChunk:
    return GenerationChunk(text=text)
