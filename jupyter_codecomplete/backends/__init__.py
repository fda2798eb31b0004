"""Backends: one module per kind of endpoint, each giving a LangChain LLM or chat model.

:func:`make_backend` turns a :class:`ModelConfig` into a :class:`Backend` (the LangChain model
plus what we know about it, as named fields; ``describe``, ``list_models`` and ``aclose`` as
methods). Each kind is one :class:`Backend` subclass, named with its facts in its own class
attributes, and one entry in the ``jupyter_codecomplete.backends`` entry-point group, the built-in
kinds included (docs/extending.md; :mod:`.kinds` is the registry).
Provider quirks live next to the provider they belong to; errors come from
:mod:`jupyter_codecomplete.errors`.
"""

from .affinity import NO_AFFINITY, Affinity, Session, default_user, load_secret
from .aio import read_hold, whole_answer_hold
from .base import (
    ENTRY_POINT_GROUP,
    LOCAL,
    Backend,
    BackendError,
    Description,
    Locality,
    LocalServer,
    ModelConfig,
    ProviderKey,
    backend_kinds,
    builtin_kinds,
    make_backend,
    native_suffix,
    register_backend,
    url_locality,
)
from .discovery import adiscover_local_models, default_servers, discover_local_models, probe_local_servers
from .http import make_client
from .kinds import kind_attribute
from .pressure import PRESSURE, ServerPressure
from .streaming import DirectStream, SessionAware

__all__ = [
    "ENTRY_POINT_GROUP",
    "LOCAL",
    "NO_AFFINITY",
    "PRESSURE",
    "Affinity",
    "Backend",
    "BackendError",
    "Description",
    "DirectStream",
    "LocalServer",
    "Locality",
    "ModelConfig",
    "ProviderKey",
    "ServerPressure",
    "Session",
    "SessionAware",
    "adiscover_local_models",
    "backend_kinds",
    "builtin_kinds",
    "default_servers",
    "default_user",
    "discover_local_models",
    "kind_attribute",
    "load_secret",
    "make_backend",
    "make_client",
    "native_suffix",
    "probe_local_servers",
    "read_hold",
    "register_backend",
    "url_locality",
    "whole_answer_hold",
]
