"""The model service: where models come from, and choosing one. Used by REST, the UI and the CLI.

Sources, each a list of :class:`ModelEntry` rows:

* ``configured``: the administrator's models (``completion_model``, ``chat_model``, ``models``);
* ``detected``: local model servers on their default ports and the models each serves
  (:func:`~jupyter_codecomplete.backends.discovery.probe_local_servers`: Ollama ``/api/tags``, the
  llama.cpp server, LM Studio and other OpenAI-compatible servers ``/v1/models``);
* ``disk``: GGUF files on this computer (the models folder under the Jupyter data directory, the
  Hugging Face cache, LM Studio's models folder, ``scan_dirs``) and the bundled demo model;
* ``catalogue``: recommended code models to download (``catalogue.json`` + ``extra_catalogue``);
* ``custom``: an endpoint the user enters (backend, base URL, model, API key).

Choosing (:meth:`ModelService.use`) resolves the entry to a :class:`ModelConfig`, enforces the
administrator's locks, runs the ``jupyter codecomplete check`` probe (reachable, served model,
prompt style, FIM, time to first token) and only then switches the running engine: requests in
flight finish on the old model, new ones go to the new one. The choice is saved server-side per user
(:class:`UserChoiceStore`, mode 0600) and applies at the next start. API keys stay on the server.
``role="edit"`` chooses the model of edit predictions the same way (the engine's ``edit`` model; the
store's ``edit_choice``, beside ``choice``); the listing says which entry serves edits and the format
each would be asked in (decided by ``completion/edits.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError
from traitlets import Bool, Dict, Float, List, Unicode, default
from traitlets.config import LoggingConfigurable

from ..backends import ModelConfig, backend_kinds, kind_attribute
from ..backends.embedded import DEMO_NAME
from ..completion import EngineSettings, check_models
from ..errors import scrub, validation_message
from ..protocol import ServingModel
from .catalogue import CatalogueEntry, load_catalogue
from .download import Downloader, is_gguf
from .engine_install import EngineInstaller, llama_cpp_installed
from .errors import ModelServiceError
from .store import UserChoiceStore, default_store_dir


def custom_backends() -> list[str]:
    """The kinds the Custom form offers: each kind says so itself (``Backend.custom_form``)."""
    return [kind for kind in backend_kinds() if kind_attribute(kind, "custom_form", False)]


LOCAL = "local"
# A choice's role: the engine's model key it switches, and where the store keeps it.
ROLES = {"completion": "choice", "edit": "edit_choice"}


class ModelEntry(BaseModel):
    """One row of the model list (what the browser and the CLI see: never a key)."""

    id: str
    source: str  # configured | detected | disk | catalogue | custom
    name: str
    backend: str
    model: str = ""
    base_url: str | None = None
    where: str = ""
    size_bytes: int | None = None
    style: str | None = None
    fim: bool | None = None
    status: str = "available"  # available | downloaded | not downloaded | downloading | not answering
    path: str | None = None
    # what the catalogue says of its entries (CATALOGUE_FACTS: copied from the CatalogueEntry)
    license: str | None = None
    memory_gb: float | None = None
    good_for: str | None = None
    repo: str | None = None
    file: str | None = None
    revision: str | None = None
    quantization: str | None = None
    verified: str | None = None
    # a catalogue file's bytes kept from a pull that stopped: the next pull resumes (Resume)
    partial_bytes: int = 0
    # the user's choice and the administrator's policy
    active: bool = False
    edit_active: bool = False  # this entry serves edit predictions
    edit_style: str | None = None  # the format edit predictions would ask this model in
    edit_native: bool | None = None  # that format is the model's own next-edit format (not generic)
    locked: bool = False
    locked_reason: str | None = None
    api_key_set: bool = False
    api_key_masked: str | None = None


class CustomEndpoint(BaseModel):
    """What the Custom section sends."""

    model_config = ConfigDict(extra="forbid")

    backend: str = "openai"
    base_url: str = Field(max_length=2048)
    model: str = Field("", max_length=512)
    api_key: str | None = Field(None, max_length=4096)
    style: str | None = Field(None, max_length=128)


# The facts of a catalogue entry its row shows, under the same names (the entry's ``source``, where
# its pins were read, is not the row's ``source``).
CATALOGUE_FACTS: set[str] = {
    *("id", "name", "size_bytes", "style", "fim", "license", "memory_gb", "good_for"),
    *("repo", "file", "revision", "quantization", "verified"),
}


def mask_key(key: str | None) -> str | None:
    if not key:
        return None
    return "••••" + key[-4:] if len(key) >= 12 else "••••"


def _host_of(cfg: ModelConfig) -> str:
    if cfg.backend == "embedded" or not cfg.base_url:
        return LOCAL if cfg.backend == "embedded" else (cfg.backend or "")
    return (urlsplit(cfg.base_url).hostname or "").lower()


def _host_allowed(cfg: ModelConfig, allowed: list[str]) -> bool:
    """``'local'`` in ``allowed`` admits in-process models only, never a server whose host is named
    ``local``; any other entry is a base URL's host name."""
    wanted = {h.strip().lower() for h in allowed}
    if cfg.backend == "embedded":
        return LOCAL in wanted
    host = _host_of(cfg)
    return host != LOCAL and host in wanted


def _strings_under(data: Any, names: tuple[str, ...], depth: int = 0) -> list[str]:
    """Every string value stored under one of ``names`` in ``data`` (bounded: the store is small)."""
    out: list[str] = []
    if depth > 8:
        return out
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str) and isinstance(key, str) and key.lower() in names:
                out.append(value)
            elif isinstance(key, str) and key.lower() == "headers" and isinstance(value, dict):
                out.extend(v for v in value.values() if isinstance(v, str))
            else:
                out.extend(_strings_under(value, names, depth + 1))
    elif isinstance(data, list):
        for value in data[:64]:
            out.extend(_strings_under(value, names, depth + 1))
    return out


def _hf_cache_dir() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
    )
    return Path(home) / "hub"


class ModelService(LoggingConfigurable):
    """Lists, downloads, tests and switches models; configured as ``c.ModelService.*``."""

    allow_user_choice = Bool(
        True,
        config=True,
        help="Let users choose their model (dialog, REST, CLI). False: the administrator's model only; "
        "the server refuses every choice.",
    )
    allowed_backends = List(
        Unicode(),
        config=True,
        help="Backend kinds users may choose (e.g. ['openai', 'embedded']); empty: any.",
    )
    allowed_hosts = List(
        Unicode(),
        config=True,
        help="Hosts users may point a model at (base URL host names; 'local' for in-process GGUF models); "
        "empty: any.",
    )
    allowed_catalogue = List(
        Unicode(), config=True, help="Catalogue ids users may download and choose; empty: all."
    )
    allow_downloads = Bool(True, config=True, help="Let users download catalogue models.")
    allow_engine_install = Bool(
        True,
        config=True,
        help="Let users install the llama.cpp engine (llama-cpp-python) into the server's environment, "
        "for in-process GGUF models the built-in numpy engine does not run; it compiles llama.cpp "
        "(about 15 minutes on 2 cores) and needs a C compiler.",
    )
    extra_catalogue = List(
        Dict(),
        config=True,
        help="More catalogue entries (same fields as catalogue.json), e.g. models on an internal hub "
        "mirror; an entry with a shipped id replaces it.",
    )
    hub_endpoint = Unicode(
        None,
        allow_none=True,
        config=True,
        help="The Hugging Face endpoint (default: HF_ENDPOINT, else the hub).",
    )
    models_dir = Unicode(
        config=True, help="Where downloaded models go (default: <data dir>/codecomplete/models)."
    )
    store_dir = Unicode(
        config=True, help="Where the user's choice is saved (default: <data dir>/codecomplete)."
    )
    scan_dirs = List(
        Unicode(),
        config=True,
        help="Folders searched for GGUF files besides the models folder, the Hugging Face cache and LM "
        "Studio's models folder.",
    )
    scan_default_dirs = Bool(
        True, config=True, help="Also search the Hugging Face cache and LM Studio's models folders."
    )
    detect_servers: List[Any] = List(
        config=True,
        help="Local servers to look for, as [kind, port] pairs (kinds: ollama, llamacpp, lmstudio); "
        "default: their default ports.",
    )
    detect_host = Unicode("127.0.0.1", config=True, help="Where to look for local model servers.")
    detect_timeout = Float(0.5, config=True, help="Seconds to wait for each local server.")
    probe_timeout = Float(
        60.0, config=True, help="Seconds the test completion of a model may take before a switch."
    )
    download_timeout = Float(
        30.0,
        config=True,
        help="Seconds a download waits for the hub's next bytes before it stops (the partial file is "
        "kept; the next pull resumes it).",
    )

    @default("models_dir")
    def _default_models_dir(self) -> str:
        return str(default_store_dir() / "models")

    @default("store_dir")
    def _default_store_dir(self) -> str:
        return str(default_store_dir())

    @default("detect_servers")
    def _default_detect_servers(self) -> list[Any]:
        from ..backends import default_servers

        return [list(s) for s in default_servers()]

    def __init__(
        self,
        configured: Callable[[], dict[str, ModelConfig]] | None = None,
        engine: Callable[[], Any] | None = None,
        engine_settings: Callable[[dict[str, ModelConfig]], EngineSettings] | None = None,
        **kwargs: Any,
    ) -> None:
        """``configured``: the administrator's models; ``engine``: the running engine (None
        outside a server); ``engine_settings``: the configuration's engine settings for the given
        models (what a model is tested on before it is used)."""
        super().__init__(**kwargs)
        self._configured = configured or (lambda: {})
        self._engine = engine or (lambda: None)
        self._engine_settings = engine_settings or (lambda models: EngineSettings(models=models))
        self.downloader = Downloader(
            self.models_dir, endpoint=self.hub_endpoint, log=self.log, read_timeout=self.download_timeout
        )
        self.store = UserChoiceStore(self.store_dir)
        self.engine_installer = EngineInstaller()
        self._switch_lock = asyncio.Lock()
        self._custom_version = 0  # counts saves of the custom endpoint (a `use` keeps a later one)
        self._retired: list[Any] = []
        self._detected: dict[str, ModelConfig] = {}  # detected entry id -> its config, last listing
        self._serving_id: str | None = None  # the entry switched to in this server (use, or the start)
        self._edit_serving_id: str | None = None  # the same for edit predictions

    # -- the catalogue and the policy ---------------------------------------------------------------
    def catalogue(self) -> dict[str, CatalogueEntry]:
        return load_catalogue(self.extra_catalogue)

    def lock_reason(self, cfg: ModelConfig, catalogue_id: str | None = None) -> str | None:
        """Why the administrator does not allow this model for users (None: allowed)."""
        if not self.allow_user_choice:
            return "Your administrator has fixed the model (c.ModelService.allow_user_choice = False)."
        if self.allowed_backends and cfg.backend not in self.allowed_backends:
            return (
                f"Backend {cfg.backend!r} is not allowed here; allowed: {', '.join(self.allowed_backends)}."
            )
        if self.allowed_hosts and not _host_allowed(cfg, list(self.allowed_hosts)):
            what = "In-process models are" if cfg.backend == "embedded" else f"Host {_host_of(cfg)!r} is"
            return f"{what} not allowed here; allowed: {', '.join(self.allowed_hosts)}."
        if catalogue_id is not None and self.allowed_catalogue and catalogue_id not in self.allowed_catalogue:
            return f"Catalogue model {catalogue_id!r} is not allowed here."
        return None

    def _download_lock_reason(self, entry: CatalogueEntry) -> str | None:
        if not self.allow_downloads:
            return "Your administrator has turned downloads off (c.ModelService.allow_downloads = False)."
        return self.lock_reason(self._catalogue_config(entry, ""), entry.id)

    # -- sources ------------------------------------------------------------------------------------
    def _active_id(self, role: str = "completion") -> str | None:
        """The saved choice's id while it applies (allowed and valid), else None."""
        entry_id, cfg, _ = self.saved_choice(role)
        return entry_id if cfg is not None else None

    @staticmethod
    def check_role(role: str) -> str:
        if role not in ROLES:
            raise ModelServiceError(
                "bad_request", f"Unknown role {str(role)[:64]!r}; choose one of {', '.join(ROLES)}."
            )
        return role

    def saved_choice(self, role: str = "completion") -> tuple[str | None, ModelConfig | None, str | None]:
        """The saved choice for ``role`` (completions, edits): its id, the config it applies (None
        when it does not) and why not."""
        choice = self.store.load().get(ROLES[self.check_role(role)])
        if not isinstance(choice, dict):
            return None, None, None
        entry_id = choice.get("id")
        entry_id = entry_id[:4096] if isinstance(entry_id, str) else ""
        if entry_id.startswith("configured:"):
            # a reference to the administrator's entry (its keys stay in the administrator's config)
            key = entry_id.split(":", 1)[1]
            cfg = self._configured().get(key)
            if cfg is None:
                return entry_id, None, f"the administrator's model {key!r} is not configured any more"
            if not self.allow_user_choice:
                return entry_id, None, self.lock_reason(cfg)
            return entry_id, cfg, None
        if not isinstance(choice.get("config"), dict):
            return entry_id or None, None, "the saved choice has no model settings"
        try:
            cfg = ModelConfig.model_validate(choice["config"])
        except (ValidationError, ValueError, TypeError):
            return entry_id or None, None, "the saved model settings are not valid"
        catalogue_id = entry_id if entry_id in self.catalogue() else None
        reason = self.lock_reason(cfg, catalogue_id)
        if reason is not None:
            return entry_id, None, reason
        if cfg.backend == "embedded" and cfg.model_path and not os.path.isfile(cfg.model_path):
            return entry_id, None, f"the model file {cfg.model_path} is gone"
        return entry_id, cfg, None

    def secrets(self) -> list[str]:
        """Every key the user's store holds (also in entries that do not validate), and the
        administrator's configured keys: scrubbed from every message, sample and log line."""
        out = list(self._stored_secrets())
        with contextlib.suppress(Exception):
            for cfg in self._configured().values():
                out.extend(cfg.secrets())
        return out

    def _stored_secrets(self) -> tuple[str, ...]:
        """The keys in the store file, read again only when the file changes (every log line asks)."""
        try:
            st = os.stat(self.store.path)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        cached = getattr(self, "_secret_cache", None)
        if cached is not None and cached[0] == stamp:
            return cached[1]  # type: ignore[no-any-return]
        found = tuple(
            s for s in _strings_under(self.store.load(), ("api_key", "key", "token")) if len(s) >= 4
        )
        self._secret_cache = (stamp, found)
        return found

    def stored_custom(self) -> tuple[CustomEndpoint | None, str | None]:
        """The saved custom endpoint, or None and a warning when the saved entry is not valid."""
        custom = self.store.load().get("custom")
        if self.store.problem:
            return None, self.store.problem
        if custom is None:
            return None, None
        problem = None
        if not isinstance(custom, dict):
            problem = "it is not an object"
        else:
            try:
                endpoint = CustomEndpoint.model_validate(custom)
            except ValidationError as exc:
                problem = validation_message(exc)
            else:
                try:
                    self._validate_custom(endpoint)
                except ModelServiceError as exc:
                    problem = exc.message
                else:
                    return endpoint, None
        return None, (
            f"The saved custom endpoint in {self.store.path} is not valid ({problem}): it is skipped; "
            "save a new one to replace it."
        )

    def _catalogue_config(self, entry: CatalogueEntry, path: str) -> ModelConfig:
        return ModelConfig(backend="embedded", model_path=path, model=entry.id, style=entry.style)

    def configured_entries(self) -> list[ModelEntry]:
        out = []
        for key, cfg in self._configured().items():
            out.append(
                ModelEntry(
                    id=f"configured:{key}",
                    source="configured",
                    name=f"{key}: {cfg.model or cfg.backend}",
                    backend=cfg.backend,
                    model=cfg.model,
                    base_url=cfg.base_url,
                    where=_host_of(cfg) or "provider default",
                    style=cfg.style,
                    api_key_set=bool(cfg.resolved_api_key()),
                )
            )
        return out

    async def detected_entries(self) -> list[ModelEntry]:
        from ..backends import probe_local_servers

        servers = [(str(kind), int(port)) for kind, port in self.detect_servers]
        found = await probe_local_servers(servers, self.detect_host, self.detect_timeout)
        out = []
        for cand in found:
            cfg = cand.config
            root = cfg.base_url or ""
            entry_id = f"detected:{cfg.backend}:{root}:{cfg.model}"
            self._detected[entry_id] = cfg  # with what discovery learned (server kind, style)
            out.append(
                ModelEntry(
                    id=entry_id,
                    source="detected",
                    name=cfg.model,
                    backend=cfg.backend,
                    model=cfg.model,
                    base_url=cfg.base_url,
                    where=urlsplit(root).netloc or root,
                    style=cfg.style or self._style_name(cfg.model),
                    fim=cand.fim,
                    good_for=(cfg.server or cfg.backend) + (" (code model)" if cand.code else ""),
                )
            )
        return out

    def _style_name(self, model: str) -> str | None:
        from ..prompting import StyleRegistry

        with contextlib.suppress(Exception):
            return StyleRegistry().for_model(model).name
        return None

    def _scan_folders(self) -> list[Path]:
        folders = [Path(self.models_dir), *[Path(d) for d in self.scan_dirs]]
        if self.scan_default_dirs:
            home = Path(os.path.expanduser("~"))
            folders += [
                _hf_cache_dir(),
                home / ".lmstudio" / "models",
                home / ".cache" / "lm-studio" / "models",
            ]
        return folders

    def _gguf_files(self) -> list[Path]:
        seen: set[str] = set()
        out: list[Path] = []
        for folder in self._scan_folders():
            if not folder.is_dir():
                continue
            for root, dirs, files in os.walk(folder, followlinks=False):
                dirs[:] = [d for d in dirs if not d.startswith(".") and d != "blobs"]
                for name in files:
                    if not name.lower().endswith(".gguf"):
                        continue
                    path = Path(root) / name
                    real = os.path.realpath(path)
                    if real in seen or not os.path.isfile(real):
                        continue
                    seen.add(real)
                    out.append(path)
        return out

    def disk_entries(self, catalogue: dict[str, CatalogueEntry] | None = None) -> list[ModelEntry]:
        from ..backends import embedded

        catalogue = catalogue if catalogue is not None else self.catalogue()
        owned = {os.path.realpath(self.downloader.target_of(e)) for e in catalogue.values()}
        out = []
        demo = embedded.default_model_path()
        rows = [(Path(demo), "demo")] + [(p, None) for p in self._gguf_files()]
        for path, fixed_id in rows:
            if fixed_id is None and os.path.realpath(path) in owned:
                continue  # shown as its catalogue entry
            info: dict[str, Any] = {}
            with contextlib.suppress(Exception):
                info = embedded.read_gguf_info(path)
            style = None
            with contextlib.suppress(Exception):
                found = embedded.style_from_gguf({**info, "file_name": path.name})
                style = found if isinstance(found, str) else getattr(found, "name", None)
            fim = bool({"prefix", "suffix", "middle"} <= set(info.get("fim") or {})) if info else None
            out.append(
                ModelEntry(
                    id=fixed_id or f"file:{path}",
                    source="disk",
                    name="Bundled demo model" if fixed_id else (info.get("name") or path.name),
                    backend="embedded",
                    model=path.name,
                    where="this computer (in the server)",
                    size_bytes=path.stat().st_size,
                    style=style,
                    fim=fim,
                    path=str(path),
                    good_for="Shows the mechanics, not useful suggestions." if fixed_id else None,
                )
            )
        return out

    def catalogue_entries(self, catalogue: dict[str, CatalogueEntry] | None = None) -> list[ModelEntry]:
        catalogue = catalogue if catalogue is not None else self.catalogue()
        out = []
        for entry in catalogue.values():
            job = self.downloader.jobs.get(entry.id)
            downloaded = self.downloader.is_downloaded(entry)
            status = (
                "downloading"
                if job is not None and job.active
                else "downloaded"
                if downloaded
                else "not downloaded"
            )
            reason = self._download_lock_reason(entry)
            out.append(
                ModelEntry(
                    **entry.model_dump(include=CATALOGUE_FACTS),
                    source="catalogue",
                    backend="embedded",
                    model=entry.id,
                    where=f"this computer, from {entry.repo}",
                    status=status,
                    path=str(self.downloader.target_of(entry)) if downloaded else None,
                    partial_bytes=0 if status != "not downloaded" else self.downloader.partial_bytes(entry),
                    locked=reason is not None,
                    locked_reason=reason,
                )
            )
        return out

    def custom_entry(self) -> ModelEntry | None:
        custom, _ = self.stored_custom()
        if custom is None:
            return None
        key = custom.api_key
        return ModelEntry(
            id="custom",
            source="custom",
            name=f"{custom.model or '(server default)'} at {custom.base_url}",
            backend=custom.backend,
            model=custom.model,
            base_url=custom.base_url,
            where=urlsplit(custom.base_url).netloc,
            style=custom.style or self._style_name(custom.model),
            api_key_set=bool(key),
            api_key_masked=mask_key(key),
        )

    async def list_entries(self, detect: bool = True) -> dict[str, Any]:
        catalogue = self.catalogue()
        detected = await self.detected_entries() if detect else []
        disk = await asyncio.to_thread(self.disk_entries, catalogue)
        rows = [*self.configured_entries(), *detected, *disk, *self.catalogue_entries(catalogue)]
        custom = self.custom_entry()
        if custom is not None:
            rows.append(custom)
        warnings = self.warnings()
        saved = self._active_id()
        engine = self._engine()
        serving = engine.model_info(None) if engine is not None else None
        for row in rows:
            if row.source in ("detected", "disk", "custom"):
                with contextlib.suppress(ModelServiceError):
                    reason = self.lock_reason(self._row_config(row))
                    row.locked, row.locked_reason = reason is not None, reason
        # One truth: in a running server the entry "in use" is the one that serves now (a choice
        # saved meanwhile by `jupyter codecomplete models use` applies at the next start), none
        # while the administrator's model serves with nothing chosen; without a server (the CLI)
        # it is the saved choice, which the next start serves.
        current = self._serving_config(engine)
        if current is None:
            active = saved
        elif self._serving_id is None and any(
            self._same_model(c, current) for c in self._configured().values()
        ):
            active = None
        else:
            active = self._serving_row(rows, current, saved)
        for row in rows:
            row.active = active is not None and row.id == active
        edit_active, edit_serving = self._edit_listing(rows, engine, active)
        for row in rows:
            row.edit_active = edit_active is not None and row.id == edit_active
            with contextlib.suppress(ModelServiceError):
                gguf_name = DEMO_NAME if row.id == "demo" else row.name if row.source == "disk" else None
                row.edit_style, row.edit_native = self.edit_format(self._row_config(row), engine, gguf_name)
        return {
            "entries": [r.model_dump() for r in rows],
            "active": active,
            "saved": saved,
            "serving": serving.model_dump() if serving is not None else None,
            "edit_active": edit_active,
            "edit_saved": self._active_id("edit"),
            "edit_serving": edit_serving,
            "policy": {
                "allow_user_choice": self.allow_user_choice,
                "allow_downloads": self.allow_downloads,
                "allowed_backends": list(self.allowed_backends),
                "allowed_hosts": list(self.allowed_hosts),
                "allowed_catalogue": list(self.allowed_catalogue),
            },
            "custom_backends": custom_backends(),
            "models_dir": str(self.downloader.models_dir),
            "offline_hint": self.downloader.hand_placement_hint(),
            "downloads": [j.snapshot() for j in self.downloader.jobs.values()],
            "warnings": warnings,
        }

    def _edit_listing(
        self, rows: list[ModelEntry], engine: Any, active: str | None
    ) -> tuple[str | None, dict[str, Any] | None]:
        """Which entry serves edit predictions, and the serving edit model with its format. In a
        running server: the one the engine routes edits to (the user's edit choice, the completion
        entry when edits fall back to it; none for the administrator's edit or chat model);
        without a server: the saved edit choice, else the completion entry."""
        serving = self.edit_serving(engine)
        if serving is None:
            saved = self._active_id("edit")
            return (saved or active) if engine is None else None, None
        if serving["key"] == "completion":
            return active, serving
        if serving["key"] == "edit" and self._edit_serving_id is not None:
            if any(r.id == self._edit_serving_id for r in rows):
                return self._edit_serving_id, serving
        return None, serving

    @staticmethod
    def _serving_config(engine: Any) -> ModelConfig | None:
        models = getattr(engine, "models", None)
        return models.get("completion") if isinstance(models, dict) else None

    @staticmethod
    def _same_model(a: ModelConfig, b: ModelConfig) -> bool:
        def ident(c: ModelConfig) -> tuple[Any, ...]:
            return (c.backend, (c.base_url or "").rstrip("/"), c.model, c.model_path)

        return ident(a) == ident(b)

    def _serving_row(self, rows: list[ModelEntry], current: ModelConfig, saved: str | None) -> str | None:
        """The id of the row that serves now; a model that serves but is listed nowhere (its server
        stopped answering, so discovery no longer finds it) gets a row of its own."""
        if self._serving_id is not None and any(r.id == self._serving_id for r in rows):
            return self._serving_id
        candidates = [r for r in rows if r.source != "catalogue" or r.status == "downloaded"]
        order = sorted(candidates, key=lambda r: (r.id != saved, r.id != self._serving_id))
        for row in order:
            with contextlib.suppress(ModelServiceError):
                if self._same_model(self._row_config(row), current):
                    return row.id
        entry_id = self._serving_id or saved or "serving"
        rows.append(
            ModelEntry(
                id=entry_id,
                source="detected" if entry_id.startswith("detected:") else "configured",
                name=current.model or current.backend,
                backend=current.backend,
                model=current.model,
                base_url=current.base_url,
                where=_host_of(current),
                style=current.style,
                status="not answering",
            )
        )
        return entry_id

    def warnings(self) -> list[str]:
        """What is wrong with the user's store: an unusable file, a bad custom entry, a saved choice
        that does not apply (the configured model serves instead)."""
        out: list[str] = []
        self.store.load()
        if self.store.problem:
            out.append(self.store.problem)
        _, problem = self.stored_custom()
        if problem and problem not in out:
            out.append(problem)
        for role, what in (("completion", "choice"), ("edit", "choice for edits")):
            entry_id, cfg, reason = self.saved_choice(role)
            if entry_id and cfg is None and reason:
                out.append(f"Your saved {what} {entry_id[:200]!r} is not used: {reason}.")
        return out

    def _row_config(self, row: ModelEntry) -> ModelConfig:
        if row.source == "custom":
            return self._custom_config(None)
        if row.source == "disk":
            return ModelConfig(backend="embedded", model_path=None if row.id == "demo" else row.path)
        if row.source == "configured":
            configured = self._configured().get(row.id.split(":", 1)[1])
            if configured is not None:
                return configured
        if row.source == "catalogue":
            entry = self.catalogue().get(row.id)
            if entry is not None:
                return self._catalogue_config(entry, str(self.downloader.target_of(entry)))
        if row.id in self._detected:
            return self._detected[row.id]
        return ModelConfig(backend=row.backend, base_url=row.base_url, model=row.model)

    # -- resolving an id ----------------------------------------------------------------------------
    async def resolve(
        self, entry_id: str, custom: CustomEndpoint | None = None
    ) -> tuple[ModelConfig, str | None]:
        """The config an id stands for, and its catalogue id (for the lock)."""
        if not isinstance(entry_id, str) or not entry_id or len(entry_id) > 4096:
            raise ModelServiceError("bad_request", "Give the id of a model from the list.")
        if entry_id == "custom":
            if custom is not None:
                self.save_custom(custom, check_only=True)
                return self._custom_config(custom), None
            return self._custom_config(None), None
        if entry_id.startswith("configured:"):
            key = entry_id.split(":", 1)[1]
            configured = self._configured()
            if key not in configured:
                raise ModelServiceError("unknown_model", f"No configured model {key!r}.")
            return configured[key], None
        if entry_id == "demo":
            return ModelConfig(backend="embedded"), None
        if entry_id.startswith("file:"):
            path = entry_id[5:]
            known = {str(p) for p in await asyncio.to_thread(self._gguf_files)}
            if path not in known:
                raise ModelServiceError(
                    "unknown_model",
                    f"No model file {path!r} in the models folders ({self.downloader.models_dir}, ...).",
                )
            if not is_gguf(path):
                raise ModelServiceError("not_gguf", f"{path} is not a GGUF file.")
            return ModelConfig(backend="embedded", model_path=path), None
        if entry_id.startswith("detected:"):
            for row in await self.detected_entries():
                if row.id == entry_id:
                    return self._row_config(row), None
            raise ModelServiceError(
                "unknown_model", f"{entry_id} is not running now (no local server reports that model)."
            )
        catalogue = self.catalogue()
        entry = catalogue.get(entry_id)
        if entry is None:
            raise ModelServiceError(
                "unknown_model",
                f"Unknown model id {entry_id!r}; see `jupyter codecomplete models` for the ids.",
            )
        if not self.downloader.is_downloaded(entry):
            raise ModelServiceError("not_downloaded", f"{entry_id} is not downloaded yet; pull it first.")
        return self._catalogue_config(entry, str(self.downloader.target_of(entry))), entry.id

    # -- the custom endpoint ------------------------------------------------------------------------
    def _validate_custom(self, custom: CustomEndpoint) -> None:
        offered = custom_backends()
        if custom.backend not in offered:
            raise ModelServiceError(
                "bad_request",
                f"Unknown backend {custom.backend!r}; choose one of {', '.join(offered)}.",
            )
        parts = urlsplit(custom.base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ModelServiceError(
                "bad_url",
                "The base URL must be an http:// or https:// URL with a host, e.g. http://host:8000/v1.",
            )

    def _custom_config(self, custom: CustomEndpoint | None) -> ModelConfig:
        stored, problem = self.stored_custom()
        if custom is None:
            if stored is None:
                raise ModelServiceError("unknown_model", problem or "No custom endpoint has been saved yet.")
            custom = stored
        key = custom.api_key
        if not key and stored is not None and stored.base_url == custom.base_url:
            key = stored.api_key  # the key stays on the server: the browser never has it
        return ModelConfig(
            backend=custom.backend,
            base_url=custom.base_url.strip(),
            model=custom.model,
            api_key=SecretStr(key) if key else None,
            style=custom.style or None,
        )

    def save_custom(self, custom: CustomEndpoint, check_only: bool = False) -> ModelConfig:
        self._validate_custom(custom)
        cfg = self._custom_config(custom)
        reason = self.lock_reason(cfg)
        if reason is not None:
            raise ModelServiceError("locked", reason)
        if not check_only:
            with self.store.edit() as data:
                data["custom"] = self._stored(cfg)
                self._custom_version += 1
        return cfg

    @staticmethod
    def _stored(cfg: ModelConfig) -> dict[str, Any]:
        data = cfg.model_dump(mode="json", exclude_defaults=True)
        if cfg.api_key is not None:
            data["api_key"] = cfg.api_key.get_secret_value()
        return data

    # -- testing and switching ----------------------------------------------------------------------
    async def probe(self, cfg: ModelConfig, sample: bool = True) -> dict[str, Any]:
        """The ``jupyter codecomplete check`` report for one model (nothing is switched), on an
        engine built from the configuration's settings with ``cfg`` as its completion model."""
        (report,) = await check_models(
            self._engine_settings({"completion": cfg}), self.probe_timeout, sample=sample
        )
        report.pop("base_url", None) if cfg.backend == "embedded" else None
        # a model may write its key back: the completion path's scrubbing, on the sample and the error
        secrets = [*cfg.secrets(), *self.secrets()]
        for field in ("sample", "error", "serves"):
            if isinstance(report.get(field), str):
                report[field] = scrub(report[field], secrets)
        return report

    async def test(self, entry_id: str, custom: CustomEndpoint | None = None) -> dict[str, Any]:
        cfg, catalogue_id = await self.resolve(entry_id, custom)
        reason = self.lock_reason(cfg, catalogue_id) if not entry_id.startswith("configured:") else None
        if reason is not None:
            raise ModelServiceError("locked", reason)
        return await self.probe(cfg)

    async def use(
        self, entry_id: str, custom: CustomEndpoint | None = None, role: str = "completion"
    ) -> dict[str, Any]:
        """Validate, probe, switch the running engine, save the choice. ``role``: ``completion``
        (the completion model) or ``edit`` (the model of edit predictions: the same checks, locks
        and store, kept beside the completion choice)."""
        self.check_role(role)
        custom_version = self._custom_version
        cfg, catalogue_id = await self.resolve(entry_id, custom)
        if not entry_id.startswith("configured:") or not self.allow_user_choice:
            reason = self.lock_reason(cfg, catalogue_id)
            if reason is not None:
                raise ModelServiceError("locked", reason)
        report = await self.probe(cfg)
        if not report.get("ok"):
            raise ModelServiceError(
                "probe_failed",
                f"{entry_id} did not pass the check: {report.get('error') or 'no completion came back'}",
            )
        serving = None
        async with self._switch_lock:
            engine = self._engine()
            if engine is not None:
                replace = getattr(engine, "replace_model", None)
                if replace is None:
                    raise ModelServiceError(
                        "not_supported", f"{type(engine).__name__} cannot switch models while running."
                    )
                old = replace(role, cfg, report.get("serves"))
                if old is not None:
                    self._retire(old)
                if role == "completion":
                    info = engine.model_info(None)
                    serving = info.model_dump() if info is not None else None
                else:
                    serving = self.edit_serving(engine)
            with self.store.edit() as data:
                # a custom endpoint sent with this request is saved, unless one was saved (PUT) while
                # it was being tested: that later save stays
                if entry_id == "custom" and custom is not None and self._custom_version == custom_version:
                    data["custom"] = self._stored(cfg)
                    self._custom_version += 1
                # the administrator's model is saved as a reference: its keys and headers stay in the
                # administrator's config
                data[ROLES[role]] = (
                    {"id": entry_id}
                    if entry_id.startswith("configured:")
                    else {"id": entry_id, "config": self._stored(cfg)}
                )
            if engine is not None:
                if role == "completion":
                    self._serving_id = entry_id
                else:
                    self._edit_serving_id = entry_id
        if role == "edit":
            if serving is None:  # no running engine (the CLI): the format the engine would choose
                style, native = self.edit_format(cfg, engine)
                serving = ServingModel(
                    name=cfg.model or cfg.backend, backend=cfg.backend, style=style, key="edit", native=native
                ).model_dump()
            return {"edit_active": entry_id, "edit_serving": serving, "report": report}
        if serving is None:
            serving = ServingModel(
                name=cfg.model or cfg.backend,
                backend=cfg.backend,
                style=report.get("style"),
                key="completion",
            ).model_dump()
        return {"active": entry_id, "serving": serving, "report": report}

    def edit_format(
        self, cfg: ModelConfig, engine: Any = None, name: str | None = None
    ) -> tuple[str | None, bool | None]:
        """The format edit predictions ask ``cfg`` in (the engine's decision,
        :func:`~jupyter_codecomplete.completion.edits.edit_style_for`) and whether it is the model's
        own next-edit format."""
        from ..completion import edit_style_for
        from ..prompting import GENERIC_EDIT_STYLE, StyleRegistry

        styles = getattr(engine, "styles", None) or StyleRegistry()
        try:
            # the name the engine's backend has: the model, else (a GGUF file) the file's own name
            found = edit_style_for(styles, cfg.style, cfg.model or name or cfg.backend)
        except Exception:
            return None, None
        return found.name, found.name != GENERIC_EDIT_STYLE

    def edit_serving(self, engine: Any) -> dict[str, Any] | None:
        """The model that serves edit predictions now and the format it is asked in."""
        from ..completion import edit_model_key, edit_style

        if engine is None or not isinstance(getattr(engine, "models", None), dict):
            return None
        try:
            key = edit_model_key(engine)
            backend = engine.backend(key)
            style = edit_style(engine, key)
        except Exception:
            return None
        from ..prompting import GENERIC_EDIT_STYLE

        return ServingModel(
            name=backend.name,
            backend=backend.kind,
            style=style.name,
            demo=backend.demo,
            key=key,
            native=style.name != GENERIC_EDIT_STYLE,
        ).model_dump()

    def forget_choice(self, role: str = "completion") -> None:
        self.store.update(**{ROLES[self.check_role(role)]: None})

    def _retire(self, backend: Any) -> None:
        """Close an old backend's HTTP clients once the requests still on it are done."""
        self._retired.append(backend)

        async def later() -> None:
            await asyncio.sleep(max(backend.config.timeout, 30.0) + 5.0)
            with contextlib.suppress(Exception):
                await backend.aclose()
            with contextlib.suppress(ValueError):
                self._retired.remove(backend)

        with contextlib.suppress(RuntimeError):
            task = asyncio.get_running_loop().create_task(later(), name="codecomplete:retire-backend")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @property
    def _tasks(self) -> set[asyncio.Task[Any]]:
        if not hasattr(self, "_task_set"):
            self._task_set: set[asyncio.Task[Any]] = set()
        return self._task_set

    def startup_choice(self, role: str = "completion") -> ModelConfig | None:
        """The user's saved choice for ``role``, if it is still allowed and valid (read at server
        start)."""
        try:
            entry_id, cfg, reason = self.saved_choice(role)
        except Exception as exc:  # a bad store never stops the extension from loading
            self.log.warning(
                "jupyter_codecomplete: the saved model choice cannot be read (%s)", type(exc).__name__
            )
            return None
        if self.store.problem:
            self.log.warning("jupyter_codecomplete: %s", self.store.problem)
        if cfg is None and reason:
            what = "model choice for edits" if role == "edit" else "model choice"
            self.log.info("jupyter_codecomplete: the saved %s is not used: %s", what, reason)
        # the entry that serves from the start, for the list's "in use"
        if role == "completion":
            self._serving_id = entry_id if cfg is not None else None
        else:
            self._edit_serving_id = entry_id if cfg is not None else None
        return cfg

    # -- downloads ----------------------------------------------------------------------------------
    def catalogue_entry(self, entry_id: str) -> CatalogueEntry:
        entry = self.catalogue().get(entry_id) if isinstance(entry_id, str) else None
        if entry is None:
            raise ModelServiceError(
                "unknown_model", f"Unknown catalogue id {entry_id!r}; see `jupyter codecomplete models`."
            )
        return entry

    async def pull(self, entry_id: str) -> Any:
        entry = self.catalogue_entry(entry_id)
        reason = self._download_lock_reason(entry)
        if reason is not None:
            raise ModelServiceError("locked", reason)
        return await self.downloader.start(entry)

    def cancel(self, entry_id: str) -> Any:
        return self.downloader.cancel(entry_id)

    # -- the llama.cpp engine ------------------------------------------------------------------------
    async def install_engine(self) -> dict[str, Any]:
        """Start installing llama-cpp-python in the background (one at a time); its snapshot."""
        if not self.allow_user_choice:
            raise ModelServiceError(
                "locked", "Your administrator has fixed the model (c.ModelService.allow_user_choice = False)."
            )
        if not self.allow_engine_install:
            raise ModelServiceError(
                "locked",
                "Your administrator does not let llama.cpp be installed from here "
                "(c.ModelService.allow_engine_install = False).",
            )
        if llama_cpp_installed() and not self.engine_installer.running:
            return self.engine_installer.snapshot()  # nothing to do
        return await self.engine_installer.start()

    async def close(self) -> None:
        await self.engine_installer.close()
        await self.downloader.close()
        for task in list(self._tasks):
            task.cancel()
