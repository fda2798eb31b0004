"""Backends: one module per kind of endpoint, each giving a LangChain LLM or chat model.

:func:`make_backend` turns a :class:`ModelConfig` into a :class:`Backend` (the LangChain model
plus what we know about it). Provider quirks live next to the provider they belong to.
"""

from .base import Backend, BackendError, ModelConfig, make_backend, register_backend

__all__ = ["Backend", "BackendError", "ModelConfig", "make_backend", "register_backend"]
