"""What every streamed LangChain face of ours shares (the HTTP models and the embedded one).

:class:`StreamedLLM` is a LangChain ``LLM`` whose answer is its stream: ``_call`` and ``_acall``
join what ``_stream`` and ``_astream`` yield. :func:`achunks` and :func:`chunks` turn a stream of
text into LangChain chunks, telling the run's callbacks about each token. :func:`take` reads one
``(kind, value)`` event of a producer thread's queue (``item``, ``error``, ``end``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Iterator
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.llms import LLM
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk

C = TypeVar("C", GenerationChunk, ChatGenerationChunk)

# the end of a producer's stream: ``take`` answers this instead of a value
END: Any = object()


def take(event: tuple[str, Any]) -> Any:
    """The value of one ``(kind, value)`` event: the item, :data:`END` at the end; an ``error``
    event raises its exception."""
    kind, value = event
    if kind == "error":
        raise value
    return END if kind == "end" else value


async def achunks(
    texts: AsyncIterator[str],
    make: Callable[[str], C],
    run_manager: AsyncCallbackManagerForLLMRun | None,
) -> AsyncGenerator[C, None]:
    """Chunks of ``texts`` (closed with the generator), each token told to the run's callbacks."""
    async with contextlib.aclosing(texts):  # type: ignore[type-var]  # an async generator
        async for text in texts:
            chunk = make(text)
            if run_manager and text:
                await run_manager.on_llm_new_token(text, chunk=chunk)
            yield chunk


def chunks(source: Iterable[C], run_manager: CallbackManagerForLLMRun | None) -> Iterator[C]:
    """``source``'s chunks, each token told to the run's (sync) callbacks."""
    for chunk in source:
        if run_manager:
            run_manager.on_llm_new_token(chunk.text, chunk=chunk)
        yield chunk


@runtime_checkable
class DirectStream(Protocol):
    """A model of ours that can stream its text with no LangChain run around it: the engine
    streams from :meth:`stream_text` when nothing observes the run, which saves LangChain's layers
    around each chunk (``DefaultInlineCompletionHandler.direct``). The same text as its runnable.

    :meth:`streams_directly` says whether it may now: False where the runnable would do more than
    stream (a chat model's rate limiter, streaming switched off)."""

    def streams_directly(self) -> bool: ...

    def stream_text(
        self, prompt: Any, stop: list[str] | None = None, **kwargs: Any
    ) -> AsyncGenerator[str, None]: ...


@runtime_checkable
class SessionAware(Protocol):
    """A model whose requests carry the session key (``session=`` in its call's keyword
    arguments): the header and body field a session-aware router reads (``backends/affinity.py``)."""

    def with_session(self, call: Any, kwargs: dict[str, Any]) -> Any: ...


class Identified:
    """LangChain's ``_identifying_params`` (what a model's cache key and traces show) from the
    names of the fields that identify the model (:attr:`identity`)."""

    identity: ClassVar[tuple[str, ...]] = ()

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.identity}


class StreamedLLM(LLM):
    """A LangChain ``LLM`` whose whole answer is what its stream yields (subclasses implement
    ``_stream`` and ``_astream``)."""

    def _call(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> str:
        return "".join(c.text for c in self._stream(prompt, stop, run_manager, **kwargs))

    async def _acall(
        self,
        prompt: str,
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> str:
        parts: list[str] = []
        gen = self._astream(prompt, stop, run_manager, **kwargs)
        async with contextlib.aclosing(gen):  # type: ignore[type-var]  # an async generator
            async for chunk in gen:
                parts.append(chunk.text)
        return "".join(parts)
