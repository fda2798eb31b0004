"""The test harness, shipped so that UI tests and benchmarks can use it too: real servers, a real client.

``server`` (a tornado app on loopback ports) → ``scripted`` (the scripted model-server engine) →
``openai_upstream`` and ``providers`` (each provider's wire format), ``edit_rules`` (rules that
answer edit prompts from what they show); ``fake_hub`` (the Hugging Face
Hub's file routes); ``wsclient`` (the completion websocket's client); ``processes`` (servers as child
processes). See docs/architecture.md, "The test harness".

The names below are the face: import them from here. They load on first use (PEP 562), so that
``python -m jupyter_codecomplete.testing.openai_upstream`` (and ``fake_hub``) runs its module once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the same names, for type checkers (a test checks that they agree)
    from .edit_rules import EDIT_CHAT_ISSUE_27_RULES as EDIT_CHAT_ISSUE_27_RULES
    from .edit_rules import edit_chat_rewrite as edit_chat_rewrite
    from .fake_hub import FakeHub as FakeHub
    from .fake_hub import demo_entry as demo_entry
    from .openai_upstream import OpenAIUpstream as OpenAIUpstream
    from .processes import LlamaCppServer as LlamaCppServer
    from .processes import ServerStartError as ServerStartError
    from .processes import free_port as free_port
    from .processes import llama_cpp_server as llama_cpp_server
    from .providers import FIM_TEMPLATE as FIM_TEMPLATE
    from .providers import LlamaCppUpstream as LlamaCppUpstream
    from .providers import MistralUpstream as MistralUpstream
    from .providers import OllamaUpstream as OllamaUpstream
    from .providers import served_kinds as served_kinds
    from .providers import upstream_for as upstream_for
    from .scripted import RequestRecord as RequestRecord
    from .scripted import ScriptedServer as ScriptedServer
    from .scripted import UpstreamConfig as UpstreamConfig
    from .scripted import split_tokens as split_tokens
    from .server import LocalServer as LocalServer
    from .server import Route as Route
    from .wheel import build_wheel as build_wheel
    from .wheel import clean_env as clean_env
    from .wsclient import CompletionSocket as CompletionSocket
    from .wsclient import Message as Message
    from .wsclient import SocketClosed as SocketClosed
    from .wsclient import error_type as error_type
    from .wsclient import is_final as is_final
    from .wsclient import open_socket as open_socket
    from .wsclient import request as request
    from .wsclient import suggestion as suggestion

# where each name of the face lives
_MODULES = {
    "edit_rules": ("EDIT_CHAT_ISSUE_27_RULES", "edit_chat_rewrite"),
    "fake_hub": ("FakeHub", "demo_entry"),
    "openai_upstream": ("OpenAIUpstream",),
    "processes": ("LlamaCppServer", "ServerStartError", "free_port", "llama_cpp_server"),
    "providers": (
        "FIM_TEMPLATE",
        "LlamaCppUpstream",
        "MistralUpstream",
        "OllamaUpstream",
        "served_kinds",
        "upstream_for",
    ),
    "scripted": ("RequestRecord", "ScriptedServer", "UpstreamConfig", "split_tokens"),
    "server": ("LocalServer", "Route"),
    "wheel": ("build_wheel", "clean_env"),
    "wsclient": (
        "CompletionSocket",
        "Message",
        "SocketClosed",
        "error_type",
        "is_final",
        "open_socket",
        "request",
        "suggestion",
    ),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
