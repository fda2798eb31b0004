"""The user's own model choice, kept on the server in a file only the user can read (0600).

``<jupyter data dir>/codecomplete/user-model.json`` holds ``{"choice": {...}, "custom": {...}}``:
the chosen entry's id and the :class:`ModelConfig` it resolved to, and the last custom endpoint
(the API key included: it is stored here, never sent back to the browser and never logged).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

FILE_NAME = "user-model.json"


def default_store_dir() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "codecomplete"


class UserChoiceStore:
    """Read and write the user's choice atomically, with user-only permissions."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory else default_store_dir()

    @property
    def path(self) -> Path:
        return self.directory / FILE_NAME

    def load(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save(self, data: dict[str, Any]) -> None:
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

    def update(self, **parts: Any) -> dict[str, Any]:
        data = self.load()
        for key, value in parts.items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        self.save(data)
        return data
