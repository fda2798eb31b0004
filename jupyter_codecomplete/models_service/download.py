"""Downloads of catalogue models: one at a time per model, bounded, checked, cancellable, resumable.

Before a transfer (in a worker thread): offline mode (``HF_HUB_OFFLINE``) and an unreachable hub are
clear errors that say where to put a GGUF file by hand. ``huggingface_hub`` builds the file's URL
(``hf_hub_url``, honouring ``HF_ENDPOINT``), reads its metadata (``get_hf_file_metadata``: size, the
LFS ETag, the commit) and the request headers (``build_hf_headers``). The size to expect is the
catalogue's pinned ``size_bytes`` (a pin when the entry pins ``sha256`` too; else an estimate, and the
hub's size counts); the digest to check is the catalogue's pinned
``sha256``, else the hub's ETag **only when it is a SHA-256** (an LFS file's). A hub that contradicts
a pin (another size or digest) is refused before any byte moves, and so is a file whose digest nobody
can tell (no pin, an ETag that is not a SHA-256): an unchecked file is never accepted. The free disk
space is checked against what is still missing.

The transfer is ours, on the event loop (``httpx``), because ``hf_hub_download`` of the installed
``huggingface_hub`` (2.x) does not fit: it writes to a temporary file unique to the call and deletes it
on failure (no resume across pulls), it reads in ``DOWNLOAD_CHUNK_SIZE`` pieces (10 MB: no progress
and no cancel for seconds on a slow link), it only sees a cancel between two pieces (never during a
stall), and it reads a response without a length to its end before checking the size. Here:

* bytes arrive in pieces of at most :data:`READ_CHUNK` (one socket read); progress is counted for
  every piece, a Cancel (``DELETE``) cancels the task at once, even while the hub sends nothing;
* reading stops at the expected size: a hub that announces more (``Content-Length``) is refused
  before a byte is read; one that streams more without saying so is cut at the size, within the piece
  that crosses it (what follows is never read), and the digest then decides; a hub silent for
  ``read_timeout`` seconds is an error;
* the bytes go to ``<models>/.partial/<file>.incomplete`` with a sidecar naming the repo, revision,
  size and digest they belong to. A dropped connection is retried from where it stopped with
  ``Range: bytes=N-`` (up to :data:`RETRIES` times while data keeps arriving); a pull that still
  fails, or a server that stops, keeps the partial file, and the next pull of the same pinned file
  resumes it with a range request (a hub that ignores the range and answers 200 starts it over);
  the job and the catalogue row say so (``resumable``, ``partial_bytes``: the dialog offers Resume).
  A hub that answers ``5xx`` mid-pull (a 503 after a dropped connection) is asked again once, after
  :data:`UNAVAILABLE_WAIT` seconds, from where it stopped, and the job carries a ``notice`` saying so;
* nothing stays that cannot be resumed: a cancel, a failure with no byte kept, a digest mismatch or a
  non-GGUF file removes the partial file and its sidecar (and ``.partial`` when it is empty); the
  lock file goes when its pull ends;
* the SHA-256 is computed as the bytes are written (off the loop, with the partial file's bytes
  first); the file is renamed into the models folder only when the size, the digest and the GGUF magic
  all match. A cancelled pull, a digest mismatch or a file that is not GGUF leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..backends import make_client
from .catalogue import CatalogueEntry
from .errors import ModelServiceError

GGUF_MAGIC = b"GGUF"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
DISK_MARGIN = 64 * 1024 * 1024
_TRUE = {"1", "true", "yes", "on"}
# Bytes read from the hub per piece (what one socket read gives, at most 64 KB with httpx): progress
# is counted per piece, and nothing received is held back when the connection drops.
READ_CHUNK = 64 * 1024
# Bytes collected before one write (and hash update) in a worker thread.
WRITE_CHUNK = 1024 * 1024
# Reconnections (with a range request) of one pull after a dropped connection, while data arrives.
RETRIES = 3
# Seconds before the one retry of a pull the hub answered 5xx (503: busy, a restart) in the middle.
UNAVAILABLE_WAIT = 2.0
PARTIAL_DIR = ".partial"

try:  # POSIX: a lock file makes two pulls of one model (even from two processes) an error
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no module there: the lock is skipped


class _Cancelled(Exception):
    pass


class _Dropped(Exception):
    """The connection ended before the file did (retried with a range request)."""


class _Unavailable(Exception):
    """The hub answered 5xx (asked again once, after a wait)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


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
    # said to the user while it runs and after (a 503 the pull resumed from by itself)
    notice: str | None = None
    # it failed with bytes kept that the next pull resumes from
    resumable: bool = False
    url: str = ""
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
            "notice": self.notice,
            "resumable": self.resumable,
        }


class Downloader:
    """Runs the downloads of one server (or one CLI command) into ``models_dir``."""

    def __init__(
        self,
        models_dir: str | os.PathLike[str],
        endpoint: str | None = None,
        log: Any = None,
        read_timeout: float = 30.0,
    ) -> None:
        self.models_dir = Path(models_dir)
        self.endpoint = endpoint
        self.log = log
        self.read_timeout = read_timeout
        self.unavailable_wait = UNAVAILABLE_WAIT
        self.jobs: dict[str, DownloadJob] = {}

    # -- public -------------------------------------------------------------------------------------
    def target_of(self, entry: CatalogueEntry) -> Path:
        return self.models_dir / entry.file

    def partial_of(self, entry: CatalogueEntry) -> Path:
        return self.models_dir / PARTIAL_DIR / f"{entry.file}.incomplete"

    def partial_bytes(self, entry: CatalogueEntry) -> int:
        """Bytes kept of a pull of this file that the next pull resumes (0: none)."""
        part, side = self.partial_of(entry), self._sidecar(entry)
        try:
            saved = json.loads(side.read_text(encoding="utf-8"))
            size = part.stat().st_size
        except (OSError, ValueError):
            return 0
        if not isinstance(saved, dict):
            return 0
        same = (saved.get("repo"), saved.get("file"), saved.get("revision")) == (
            entry.repo,
            entry.file,
            entry.revision,
        )
        return size if same else 0

    def is_downloaded(self, entry: CatalogueEntry) -> bool:
        target = self.target_of(entry)
        return target.is_file() and is_gguf(target)  # renamed into place only once checked

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
            lock, headers = await asyncio.to_thread(self._preflight, job)
        except ModelServiceError as exc:
            job.state, job.error, job.finished = "failed", exc.to_dict(), time.monotonic()
            raise
        job.task = asyncio.ensure_future(self._run(job, lock, headers))
        job.task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)
        return job

    def cancel(self, entry_id: str) -> DownloadJob:
        job = self.jobs.get(entry_id)
        if job is None or not job.active:
            raise ModelServiceError("not_found", f"No download of {entry_id!r} is running.")
        job.cancel_event.set()
        if job.task is not None:
            job.task.cancel()  # at once, even while the hub sends nothing
        return job

    async def wait(self, job: DownloadJob) -> DownloadJob:
        if job.task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.shield(job.task)
        return job

    async def close(self) -> None:
        """The server stops: running pulls end, their partial files stay for the next pull."""
        for job in list(self.jobs.values()):
            if job.task is not None and not job.task.done():
                job.task.cancel()
        for job in list(self.jobs.values()):
            if job.task is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(asyncio.shield(job.task), 10)

    # -- before the transfer (in a worker thread) ---------------------------------------------------
    def _preflight(self, job: DownloadJob) -> tuple[Any, dict[str, str]]:
        entry = job.entry
        if is_offline():
            raise ModelServiceError(
                "offline", f"Downloads are off (HF_HUB_OFFLINE is set). {self.hand_placement_hint()}"
            )
        from huggingface_hub import get_hf_file_metadata, hf_hub_url
        from huggingface_hub.utils import (  # type: ignore[attr-defined]  # exported lazily, untyped there
            build_hf_headers,
        )

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
        job.url = url
        job.total = self._expected_size(entry, meta.size)
        job.expected_sha256 = self._expected_digest(entry, meta.etag)
        self.models_dir.mkdir(parents=True, exist_ok=True)
        lock = self._lock(job)
        try:
            partial = self._resumable(job)
            job.done = job.resumed_from = partial
            need = max(job.total - partial, 0)
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
        headers: dict[str, str] = {}
        with contextlib.suppress(Exception):
            headers = dict(build_hf_headers())
        headers["Accept-Encoding"] = "identity"
        return lock, headers

    @staticmethod
    def _expected_size(entry: CatalogueEntry, announced: int | None) -> int:
        """The pinned size (with a pinned digest, ``size_bytes`` is a pin: the hub must agree), else
        the hub's (an entry without a digest may carry an estimate), else the estimate."""
        if not entry.sha256 and announced:
            return announced
        if entry.size_bytes and announced and announced != entry.size_bytes:
            raise ModelServiceError(
                "checksum_mismatch",
                f"The hub announces {announced} bytes for {entry.file}, but the catalogue pins "
                f"{entry.size_bytes} bytes (revision {entry.revision}); nothing was downloaded.",
            )
        size = entry.size_bytes or announced
        if not size:
            raise ModelServiceError(
                "no_checksum",
                f"The hub does not say how large {entry.file} is and the catalogue pins no size; "
                "nothing was downloaded (add size_bytes to the entry).",
            )
        return size

    @staticmethod
    def _expected_digest(entry: CatalogueEntry, etag: str | None) -> str:
        hub = (etag or "").strip().removeprefix("W/").strip('"').lower()
        hub_sha = hub if _HEX64.match(hub) else None
        if entry.sha256:
            if hub_sha is not None and hub_sha != entry.sha256:
                raise ModelServiceError(
                    "checksum_mismatch",
                    f"The hub reports SHA-256 {hub_sha[:12]}… for {entry.file}, but the catalogue pins "
                    f"{entry.sha256[:12]}… (revision {entry.revision}); nothing was downloaded.",
                )
            return entry.sha256
        if hub_sha is None:
            raise ModelServiceError(
                "no_checksum",
                f"{entry.id} has no pinned SHA-256 and the hub's ETag for {entry.file} is not a SHA-256: "
                "the file could not be checked, so it is not downloaded (pin 'sha256' in the entry, "
                "c.ModelService.extra_catalogue).",
            )
        return hub_sha

    def _sidecar(self, entry: CatalogueEntry) -> Path:
        return self.partial_of(entry).with_suffix(".json")

    def _identity(self, job: DownloadJob) -> dict[str, Any]:
        e = job.entry
        return {
            "repo": e.repo,
            "file": e.file,
            "revision": e.revision,
            "size": job.total,
            "sha256": job.expected_sha256,
        }

    def _resumable(self, job: DownloadJob) -> int:
        """Bytes of a partial file of this very file (same pins) to resume from; others are removed."""
        part, side = self.partial_of(job.entry), self._sidecar(job.entry)
        try:
            same = json.loads(side.read_text(encoding="utf-8")) == self._identity(job)
            size = part.stat().st_size
        except (OSError, ValueError):
            same, size = False, 0
        if not same or size > (job.total or 0):
            self._remove_partial(job.entry)
            return 0
        return size

    # -- the transfer (on the event loop) -----------------------------------------------------------
    async def _run(self, job: DownloadJob, lock: Any, headers: dict[str, str]) -> None:
        entry = job.entry
        part = self.partial_of(entry)
        try:
            await self._transfer(job, headers, part)
            job.state = "verifying"
            if not await asyncio.to_thread(is_gguf, part):
                self._remove_partial(entry)
                self._fail(
                    job, "not_gguf", f"{entry.file} is not a GGUF file (no GGUF magic); it was removed."
                )
                return
            await asyncio.to_thread(os.replace, part, job.target)
            self._remove_partial(entry)
            job.path = str(job.target)
            job.done = job.total or job.done
            job.state, job.finished = "done", time.monotonic()
        except asyncio.CancelledError:
            if job.cancel_event.is_set():  # the user's Cancel: nothing is kept
                self._remove_partial(entry)
                job.state, job.finished = "cancelled", time.monotonic()
                job.error = {"type": "cancelled", "message": f"The download of {entry.id} was cancelled."}
            else:  # the server stops: the partial file stays for the next pull
                kept = self._keep_or_remove(job, part)
                self._fail(
                    job, "network", f"The download of {entry.id} was interrupted (the server stopped). {kept}"
                )
        except ModelServiceError as exc:
            if exc.type in ("checksum_mismatch", "oversized", "not_found"):
                self._remove_partial(entry)
                self._fail(job, exc.type, exc.message)
            else:
                self._fail(job, exc.type, f"{exc.message} {self._keep_or_remove(job, part)}")
        except Exception as exc:
            self._fail(
                job,
                "network",
                f"The download of {entry.id} stopped ({_describe(exc)}). {self._keep_or_remove(job, part)}",
            )
        finally:
            self._unlock(lock)

    async def _transfer(self, job: DownloadJob, headers: dict[str, str], part: Path) -> None:
        import httpx

        if job.cancel_event.is_set():  # cancelled while the checks ran
            raise asyncio.CancelledError()
        total = job.total or 0
        part.parent.mkdir(parents=True, exist_ok=True)
        sidecar = self._sidecar(job.entry)
        await asyncio.to_thread(sidecar.write_text, json.dumps(self._identity(job)), "utf-8")
        sink = await asyncio.to_thread(_Sink, part, job.resumed_from, job.cancel_event)
        retries = RETRIES
        unavailable_retried = False
        try:
            async with make_client(10.0, read=self.read_timeout, follow_redirects=True) as client:
                while True:
                    before = sink.offset
                    try:
                        await self._fetch(client, job, headers, sink, total)
                        break
                    except _Unavailable as exc:
                        if unavailable_retried:
                            raise ModelServiceError(
                                "network",
                                f"The hub answered HTTP {exc.status} for {job.entry.file} again.",
                            ) from None
                        unavailable_retried = True
                        job.notice = (
                            f"The hub answered HTTP {exc.status}; the download resumes from "
                            f"{_human(sink.offset)} by itself in {self.unavailable_wait:g} s."
                        )
                        await asyncio.sleep(self.unavailable_wait)
                        job.notice = (
                            f"The hub answered HTTP {exc.status}; the download resumed from "
                            f"{_human(sink.offset)} by itself."
                        )
                    except httpx.ReadTimeout:
                        raise ModelServiceError(
                            "network",
                            f"The hub sent nothing for {self.read_timeout:g} s.",
                        ) from None
                    except (_Dropped, httpx.TransportError):
                        retries = RETRIES if sink.offset > before else retries - 1
                        if retries < 0:
                            raise
                        await asyncio.sleep(0.5)
        finally:
            await asyncio.shield(asyncio.to_thread(sink.close))
        digest = sink.hasher.hexdigest()
        if digest != job.expected_sha256:
            raise ModelServiceError(
                "checksum_mismatch",
                f"{job.entry.file} is corrupt: SHA-256 {digest[:12]}… but "
                f"{(job.expected_sha256 or '')[:12]}… was expected; the file was removed, pull it again.",
            )

    async def _fetch(
        self, client: Any, job: DownloadJob, headers: dict[str, str], sink: _Sink, total: int
    ) -> None:
        """One GET from the sink's offset: bytes appended until ``total``."""
        if sink.offset >= total:
            return
        sent = dict(headers)
        if sink.offset:
            sent["Range"] = f"bytes={sink.offset}-"
        async with client.stream("GET", job.url, headers=sent) as resp:
            status = resp.status_code
            if status == 416 or (status == 200 and sink.offset):  # the range was refused: start over
                await asyncio.to_thread(sink.restart)
                job.done = job.resumed_from = 0
                if status == 416:
                    raise _Dropped("the hub refused the range")
            elif status == 206:
                start = _range_start(resp.headers.get("content-range"))
                if start != sink.offset:
                    raise _Dropped(f"the hub answered the range from byte {start}, not {sink.offset}")
            elif status >= 500:
                raise _Unavailable(status)
            elif status != 200:
                raise ModelServiceError("not_found", f"The hub answered HTTP {status} for {job.entry.file}.")
            length = resp.headers.get("content-length")
            if length is not None and length.isdigit() and sink.offset + int(length) > total:
                raise ModelServiceError(
                    "oversized",
                    f"The hub sends {sink.offset + int(length)} bytes for {job.entry.file}, more than "
                    f"the {total} expected; nothing was read.",
                )
            buf = bytearray()
            try:
                async for chunk in resp.aiter_raw():
                    room = total - sink.offset - len(buf)
                    if len(chunk) > room:
                        # more than announced: cut at the size, in this piece; the rest is not read
                        # and the digest decides whether what came up to the size is the file
                        buf += chunk[:room]
                        job.done = sink.offset + len(buf)
                        job.notice = (
                            f"The hub sent more than the {total} bytes announced for {job.entry.file}; "
                            "reading stopped at the size."
                        )
                        await resp.aclose()  # at once: nothing more comes in meanwhile
                        break
                    buf += chunk
                    job.done = sink.offset + len(buf)
                    if len(buf) >= WRITE_CHUNK:
                        data = bytes(buf)
                        buf.clear()
                        await asyncio.to_thread(sink.write, data)
            finally:
                if buf:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(asyncio.to_thread(sink.write, bytes(buf)))
        if sink.offset < total:
            raise _Dropped(f"the connection ended after {sink.offset} of {total} bytes")

    def _keep_or_remove(self, job: DownloadJob, part: Path) -> str:
        """After a failure the next pull can resume from: keep the bytes received (the job says it is
        resumable), or, with none, remove what the pull made."""
        try:
            kept = part.stat().st_size
        except OSError:
            kept = 0
        if kept:
            job.resumable = True
            return f"{_human(kept)} are kept: pull it again to resume."
        self._remove_partial(job.entry)
        return "Pull it again when the network is back."

    # -- files --------------------------------------------------------------------------------------
    def _fail(self, job: DownloadJob, type: str, message: str) -> None:
        job.state, job.error, job.finished = "failed", {"type": type, "message": message}, time.monotonic()

    def _partials(self, entry: CatalogueEntry) -> list[Path]:
        part = self.partial_of(entry)
        return [part] if part.exists() else []

    def _remove_partial(self, entry: CatalogueEntry) -> None:
        for p in (self.partial_of(entry), self._sidecar(entry)):
            with contextlib.suppress(OSError):
                p.unlink()
        with contextlib.suppress(OSError):  # only when empty (another model's partial stays)
            self.partial_of(entry).parent.rmdir()

    def _lock(self, job: DownloadJob) -> Any:
        if fcntl is None:
            return None
        path = self.models_dir / f".{job.entry.file}.pull-lock"
        for _ in range(10):
            f = open(path, "a+")
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                raise ModelServiceError(
                    "already_downloading",
                    f"{job.entry.id} is already being downloaded by another process; wait for it.",
                ) from None
            # the pull that held it removes the file when it ends: a lock on a removed file locks
            # nothing, so lock the file the path names now
            try:
                same = os.fstat(f.fileno()).st_ino == os.stat(path).st_ino
            except OSError:
                same = False
            if same:
                return _Lock(f, path)
            f.close()
        raise ModelServiceError("already_downloading", f"{job.entry.id}: the pull lock keeps changing.")

    @staticmethod
    def _unlock(lock: Any) -> None:
        """The pull ends: its lock file goes (removed while still held, then released)."""
        if lock is not None:
            with contextlib.suppress(OSError):
                lock.path.unlink()
            with contextlib.suppress(OSError):
                fcntl.flock(lock.file.fileno(), fcntl.LOCK_UN)
            lock.file.close()


@dataclass
class _Lock:
    """A held pull lock: the open file and its path."""

    file: IO[str]
    path: Path


class _Sink:
    """The partial file being written, its SHA-256 so far and its length (used in worker threads)."""

    def __init__(self, path: Path, resume_from: int, cancel: threading.Event) -> None:
        self.hasher = hashlib.sha256()
        self.offset = 0
        self.file: IO[bytes] = open(path, "r+b" if resume_from else "wb")
        left = resume_from
        while left > 0:  # a resumed download's digest starts with the bytes already there
            if cancel.is_set():
                self.file.close()
                raise _Cancelled()
            block = self.file.read(min(WRITE_CHUNK, left))
            if not block:
                break
            self.hasher.update(block)
            left -= len(block)
        self.offset = resume_from - left
        self.file.seek(self.offset)
        self.file.truncate()

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.hasher.update(data)
        self.offset += len(data)

    def restart(self) -> None:
        self.file.seek(0)
        self.file.truncate()
        self.hasher = hashlib.sha256()
        self.offset = 0

    def close(self) -> None:
        self.file.close()


def _range_start(content_range: str | None) -> int:
    match = re.match(r"^\s*bytes\s+(\d+)-", content_range or "")
    return int(match.group(1)) if match else -1


def _describe(exc: BaseException) -> str:
    text = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"
