"""Zero-configuration start: find a model server already running on this machine.

:func:`discover_local_models` probes the default loopback ports of Ollama (11434), the llama.cpp
server (8080; or llama-cpp-python's server, which has no ``/props``) and LM Studio (1234) with short
timeouts, all at once, and returns a :class:`ModelConfig` for the best model found: one with
fill-in-the-middle support (Ollama's ``insert`` capability, a working llama.cpp ``/infill``, a model
whose vocabulary has a family's FIM tokens, or a model name whose prompt style has FIM tokens), a
code model before a general one. ``None`` when nothing suitable answers (the caller then falls back
to the embedded model; :func:`probe_local_servers` says why each server found was not chosen).

A GGUF's file name need not name its family: the servers that run GGUF files tokenize on request
(llama.cpp ``POST /tokenize`` with ``with_pieces``, llama-cpp-python ``POST /extras/tokenize``), so
the special tokens every prompt style declares (:meth:`StyleRegistry.vocabulary_tokens`) are
tokenized and the family whose FIM tokens are single tokens there is the model's
(:meth:`StyleRegistry.for_vocabulary`, :func:`identify_style`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Protocol, TypeVar

import httpx

from ..prompting import PromptStyle, StyleRegistry
from .base import ModelConfig
from .http import make_client, request_json
from .kinds import backend_kinds, kind_attribute

P = ParamSpec("P")
R = TypeVar("R")

_CODE_WORDS = ("code", "coder", "starcoder", "codestral", "codegemma", "codellama", "codegeex", "granite")


@dataclass
class Candidate:
    config: ModelConfig
    fim: bool
    code: bool
    order: int
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """The model and what was learned about it, for the start-up log and the dialog."""
        name = self.config.model or "?"
        if self.fim:
            return f"{name}: style {self.config.style}" if self.config.style else name
        why = "; ".join(self.notes) or "its name names no fill-in-the-middle model family"
        return f"{name}: no fill-in-the-middle ({why})"

    @property
    def rank(self) -> tuple[int, int, int]:
        return (int(self.fim), int(self.code), -self.order)


def style_has_fim(name: str) -> bool:
    try:
        style = StyleRegistry().for_model(name)
    except Exception:
        return False
    return style.fim is not None


def is_code(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _CODE_WORDS)


# How many tokenize requests one server gets at a time while its vocabulary is looked at.
_TOKENIZE_CONCURRENCY = 8


async def identify_style(
    client: httpx.AsyncClient,
    root: str,
    server: str,
    model: str = "",
    registry: StyleRegistry | None = None,
) -> PromptStyle | None:
    """The FIM prompt style of the model a GGUF server serves, from its vocabulary (see the module
    docstring): ``server`` is ``"llamacpp"`` (llama.cpp's ``/tokenize``) or ``"llama-cpp-python"``
    (``/extras/tokenize``); ``root`` the server's address without ``/v1``. None when no family's
    FIM tokens are all single tokens there; raises the HTTP error when the server cannot tokenize."""
    registry = registry or StyleRegistry()
    tokens = registry.vocabulary_tokens()
    gate = asyncio.Semaphore(_TOKENIZE_CONCURRENCY)
    single: Callable[[str], Awaitable[bool]]
    if server == "llamacpp":

        async def single(text: str) -> bool:
            body = {"content": text, "add_special": False, "parse_special": True, "with_pieces": True}
            async with gate:
                found = (await request_json(client, "POST", root + "/tokenize", body)).get("tokens") or []
            return len(found) == 1 and isinstance(found[0], dict) and found[0].get("piece") == text

    else:
        extra = {"model": model} if model else {}

        async def ids(text: str) -> list[Any]:
            async with gate:
                found = await request_json(
                    client, "POST", root + "/extras/tokenize", {"input": text, **extra}
                )
            return list(found.get("tokens") or [])

        empty = await ids("")  # a BOS the server adds to every text, if any

        async def single(text: str) -> bool:
            found = await ids(text)
            return len(found) == len(empty) + 1 and found[: len(empty)] == empty

    answers = await asyncio.gather(*(single(t) for t in tokens))
    present = {t for t, yes in zip(tokens, answers, strict=True) if yes}
    return registry.for_vocabulary(present, model)


def openai_candidates(ids: list[str], root: str, server: str, order: int) -> list[Candidate]:
    """One candidate per model id of an OpenAI-compatible server of the given kind."""
    return [
        Candidate(
            ModelConfig(backend="openai", base_url=root + "/v1", model=i, server=server),
            style_has_fim(i),
            is_code(i),
            order,
        )
        for i in ids
    ]


class Probe(Protocol):
    """A kind's way of asking one of its local servers what it serves (``Backend.probe``)."""

    def __call__(
        self, server: str, client: httpx.AsyncClient, root: str, order: int
    ) -> Awaitable[list[Candidate]]: ...


def local_servers() -> dict[str, tuple[int, int, Probe]]:
    """Every local model server some backend kind declares (``Backend.local_servers``): name ->
    (default port, preference, the kind's probe). Read from the kinds, never listed here."""
    out: dict[str, tuple[int, int, Probe]] = {}
    for kind in backend_kinds():
        probe = kind_attribute(kind, "probe")
        for server in kind_attribute(kind, "local_servers", ()) or ():
            if probe is not None:
                out.setdefault(server.name, (server.port, server.preference, probe))
    return out


def default_servers() -> tuple[tuple[str, int], ...]:
    """The servers probed by default: every declared local server on its default port, in order
    of preference (Ollama 11434, the llama.cpp server 8080, LM Studio 1234)."""
    known = local_servers()
    return tuple((name, port) for name, (port, _, _) in sorted(known.items(), key=lambda kv: kv[1][1]))


async def probe_local_servers(
    servers: Sequence[tuple[str, int]] | None = None,
    host: str = "127.0.0.1",
    timeout: float = 0.5,
    report: list[str] | None = None,
) -> list[Candidate]:
    """Every model the servers report, best first (failures and silence are skipped).

    ``report``, when given, receives one line per server probed saying what answered there
    (for the start-up log: which servers were looked for before the demo model was chosen)."""
    servers = default_servers() if servers is None else servers
    probes = local_servers()
    outcomes: list[str] = ["" for _ in servers]
    async with make_client(timeout, trust_env=False) as client:

        async def one(order: int, kind: str, port: int) -> list[Candidate]:
            where = f"{kind} on {host}:{port}"
            try:
                found = await probes[kind][2](kind, client, f"http://{host}:{port}", order)
            except (httpx.ConnectError, httpx.TimeoutException) as exc:
                silence = "no answer" if isinstance(exc, httpx.ConnectError) else "timed out"
                outcomes[order] = f"{where}: {silence}"
                return []
            except Exception as exc:
                outcomes[order] = f"{where}: unusable answer ({type(exc).__name__})"
                return []
            names = ", ".join(c.describe() for c in found[:4]) + (" …" if len(found) > 4 else "")
            outcomes[order] = f"{where}: {len(found)} model(s){' (' + names + ')' if found else ''}"
            return found

        results = await asyncio.gather(*(one(i, kind, port) for i, (kind, port) in enumerate(servers)))
    found = [c for group in results for c in group]
    found.sort(key=lambda c: c.rank, reverse=True)
    if report is not None:
        report.extend(outcomes)
    return found


async def adiscover_local_models(
    servers: Sequence[tuple[str, int]] | None = None,
    host: str = "127.0.0.1",
    timeout: float = 0.5,
    require_fim: bool = True,
    report: list[str] | None = None,
    skipped: list[str] | None = None,
) -> ModelConfig | None:
    """:func:`discover_local_models` on the running loop."""
    found = await probe_local_servers(servers, host, timeout, report)
    for cand in found:
        if cand.fim or not require_fim:
            return cand.config
    if skipped is not None:
        skipped.extend(
            f"{c.config.server or c.config.backend} at {c.config.base_url}, {c.describe()}" for c in found
        )
    return None


def _off_loop(fn: Callable[P, Awaitable[R]]) -> Callable[P, R | None]:
    """``fn`` run to its end on a private event loop in a thread: callable with or without a
    running loop (None when it failed)."""

    def run(*args: P.args, **kwargs: P.kwargs) -> R | None:
        result: list[R | None] = [None]

        async def main() -> None:
            result[0] = await fn(*args, **kwargs)

        thread = threading.Thread(
            target=lambda: asyncio.run(main()), name="codecomplete-discovery", daemon=True
        )
        thread.start()
        thread.join()
        return result[0]

    return run


discover_local_models = _off_loop(adiscover_local_models)
discover_local_models.__name__ = discover_local_models.__qualname__ = "discover_local_models"
discover_local_models.__doc__ = """The best local model with FIM support, or None. Safe to call with or
without a running loop (the probes run on a private loop in a thread); takes at most about
``timeout`` per request. ``report`` receives one line per server probed (see
:func:`probe_local_servers`); ``skipped``, when nothing is chosen, one line per model found and why it
was not (for the user). The arguments are :func:`adiscover_local_models`'s."""
