"""Backends: one module per kind of endpoint, each giving a LangChain LLM or chat model.

:func:`make_backend` turns a :class:`ModelConfig` into a :class:`Backend` (the LangChain model
plus what we know about it, as named fields). Each kind is one factory in the
``jupyter_codecomplete.backends`` entry-point group, the built-in kinds included (docs/extending.md).
Provider quirks live next to the provider they belong to; errors come from
:mod:`jupyter_codecomplete.errors`.
"""

from .base import (
    ENTRY_POINT_GROUP,
    Backend,
    BackendError,
    Description,
    ModelConfig,
    backend_kinds,
    make_backend,
    native_suffix,
    register_backend,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Backend",
    "BackendError",
    "Description",
    "ModelConfig",
    "backend_kinds",
    "make_backend",
    "native_suffix",
    "register_backend",
]
