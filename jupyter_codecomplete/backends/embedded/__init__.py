"""The embedded backend: a GGUF model run in-process (by the built-in numpy engine or by
llama-cpp-python), as a LangChain LLM.

This package owns (one module each):

* ``kind``: :class:`EmbeddedBackend`, the ``embedded`` backend kind (a GGUF file, or the bundled
  demo model, served in this process; its prompt style from the file's name or FIM tokens);
* ``llm``: :class:`EmbeddedLlamaLLM`, the LangChain ``LLM``: ``_call``, ``_stream`` and ``_astream`` with real
  streaming and real cancellation;
* ``engines``: the engines behind one interface (:class:`~.engines.Engine`) and the choice
  (:func:`choose_engine`): the numpy engine (``numpy_llama``, its tokenizer ``bpe``; installed with
  the package from wheels) and llama-cpp-python (the ``local`` extra);
* ``worker``: the shared model: one loaded engine per model file for the whole process,
  driven by ONE worker thread that takes requests from a FIFO queue (one generation at a time,
  first come first served). Tokens travel from that thread through a queue to the caller; the
  event loop never blocks. When a consumer stops listening (the async generator is closed or its
  task cancelled, or the sync iterator is closed), a flag stops the generation before the next
  token is computed;
* ``gguf``: :func:`default_model_path` (the bundled demo model), :func:`read_gguf_info` (name, architecture,
  context length and FIM tokens straight from the GGUF metadata, without loading the model) and
  :func:`is_available` (llama-cpp-python importable).

The prompt arrives fully rendered (FIM / repository tokens included, by the prompt style); its special
tokens are parsed as specials. Stops that are special tokens (``<|endoftext|>``, ``<|file_sep|>``) are
matched on token ids, since special tokens have no text when detokenized; other stops are matched on
the text, holding back any tail that could still become a stop.
"""

from __future__ import annotations

from .engines import (
    LLAMA_CPP,
    NUMPY,
    EngineUnavailable,
    can_run_embedded,
    choose_engine,
    llama_cpp_available,
)
from .gguf import (
    DEFAULT_MAX_CTX,
    DEMO_MODEL_FILE,
    default_model_path,
    is_available,
    read_gguf_info,
    read_gguf_metadata,
)
from .kind import DEMO_NAME, EmbeddedBackend, style_from_gguf
from .llm import EmbeddedLlamaLLM
from .worker import (
    GenerationParams,
    GenerationStats,
    SharedLlama,
    shared_model,
)

__all__ = [
    "DEFAULT_MAX_CTX",
    "DEMO_MODEL_FILE",
    "DEMO_NAME",
    "LLAMA_CPP",
    "NUMPY",
    "EmbeddedBackend",
    "EmbeddedLlamaLLM",
    "EngineUnavailable",
    "GenerationParams",
    "GenerationStats",
    "SharedLlama",
    "can_run_embedded",
    "choose_engine",
    "default_model_path",
    "is_available",
    "llama_cpp_available",
    "read_gguf_info",
    "read_gguf_metadata",
    "shared_model",
    "style_from_gguf",
]
