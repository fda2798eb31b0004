"""Session affinity: a stable key per user and document on every model request.

A model service shared by many users (several vLLM or llama.cpp replicas behind a router, often
behind a gateway such as the LiteLLM proxy) keeps a user's prompt cache warm only when that
user's requests for one document land on the same replica. Session-aware routers read a header
for that (the vLLM production stack's router: ``--routing-logic session --session-key
<header>``; SGLang's and vllm-router's consistent hashing read ``x-session-id``); OpenAI-style
APIs take the body's ``user`` field. :class:`Affinity` makes the key, once per request, from the
server's user and the document's path; :class:`Session` is what the HTTP transport sends
(``backends/http.py``).

The key is an HMAC-SHA256 of the user and the document under a secret kept in the user's Jupyter
data directory (made once, mode 0600), so it is stable across restarts of the same user's server
and says nothing about either name; ``mode="names"`` sends the names themselves (an administrator
who wants to read them in the router's logs), ``mode="off"`` nothing.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote

AffinityMode = Literal["hashed", "names", "off"]

DEFAULT_HEADER = "x-session-id"
# Hex characters of the HMAC sent (128 bits: no two documents of a hub collide in practice).
KEY_CHARS = 32
# The most characters of a key sent with names (a header line stays short whatever the path).
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class Session:
    """What one model request carries for a session-aware router: ``key`` in the ``header``
    (None: no header), and in the body's user field when ``body`` is true and the kind takes one
    (:attr:`HttpTransport.session_field`)."""

    key: str
    header: str | None = DEFAULT_HEADER
    body: bool = True


def default_user() -> str:
    """The user a single-user server serves: the hub's name for it (``JUPYTERHUB_USER``, set by
    every JupyterHub spawner), else the operating system's login name."""
    name = os.environ.get("JUPYTERHUB_USER")
    if name:
        return name
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container without a passwd entry)
        return str(os.getuid()) if hasattr(os, "getuid") else "user"


def load_secret(path: Path) -> bytes:
    """The per-server secret at ``path``: read, or made (32 random bytes, hex, mode 0600) the
    first time. A directory that cannot be written gives a secret for this process only."""
    with contextlib.suppress(OSError, ValueError):
        text = path.read_text(encoding="ascii").strip()
        if len(text) >= 32:
            return bytes.fromhex(text)
    made = secrets.token_bytes(32)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(made.hex() + "\n")
        return made
    # someone else made it meanwhile (another server of the same user): theirs
    with contextlib.suppress(OSError, ValueError):
        text = path.read_text(encoding="ascii").strip()
        if len(text) >= 32:
            return bytes.fromhex(text)
    return made


@dataclass(frozen=True)
class Affinity:
    """How a request's session key is made (``c.CodeCompleteApp.session_*``).

    ``mode``: ``hashed`` (default), ``names`` or ``off``; ``header``: the header that carries the
    key ("" or None: none); ``body``: also the body's user field; ``user``: the server's user;
    ``secret``: the HMAC key (:func:`load_secret`)."""

    mode: AffinityMode = "hashed"
    header: str | None = DEFAULT_HEADER
    body: bool = True
    user: str = ""
    secret: bytes = b""

    def key(self, document: str | None) -> str | None:
        """The key of ``document`` (a path; None: the user's key) for this server's user."""
        if self.mode == "off" or (not self.header and not self.body):
            return None
        doc = document or ""
        if self.mode == "names":
            # printable ASCII only (a header value), the path's slashes kept
            return quote(f"{self.user}/{doc}" if doc else self.user, safe="/:@.-_~")[:MAX_NAME_CHARS]
        digest = hmac.new(self.secret, f"{self.user}\0{doc}".encode(), hashlib.sha256).hexdigest()
        return digest[:KEY_CHARS]

    def session(self, document: str | None) -> Session | None:
        """What a request for ``document`` carries (None: nothing)."""
        key = self.key(document)
        if key is None:
            return None
        return Session(key, self.header or None, self.body)


NO_AFFINITY = Affinity(mode="off")
