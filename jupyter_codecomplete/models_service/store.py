"""The user's own model choice, kept on the server in a file only the user can read (0600).

``<jupyter data dir>/codecomplete/user-model.json`` holds ``{"choice": {...}, "custom": {...}}``:
the chosen entry's id and the :class:`ModelConfig` it resolved to (for an administrator's model only
its id: a reference, so the administrator's keys and headers stay in the administrator's config), and
the last custom endpoint (the API key included: it is stored here, never sent back to the browser and
never logged).

The file is read defensively: larger than :data:`MAX_STORE_BYTES`, not JSON, nested deeper than the
wire's limit, not an object, or not readable (a directory in its place) → it counts as empty and
:attr:`UserChoiceStore.problem` says why (the listing shows it; the next save replaces the file).
Writes are atomic (a temporary file renamed over it) and serialised: :meth:`UserChoiceStore.edit` is
one read-modify-write under a lock, so two writers never undo each other.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ModelServiceError
from ..protocol import MAX_DEPTH, nesting_depth

FILE_NAME = "user-model.json"
# A real store is a few hundred bytes; anything this large is not one.
MAX_STORE_BYTES = 256 * 1024


def default_store_dir() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "codecomplete"


class UserChoiceStore:
    """Read and write the user's choice atomically, with user-only permissions."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory else default_store_dir()
        self.problem: str | None = None  # why the last load found nothing usable
        self._lock = threading.RLock()

    @property
    def path(self) -> Path:
        return self.directory / FILE_NAME

    def load(self) -> dict[str, Any]:
        """The stored object; ``{}`` (and :attr:`problem` set) when the file cannot be used."""
        data, self.problem = self._read()
        return data

    def _read(self) -> tuple[dict[str, Any], str | None]:
        where = str(self.path)
        try:
            with open(self.path, "rb") as f:
                raw = f.read(MAX_STORE_BYTES + 1)
        except FileNotFoundError:
            return {}, None
        except IsADirectoryError:
            return {}, f"{where} is a directory, not a file: remove it so your choice can be saved."
        except OSError as exc:
            return {}, f"{where} cannot be read ({exc.strerror or type(exc).__name__})."
        if len(raw) > MAX_STORE_BYTES:
            return {}, f"{where} is larger than {MAX_STORE_BYTES} bytes: it is ignored."
        try:
            data = json.loads(raw.decode("utf-8"))
        except RecursionError:
            return {}, f"{where} is nested too deeply: it is ignored."
        except (UnicodeDecodeError, ValueError):
            return {}, f"{where} is not valid JSON: it is ignored."
        if nesting_depth(data) > MAX_DEPTH:
            return {}, f"{where} is nested more than {MAX_DEPTH} levels deep: it is ignored."
        if not isinstance(data, dict):
            return {}, f"{where} does not hold a JSON object: it is ignored."
        return data, None

    def save(self, data: dict[str, Any]) -> None:
        """Write ``data`` atomically; a failure is a :class:`ModelServiceError` naming the file."""
        with self._lock:
            try:
                self._write(data)
            except OSError as exc:
                if self.path.is_dir():
                    reason = "it is a directory; remove it"
                else:
                    reason = exc.strerror or type(exc).__name__
                raise ModelServiceError(
                    "store_failed", f"Cannot save your model choice to {self.path}: {reason}."
                ) from None

    def _write(self, data: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".user-model.", dir=self.directory)
        try:
            os.fchmod(fd, 0o600) if hasattr(os, "fchmod") else None
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
            os.replace(tmp, self.path)
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    @contextlib.contextmanager
    def edit(self) -> Iterator[dict[str, Any]]:
        """One read-modify-write under the store's lock: change the dict it yields; it is saved."""
        with self._lock:
            data = self.load()
            yield data
            self.save(data)

    def update(self, **parts: Any) -> dict[str, Any]:
        with self.edit() as data:
            for key, value in parts.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
        return data
