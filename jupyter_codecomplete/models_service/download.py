"""Downloads of catalogue models with ``huggingface_hub``: off the event loop, one at a time per model,
cancellable, checked.

Before a transfer: offline mode (``HF_HUB_OFFLINE``) and an unreachable hub are clear errors that say
where to put a GGUF file by hand; the hub's metadata gives the size, and the free disk space is checked
against it. The transfer is ``hf_hub_download`` into the models folder (it resumes an interrupted
download with an HTTP range request, and honours ``HF_ENDPOINT``); a progress object it calls for every
chunk records progress and raises when the download is cancelled. After it: the file must start with
the GGUF magic, and its SHA-256 must equal the catalogue's pinned one, else the checksum the hub reports
(the ETag / X-Linked-Etag of an LFS file). A connection that drops mid-transfer is resumed by
``huggingface_hub`` itself (a ``Range`` request, up to five times while data keeps arriving); a download
that still fails, is cancelled, has a bad checksum or is not GGUF leaves no partial file behind
(``huggingface_hub`` 2.x writes to a temporary file and removes it; we remove the rest).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalogue import CatalogueEntry
from .errors import ModelServiceError

GGUF_MAGIC = b"GGUF"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
DISK_MARGIN = 64 * 1024 * 1024
_TRUE = {"1", "true", "yes", "on"}

try:  # POSIX: a lock file makes two pulls of one model (even from two processes) an error
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no module there: the lock is skipped


class _Cancelled(Exception):
    pass


def is_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def hub_endpoint(configured: str | None = None) -> str | None:
    return configured or os.environ.get("HF_ENDPOINT") or None


def is_gguf(path: str | os.PathLike[str]) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == GGUF_MAGIC
    except OSError:
        return False


@dataclass
class DownloadJob:
    """One download; ``snapshot()`` is what the browser and the CLI see."""

    entry: CatalogueEntry
    target: Path
    total: int | None = None
    done: int = 0
    state: str = "running"  # running | verifying | done | failed | cancelled
    error: dict[str, str] | None = None
    path: str | None = None
    expected_sha256: str | None = None
    resumed_from: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    cancel_event: threading.Event = field(default_factory=threading.Event)
    task: asyncio.Future[Any] | None = None

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def active(self) -> bool:
        return self.state in ("running", "verifying")

    def snapshot(self) -> dict[str, Any]:
        elapsed = (self.finished or time.monotonic()) - self.started
        moved = max(self.done - self.resumed_from, 0)
        return {
            "id": self.id,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "fraction": (self.done / self.total) if self.total else None,
            "bytes_per_s": moved / elapsed if elapsed > 0 else None,
            "resumed_from": self.resumed_from,
            "path": self.path,
            "error": self.error,
        }


class Downloader:
    """Runs the downloads of one server (or one CLI command) into ``models_dir``."""

    def __init__(
        self, models_dir: str | os.PathLike[str], endpoint: str | None = None, log: Any = None
    ) -> None:
        self.models_dir = Path(models_dir)
        self.endpoint = endpoint
        self.log = log
        self.jobs: dict[str, DownloadJob] = {}

    # -- public -------------------------------------------------------------------------------------
    def target_of(self, entry: CatalogueEntry) -> Path:
        return self.models_dir / entry.file

    def is_downloaded(self, entry: CatalogueEntry) -> bool:
        target = self.target_of(entry)
        return target.is_file() and not self._partials(entry) and is_gguf(target)

    def hand_placement_hint(self) -> str:
        return (
            f"Put a GGUF file in {self.models_dir} by hand (or in the Hugging Face cache); "
            "it then appears under 'On this computer'."
        )

    async def start(self, entry: CatalogueEntry) -> DownloadJob:
        """Check, then start the transfer as a tracked task; errors before the transfer are raised."""
        current = self.jobs.get(entry.id)
        if current is not None and current.active:
            raise ModelServiceError(
                "already_downloading", f"{entry.id} is already being downloaded; wait for it or cancel it."
            )
        job = DownloadJob(entry=entry, target=self.target_of(entry))
        self.jobs[entry.id] = job
        try:
            lock = await asyncio.to_thread(self._preflight, job)
        except ModelServiceError as exc:
            job.state, job.error, job.finished = "failed", exc.to_dict(), time.monotonic()
            raise
        job.task = asyncio.ensure_future(asyncio.to_thread(self._transfer, job, lock))
        job.task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)
        return job

    def cancel(self, entry_id: str) -> DownloadJob:
        job = self.jobs.get(entry_id)
        if job is None or not job.active:
            raise ModelServiceError("not_found", f"No download of {entry_id!r} is running.")
        job.cancel_event.set()
        return job

    async def wait(self, job: DownloadJob) -> DownloadJob:
        if job.task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(job.task)
        return job

    async def close(self) -> None:
        for job in self.jobs.values():
            if job.active:
                job.cancel_event.set()
        for job in list(self.jobs.values()):
            if job.task is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(job.task), 10)

    # -- the steps (in a worker thread) -------------------------------------------------------------
    def _fail(self, job: DownloadJob, type: str, message: str) -> None:
        job.state, job.error, job.finished = "failed", {"type": type, "message": message}, time.monotonic()

    def _preflight(self, job: DownloadJob) -> Any:
        entry = job.entry
        if is_offline():
            raise ModelServiceError(
                "offline", f"Downloads are off (HF_HUB_OFFLINE is set). {self.hand_placement_hint()}"
            )
        from huggingface_hub import get_hf_file_metadata, hf_hub_url

        endpoint = hub_endpoint(self.endpoint)
        url = hf_hub_url(entry.repo, entry.file, revision=entry.revision, endpoint=endpoint)
        try:
            meta = get_hf_file_metadata(url, endpoint=endpoint, timeout=10)
        except Exception as exc:
            status = getattr(getattr(exc, "response", None), "status_code", None)
            if status == 404:
                raise ModelServiceError(
                    "not_found",
                    f"The hub has no file {entry.file!r} in {entry.repo} at revision {entry.revision}.",
                ) from None
            raise ModelServiceError(
                "hub_unreachable",
                f"Cannot reach the model hub ({type(exc).__name__}). {self.hand_placement_hint()}",
            ) from None
        job.total = meta.size or entry.size_bytes or None
        etag = (meta.etag or "").strip('"').lower()
        job.expected_sha256 = entry.sha256 or (etag if _HEX64.match(etag) else None)
        self.models_dir.mkdir(parents=True, exist_ok=True)
        lock = self._lock(job)
        try:
            partial = sum(p.stat().st_size for p in self._partials(entry))
            job.done = job.resumed_from = partial
            need = max((job.total or 0) - partial, 0)
            free = shutil.disk_usage(self.models_dir).free
            if need + DISK_MARGIN > free:
                raise ModelServiceError(
                    "not_enough_disk",
                    f"{entry.id} needs {_human(need)} more in {self.models_dir}; "
                    f"only {_human(free)} is free.",
                )
        except BaseException:
            self._unlock(lock)
            raise
        return lock

    def _transfer(self, job: DownloadJob, lock: Any) -> None:
        entry = job.entry
        try:
            from huggingface_hub import hf_hub_download

            try:
                path = hf_hub_download(
                    entry.repo,
                    entry.file,
                    revision=entry.revision,
                    local_dir=self.models_dir,
                    endpoint=hub_endpoint(self.endpoint),
                    tqdm_class=_progress_class(job),
                )
            except _Cancelled:
                self._remove(entry, partial_only=False)
                job.state, job.finished = "cancelled", time.monotonic()
                job.error = {"type": "cancelled", "message": f"The download of {entry.id} was cancelled."}
                return
            except Exception as exc:
                self._fail(
                    job,
                    "network",
                    f"The download of {entry.id} stopped ({type(exc).__name__}: {_short(exc)}). "
                    "No partial file is left behind; pull it again when the network is back.",
                )
                return
            job.state = "verifying"
            if not is_gguf(path):
                self._remove(entry, partial_only=False)
                self._fail(
                    job, "not_gguf", f"{entry.file} is not a GGUF file (no GGUF magic); it was removed."
                )
                return
            if job.expected_sha256:
                try:
                    digest = _sha256(path, job.cancel_event)
                except _Cancelled:
                    self._remove(entry, partial_only=False)
                    job.state, job.finished = "cancelled", time.monotonic()
                    return
                if digest != job.expected_sha256:
                    self._remove(entry, partial_only=False)
                    self._fail(
                        job,
                        "checksum_mismatch",
                        f"{entry.file} is corrupt: SHA-256 {digest[:12]}… but the hub reports "
                        f"{job.expected_sha256[:12]}…; the file was removed, pull it again.",
                    )
                    return
            job.path = str(path)
            job.done = job.total or job.done
            job.state, job.finished = "done", time.monotonic()
        finally:
            self._unlock(lock)

    # -- files --------------------------------------------------------------------------------------
    def _download_meta_dir(self) -> Path:
        return self.models_dir / ".cache" / "huggingface" / "download"

    def _partials(self, entry: CatalogueEntry) -> list[Path]:
        folder = self._download_meta_dir()
        if not folder.is_dir():
            return []
        try:
            from huggingface_hub._local_folder import get_local_download_paths

            paths = get_local_download_paths(local_dir=self.models_dir, filename=entry.file)
            stem = paths.incomplete_path("x").name.rsplit(".", 2)[0]
            return sorted(folder.glob(f"{stem}.*.incomplete"))
        except Exception:  # an internal helper: fall back to every partial file
            return sorted(folder.glob("*.incomplete"))

    def _remove(self, entry: CatalogueEntry, partial_only: bool) -> None:
        victims = list(self._partials(entry))
        if not partial_only:
            victims.append(self.target_of(entry))
            victims.append(self._download_meta_dir() / f"{entry.file}.metadata")
        for p in victims:
            with contextlib.suppress(OSError):
                p.unlink()

    def _lock(self, job: DownloadJob) -> Any:
        if fcntl is None:
            return None
        path = self.models_dir / f".{job.entry.file}.pull-lock"
        f = open(path, "a+")
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise ModelServiceError(
                "already_downloading",
                f"{job.entry.id} is already being downloaded by another process; wait for it.",
            ) from None
        return f

    @staticmethod
    def _unlock(lock: Any) -> None:
        if lock is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
            lock.close()


def _progress_class(job: DownloadJob) -> type:
    class _Progress:
        """What ``huggingface_hub`` calls for every chunk: count it, or stop when cancelled."""

        def __init__(self, *args: Any, total: int | None = None, initial: int = 0, **kwargs: Any) -> None:
            self.n = initial
            if total:
                job.total = total
            job.done = initial
            if initial and not job.resumed_from:
                job.resumed_from = initial

        def update(self, n: int = 1) -> None:
            if job.cancel_event.is_set():
                raise _Cancelled()
            self.n += n
            job.done = self.n

        def close(self) -> None:
            pass

        def __enter__(self) -> _Progress:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    return _Progress


def _sha256(path: str | os.PathLike[str], cancel: threading.Event) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            if cancel.is_set():
                raise _Cancelled()
            h.update(block)
    return h.hexdigest()


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


def _short(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else ""
