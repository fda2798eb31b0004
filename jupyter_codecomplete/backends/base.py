"""Model configuration records and the :class:`Backend` seam.

A backend kind is a :class:`Backend` subclass (or, for older packages, a factory
``(ModelConfig) -> Backend``) in the ``jupyter_codecomplete.backends`` entry-point group (the
built-in kinds are declared there too, in ``pyproject.toml``; :mod:`.kinds` is the registry);
:func:`make_backend` looks the kind up and builds it. Whether the suffix goes to the endpoint's own
field is decided once, by :func:`native_suffix`.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple
from urllib.parse import urlsplit

from langchain_core.language_models import BaseLanguageModel
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ..errors import BackendError as BackendError  # re-exported: backends raise it
from ..prompting import PromptStyle
from .kinds import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from .kinds import backend_kinds as backend_kinds
from .kinds import builtin_kinds as builtin_kinds
from .kinds import kind_attribute, load_kind
from .kinds import register_backend as register_backend
from .quirks import Quirks

if TYPE_CHECKING:
    from ..prompting import TokenCounter


class ProviderKey(NamedTuple):
    """Where a provider's key is looked up when neither ``api_key`` nor ``api_key_env`` is set
    (a kind's :attr:`Backend.provider_key`). The fallback only applies when the endpoint is the
    provider's own (no ``base_url``, or one on ``hosts``), so a provider key is never sent to some
    other server."""

    env: str
    hosts: tuple[str, ...]


# Where a model runs, as its backend states it: in this process, on this machine (a loopback
# address), on a private network (a private address or a local name), or anywhere else.
Locality = Literal["process", "machine", "network", "remote"]
LOCAL: frozenset[str] = frozenset({"process", "machine"})
# Host names that only resolve inside a private network (".svc": a Kubernetes service)
_PRIVATE_SUFFIXES = (".local", ".internal", ".lan", ".home.arpa", ".intranet", ".corp", ".svc")


def url_locality(url: str | None) -> Locality:
    """Where the server at ``url`` is: ``machine`` for a loopback address or ``localhost``,
    ``network`` for a private or link-local address, a one-label name (``http://vllm:8000``) or a
    private suffix (``.internal``, ``.local``), else ``remote`` (None: remote)."""
    if not url:
        return "remote"
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host:
        return "remote"
    if host == "localhost" or host.endswith(".localhost"):
        return "machine"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if "." not in host or host.endswith(_PRIVATE_SUFFIXES):
            return "network"
        return "remote"
    if address.is_loopback:
        return "machine"
    if address.is_private or address.is_link_local:
        return "network"
    return "remote"


class LocalServer(NamedTuple):
    """A model server discovery looks for on this machine (a kind's :attr:`Backend.local_servers`):
    its name in the start-up report, its default port, and its place when two answer alike
    (lower first)."""

    name: str
    port: int
    preference: int


def _kinds_text() -> str:
    """The built-in kinds for a description (none when the package's metadata is not installed)."""
    return ", ".join(f"`{k}`" for k in builtin_kinds()) or "a backend kind's name"


class ModelConfig(BaseModel):
    """One configured model: where it is, how to call it, and how to prompt it.

    Set in ``jupyter_server_config.py`` as a dict, e.g.::

        c.CodeCompleteApp.completion_model = {
            "backend": "openai", "base_url": "http://127.0.0.1:8080/v1",
            "model": "qwen2.5-coder-1.5b", "api_key_env": "MY_KEY",
        }
    """

    model_config = ConfigDict(extra="forbid")

    backend: str = Field(
        "openai",
        # the built-in kinds, as their entry points declare them (a new kind adds nothing here)
        description=f"The kind of endpoint: {_kinds_text()} (see the backend recipes).",
    )
    base_url: str | None = Field(
        None,
        description=(
            "Where the server is (for OpenAI-compatible servers the URL ending in `/v1`). `None`: the "
            "provider's default."
        ),
    )
    model: str = Field(
        "",
        description="The model's real name: it picks the prompt style and is sent unless `api_model` is set.",
    )
    # The model name to *send*; it may differ from the real model (e.g. an alias on a proxy).
    api_model: str | None = None
    api_key: SecretStr | None = Field(
        None, description="The API key itself (prefer `api_key_env`). Never sent to the browser or logged."
    )
    api_key_env: str | None = Field(None, description="The environment variable that holds the API key.")
    style: str | None = Field(
        None, description="Force a prompt style by name (default: chosen from the model name)."
    )
    stop: list[str] = Field(
        default_factory=list, description="Extra stop sequences, added to the prompt style's own."
    )
    send_stop: bool = Field(
        True,
        description=(
            "Send the stop sequences to the server (`False` for servers that reject `stop`; they are "
            "still applied to the stream)."
        ),
    )
    max_tokens: int = Field(256, description="Most tokens of a multi-line suggestion.")
    max_tokens_single_line: int = Field(
        64,
        description="Most tokens of a single-line suggestion (the cursor inside a line, or at the end "
        "of an ordinary line).",
    )
    temperature: float = Field(0.2, description="Sampling temperature.")
    top_p: float | None = Field(None, description="Nucleus sampling (`None`: the server's default).")
    timeout: float = Field(20.0, description="Seconds a suggestion may take (first token and whole stream).")
    timeout_single_line: float | None = Field(
        None,
        description="Seconds for a single-line suggestion (as `max_tokens_single_line`; `None`: `timeout`).",
    )
    first_request_timeout: float = Field(
        120.0, description="Seconds for the first request to a model (it may load the model)."
    )
    context_window: int = Field(
        4096, description="The model's context window in tokens: the prompt plus `max_tokens` fit in it."
    )
    streaming: bool = Field(
        True, description="Stream the completion (ghost text appears as the model writes)."
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Extra HTTP headers sent with every request (values that look like credentials are scrubbed "
            "from messages)."
        ),
    )
    # Ollama: how long the server keeps the model loaded after a request ("5m", "1h", -1, 0).
    keep_alive: str | int | None = None
    # The server software behind an OpenAI-compatible URL ("llama-cpp-python", "vllm", "tgi",
    # "lmstudio", "litellm", "ollama", "llama.cpp"): selects its declared quirks (backends/quirks.py).
    server: str | None = None
    # Overrides of the quirks record, e.g. {"literal_newlines": false, "unsupported_fields": ["stop"]}.
    quirks: dict[str, Any] = Field(default_factory=dict)
    # Why this model serves, for the user (the status bar and the log): e.g. the local server that
    # was found but could not fill in the middle, so the demo model serves instead.
    notice: str | None = None
    # a GGUF file for the in-process ("embedded") backend; None: the bundled demo model
    model_path: str | None = None
    # backend-specific extras (e.g. the import path and kwargs of a LangChain class)
    options: dict[str, Any] = Field(default_factory=dict)
    # What of the user's context this model may be sent (docs/privacy.md): channel → allowed
    # (``outputs``, ``tracebacks``, ``kernel``, ``edit_history``, ``files``; unnamed: allowed).
    context: dict[str, bool] = Field(
        default_factory=dict,
        description=(
            "Context channels this model may be sent: `outputs`, `tracebacks`, `kernel`, "
            "`edit_history`, `files` → `true`/`false` (unnamed ones are sent)."
        ),
    )
    redact: bool | None = Field(
        None,
        description=(
            "`false` turns secret redaction off for this model, honoured only for a model on this "
            "machine (in-process, or a server on a loopback address)."
        ),
    )
    shared: bool | None = Field(
        None,
        description=(
            "The model serves many users (a team's service behind a router or a gateway): warm-ups "
            "and prefetches to it are capped (`c.CodeCompleteApp.shared_ahead_per_minute`). `None`: "
            "from where it runs (on a private network or remote: shared; in this process or on "
            "this machine: not)."
        ),
    )

    def resolved_api_key(self) -> str | None:
        if self.api_key is not None:
            return self.api_key.get_secret_value()
        if self.api_key_env:
            return os.environ.get(self.api_key_env)
        fallback: ProviderKey | None = kind_attribute(self.backend, "provider_key")
        if fallback is not None:
            env, hosts = fallback.env, fallback.hosts
            host = urlsplit(self.base_url).hostname if self.base_url else None
            if host is None or host in hosts:
                return os.environ.get(env)
        return None

    def secrets(self) -> list[str]:
        """Every secret string this config carries, to scrub from messages."""
        out = []
        key = self.resolved_api_key()
        if key and len(key) >= 4:
            out.append(key)
        for name, value in self.headers.items():
            lowered = name.lower()
            if value and any(word in lowered for word in ("auth", "key", "token", "secret")):
                out.append(value)
                out.extend(part for part in value.split() if len(part) >= 8)
        return out


@dataclass(frozen=True)
class Description:
    """What a model server says about itself (:attr:`Backend.describe`); nothing is mutated.

    ``model``: the model it serves (e.g. the id from ``/v1/models``); ``native_suffix``: whether
    the model takes a native suffix, when the server says so (Ollama's ``insert`` capability),
    else None; ``context_length``: the context window the server runs with, when it reports one;
    ``details``: anything else worth showing (``check``)."""

    model: str | None = None
    native_suffix: bool | None = None
    context_length: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


TokenCounterFactory = Callable[[], "TokenCounter | None"]


@dataclass
class Backend:
    """A ready-to-call model: the LangChain object and what the engine needs to know about it.

    A backend kind is a subclass (built with :meth:`create`) registered under the
    ``jupyter_codecomplete.backends`` entry-point group (docs/extending.md). What is true of the
    kind itself is a class attribute, named here once and read by everything else:

    ``kind``: the name a model config's ``backend`` gives.
    ``quirk_defaults``: the kind's default :class:`~.quirks.Quirks` (:func:`~.quirks.resolve_quirks`).
    ``provider_key``: the provider key read from the environment for the provider's own hosts.
    ``local_servers``: the model servers of this kind that discovery probes on this machine
      (:mod:`.discovery`, through :meth:`probe`).
    ``wire``: the name of the HTTP protocol the kind speaks (the scripted fake the tests serve it
      with, ``jupyter_codecomplete.testing``); None: no HTTP server (in-process, any LangChain class).
    ``default_url``: the URL the kind calls when the config names none (the provider's own API,
      or the local server's default port); its host decides :attr:`locality` then.

    What is true of one built backend is a field:

    ``config``, ``llm``: the model config and the LangChain LLM or chat model.
    ``chat``: ``llm`` is a chat model (prompts become messages).
    ``demo``: the bundled demo model (one line at most, no garbage).
    ``suffix_default``: whether the endpoint takes the text after the cursor in a field of its own
      (``suffix``, ``input_suffix``) when neither the config nor the style decides; None: learned
      from :meth:`describe`. The decision itself is :func:`native_suffix` (the one place).
    ``quirks``: the endpoint's declared quirks (their ``native_suffix`` and ``unsupported_fields``
      take part in the decision).
    ``server_template``: with a native suffix the server writes the FIM prompt from its own template
      (llama.cpp ``/infill``): only for styles it renders as the record says
      (``PromptStyle.server_can_infill``).
    ``input_extra``: the server renders other files itself (llama.cpp ``/infill`` ``input_extra``;
      :meth:`extra_files` says how they are sent).
    ``style``: a prompt style the backend made itself (from a GGUF file's FIM tokens).
    ``style_hint``: the name of the style the backend suggests (``codestral`` for Mistral FIM).
    ``token_counter``: the model's own tokenizer, when one is at hand right now (else None: estimate).
    ``details``: facts for people (``check``), e.g. the GGUF file's metadata.

    Every kind answers :meth:`describe`, :meth:`list_models` and :meth:`aclose` (the defaults here
    serve a kind with nothing to ask and nothing to close).
    """

    kind: ClassVar[str] = ""
    quirk_defaults: ClassVar[Mapping[str, Any]] = {}
    provider_key: ClassVar[ProviderKey | None] = None
    local_servers: ClassVar[tuple[LocalServer, ...]] = ()
    wire: ClassVar[str | None] = None
    default_url: ClassVar[str | None] = None
    # the Choose Model dialog offers this kind in its Custom form (a URL, a model name, a key)
    custom_form: ClassVar[bool] = False

    config: ModelConfig
    llm: BaseLanguageModel[Any]
    chat: bool = False
    demo: bool = False
    suffix_default: bool | None = False
    quirks: Quirks = field(default_factory=Quirks)
    server_template: bool = False
    input_extra: bool = False
    style: PromptStyle | None = None
    style_hint: str | None = None
    token_counter: TokenCounterFactory | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, config: ModelConfig) -> Backend:
        """Build this kind's backend from ``config`` (no network I/O)."""
        raise NotImplementedError(f"{cls.__name__}.create")

    @property
    def name(self) -> str:
        return self.config.model or self.kind

    @property
    def native_suffix(self) -> bool:
        """:func:`native_suffix` before any style or description is known."""
        return native_suffix(self)

    @property
    def locality(self) -> Locality:
        """Where the model runs (a fact the kind states; warm-ups, prefetch and redaction read
        it): by default, from the host of the URL the backend calls (:func:`url_locality`)."""
        return url_locality(self.config.base_url or self.default_url)

    @property
    def shared(self) -> bool:
        """The model serves many users, not only this one (a fact warm-ups and prefetch read):
        the config's ``shared`` when set, else from :attr:`locality` (a private network or a
        remote service is shared; a model in this process or on this machine is not)."""
        if self.config.shared is not None:
            return self.config.shared
        return self.locality in ("network", "remote")

    @property
    def local(self) -> bool:
        """The model runs on this machine (in-process or a loopback server)."""
        return self.locality in LOCAL

    async def describe(self) -> Description:
        """What the server says about itself (:class:`Description`); it returns a record and
        changes nothing. Raises the backend's errors (an unreachable server: ``check`` says so)."""
        return Description()

    async def list_models(self) -> list[str]:
        """The models the server offers (ids), best first as the server lists them; [] when it has
        no list."""
        return []

    async def aclose(self) -> None:
        """Close what the backend holds (HTTP clients); a closed backend may be used again."""

    def extra_files(self, files: Mapping[str, str]) -> dict[str, Any]:
        """What to bind on the model call so the server renders ``files`` itself
        (:attr:`input_extra` kinds); {} for a kind that does not."""
        return {}


def pick_model(want: str, ids: list[str]) -> str | None:
    """The model a server serves for a config asking for ``want``: it, when listed, else the
    server's first model, else None."""
    return want if want in ids else (ids[0] if ids else None)


def native_suffix(
    backend: Backend, style: PromptStyle | None = None, described: Description | None = None
) -> bool:
    """Does the text after the cursor go to the endpoint's own suffix field? Decided here only.

    A chat model never does. Else, in order, the first that decides wins:

    1. the prompt style says ``native_suffix: false`` (a user's record, or a built-in changed in place);
    2. the model config's ``options.native_suffix: false``;
    3. the endpoint cannot: its quirks say ``native_suffix: false`` or list ``suffix`` among the
       unsupported fields;
    4. ``options.native_suffix: true``, then the quirks' ``native_suffix: true``;
    5. what the server said (:attr:`Description.native_suffix`, Ollama's ``/api/show``);
    6. the backend kind's default (:attr:`Backend.suffix_default`; None, not yet asked: no).

    A yes is then kept only where the server renders this style's format itself
    (:attr:`Backend.server_template` and ``PromptStyle.server_can_infill``).
    """
    if backend.chat:
        return False  # a chat model takes messages, no suffix
    if style is not None and "native_suffix" in style.model_fields_set and not style.native_suffix:
        return False
    option = backend.config.options.get("native_suffix")
    quirks = backend.quirks
    if option is not None and not option:
        return False
    if quirks.native_suffix is False or "suffix" in quirks.unsupported_fields:
        return False
    if option is not None:
        decided = bool(option)
    elif quirks.native_suffix is not None:
        decided = quirks.native_suffix
    elif described is not None and described.native_suffix is not None:
        decided = described.native_suffix
    else:
        decided = bool(backend.suffix_default)
    if decided and backend.server_template and style is not None:
        return style.server_can_infill
    return decided


BackendFactory = Callable[[ModelConfig], Backend]


def backend_factory(kind: str) -> BackendFactory:
    """The factory of ``kind``: a Backend subclass's ``create``, or the factory function its entry
    point (or :func:`~.kinds.register_backend`) names."""
    found = load_kind(kind)
    if isinstance(found, type) and issubclass(found, Backend):
        return found.create
    factory: BackendFactory = found
    return factory


def make_backend(config: ModelConfig) -> Backend:
    """Build the backend ``config.backend`` names (no network I/O)."""
    return backend_factory(config.backend)(config)
