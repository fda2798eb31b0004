"""The engines that can run a GGUF in this process, behind one small interface, and the choice.

* ``numpy`` (:class:`NumpyEngine`): :mod:`.numpy_llama`, installed with the package from wheels (no
  compiler). It runs llama-architecture files with F32 / F16 / Q8_0 weights and a byte-level BPE
  tokenizer; made for the bundled demo model and other small models.
* ``llama.cpp`` (:class:`LlamaCppEngine`): llama-cpp-python, the ``local`` extra
  (``pip install 'jupyter_codecomplete[local]'`` or ``./scripts/setup.sh --local``; it compiles
  llama.cpp). Any GGUF llama.cpp reads, at llama.cpp's speed.

:func:`choose_engine` decides which one serves a file: the one asked for (``engine`` in the model's
``options``), else llama.cpp for a model that is not the bundled demo when it is installed, else
the numpy engine when it can run the file; a file only llama.cpp can run, with llama.cpp missing,
is an :class:`EngineUnavailable` that says how to install it.

The worker (:mod:`.worker`) drives an engine from its one thread: it tokenizes, calls
:meth:`Engine.generate` and decodes token by token; stops, cancellation and the stream are its.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

LLAMA_CPP = "llama.cpp"
NUMPY = "numpy"
AUTO = "auto"
ENGINES = (AUTO, NUMPY, LLAMA_CPP)
INSTALL_HINT = (
    "Install llama.cpp in Choose Model…, pip install 'jupyter_codecomplete[local]' or "
    "./scripts/setup.sh --local (it compiles llama.cpp once, about 15 minutes on 2 cores)"
)


@dataclass
class GenerationParams:
    max_tokens: int = 64
    temperature: float = 0.2
    top_p: float = 0.95
    repeat_penalty: float = 1.0
    stop: list[str] = field(default_factory=list)


class EngineUnavailable(Exception):
    """No engine installed here can run this model file (the message says what to install)."""


def llama_cpp_available() -> bool:
    """True when llama-cpp-python can be imported (the ``local`` extra is installed)."""
    return importlib.util.find_spec("llama_cpp") is not None


def numpy_available() -> bool:
    """True when the numpy engine's libraries can be imported (dependencies of the package)."""
    return all(importlib.util.find_spec(m) is not None for m in ("numpy", "tokenizers"))


def can_run_embedded() -> bool:
    """True when some engine is installed, so the bundled demo model can serve."""
    return numpy_available() or llama_cpp_available()


def normalize(name: object) -> str:
    """An engine name as given in config (``llama_cpp``, ``llama.cpp``, ``numpy``, ``auto``/None)."""
    text = str(name or AUTO).strip().lower().replace("_", ".").replace("-", ".")
    if text in ("llama.cpp", "llamacpp", "llama.cpp.python"):
        return LLAMA_CPP
    if text in (AUTO, NUMPY):
        return text
    raise EngineUnavailable(f"unknown engine {name!r}: choose one of {', '.join(ENGINES)}")


def numpy_reason(path: str) -> str | None:
    """Why the numpy engine cannot run ``path`` (None: it can); a corrupt file raises ValueError."""
    from .numpy_llama import check_file

    return check_file(path)


_CHOSEN: dict[tuple[Any, ...], str] = {}
_CHOSEN_LOCK = threading.Lock()


def choose_engine(path: str, requested: object = AUTO, demo: bool = False) -> str:
    """The engine that serves ``path``: :data:`NUMPY` or :data:`LLAMA_CPP` (see the module doc).

    Decided once per file (its size and modification time), request and installed engines."""
    want = normalize(requested)
    have_llama = llama_cpp_available()
    try:
        st = os.stat(path)
        stamp: tuple[Any, ...] = (st.st_size, st.st_mtime_ns)
    except OSError:
        stamp = ()
    key = (os.path.realpath(path), stamp, want, demo, have_llama)
    with _CHOSEN_LOCK:
        if key in _CHOSEN:
            return _CHOSEN[key]
    chosen = _choose(path, want, demo, have_llama)
    with _CHOSEN_LOCK:
        _CHOSEN[key] = chosen
    return chosen


def _choose(path: str, want: str, demo: bool, have_llama: bool) -> str:
    name = os.path.basename(path)
    if want == LLAMA_CPP:
        if not have_llama:
            raise EngineUnavailable(f"The llama.cpp engine is not installed: {INSTALL_HINT}.")
        return LLAMA_CPP
    if want == AUTO and have_llama and not demo:
        return LLAMA_CPP
    reason = numpy_reason(path)
    if reason is None:
        return NUMPY
    if want == AUTO and have_llama:
        return LLAMA_CPP
    raise EngineUnavailable(
        f"{name} needs llama.cpp (the built-in numpy engine does not run {reason}): {INSTALL_HINT}."
    )


class Engine(Protocol):
    """What the worker needs from a loaded model (called from the worker thread only)."""

    name: ClassVar[str]

    def n_ctx(self) -> int: ...

    def tokenize(self, text: str, bos: bool = True) -> list[int]:
        """Special tokens written in ``text`` parsed as specials; BOS added when the model says so
        (and ``bos``)."""
        ...

    def piece(self, token: int, prev: list[int]) -> bytes:
        """The bytes of ``token`` after ``prev`` (nothing for a special token)."""
        ...

    def is_control(self, token: int) -> bool:
        """A special token: it has no text."""
        ...

    def is_eog(self, token: int) -> bool:
        """The end of generation (end of text, end of turn)."""
        ...

    def generate(self, tokens: list[int], params: GenerationParams) -> Generator[int, None, None]:
        """Tokens after ``tokens`` until the iterator is closed; the cache reused for the shared
        prefix of the previous call's tokens."""
        ...


class LlamaCppEngine:
    """llama-cpp-python's ``Llama``."""

    name: ClassVar[str] = LLAMA_CPP

    def __init__(self, model_path: str, n_ctx: int, n_threads: int | None) -> None:
        from llama_cpp import Llama

        kwargs: dict[str, Any] = {"model_path": model_path, "n_ctx": n_ctx, "verbose": False}
        if n_threads:
            kwargs["n_threads"] = n_threads
        self.llama = Llama(**kwargs)
        add_bos = self.llama.metadata.get("tokenizer.ggml.add_bos_token", "false")
        self._add_bos = str(add_bos).lower() == "true"
        self._vocab = getattr(getattr(self.llama, "_model", None), "vocab", None)

    def n_ctx(self) -> int:
        return int(self.llama.n_ctx())

    def tokenize(self, text: str, bos: bool = True) -> list[int]:
        add_bos = self._add_bos and bos
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

    def piece(self, token: int, prev: list[int]) -> bytes:
        return bytes(self.llama.detokenize([token], prev_tokens=prev, special=False))

    def is_control(self, token: int) -> bool:
        return bool(self.llama.detokenize([token], special=False) == b"")

    def is_eog(self, token: int) -> bool:
        import llama_cpp

        if self._vocab is not None and hasattr(llama_cpp, "llama_vocab_is_eog"):
            return bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))
        return bool(token == self.llama.token_eos())

    def generate(self, tokens: list[int], params: GenerationParams) -> Generator[int, None, None]:
        gen = self.llama.generate(
            tokens,
            top_k=40,
            top_p=params.top_p,
            min_p=0.05,
            temp=params.temperature,
            repeat_penalty=params.repeat_penalty,
            reset=True,
        )
        try:
            yield from gen
        finally:
            gen.close()


class NumpyEngine:
    """:class:`.numpy_llama.NumpyLlama`; numpy's BLAS is held to ``n_threads`` threads (1 unless
    set) while it generates: for matrices this small, more threads only wait on each other."""

    name: ClassVar[str] = NUMPY

    def __init__(self, model_path: str, n_ctx: int, n_threads: int | None) -> None:
        from .numpy_llama import NumpyLlama

        self._threads = max(1, int(n_threads or 1))
        try:  # made once: asking for a limit is then a few microseconds, not a scan of the libraries
            from threadpoolctl import ThreadpoolController

            self._controller: Any = ThreadpoolController()
        except ImportError:  # pragma: no cover - a dependency of the package
            self._controller = None
        with self._limited():
            self.model = NumpyLlama(model_path, n_ctx=n_ctx)
        self._tok = self.model.tokenizer

    def _limited(self) -> contextlib.AbstractContextManager[Any]:
        if self._controller is None:  # pragma: no cover
            return contextlib.nullcontext()
        return self._controller.limit(limits=self._threads, user_api="blas")  # type: ignore[no-any-return]

    def n_ctx(self) -> int:
        return self.model.n_ctx

    def tokenize(self, text: str, bos: bool = True) -> list[int]:
        first = self.model.bos
        head = [first] if bos and self.model.add_bos and isinstance(first, int) else []
        return head + self._tok.encode(text)

    def piece(self, token: int, prev: list[int]) -> bytes:
        return self._tok.piece(token)

    def is_control(self, token: int) -> bool:
        return token in self._tok.control

    def is_eog(self, token: int) -> bool:
        return token in self.model.eog

    def generate(self, tokens: list[int], params: GenerationParams) -> Generator[int, None, None]:
        if not tokens and isinstance(self.model.bos, int):  # an empty prompt: start from BOS
            tokens = [self.model.bos]
        with self._limited():
            yield from self.model.generate(
                tokens,
                temperature=params.temperature,
                top_p=params.top_p,
                repeat_penalty=params.repeat_penalty,
            )


def load_engine(name: str, model_path: str, n_ctx: int, n_threads: int | None) -> Engine:
    """Load ``model_path`` with the engine called ``name`` (:data:`NUMPY` or :data:`LLAMA_CPP`)."""
    if name == LLAMA_CPP:
        return LlamaCppEngine(model_path, n_ctx, n_threads)
    if name == NUMPY:
        return NumpyEngine(model_path, n_ctx, n_threads)
    raise EngineUnavailable(f"unknown engine {name!r}")
