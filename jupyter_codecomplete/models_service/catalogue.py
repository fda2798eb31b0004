"""The catalogue of recommended code models: data (``catalogue.json``) read into typed records.

Every shipped entry is pinned: ``revision`` (a commit, not a branch), ``size_bytes`` and ``sha256`` of
the file at that commit, and ``source``, where those were read (a test holds every entry to it).

Administrators can add entries (``c.ModelService.extra_catalogue``), e.g. a model on an internal
Hugging Face mirror; an extra entry with the id of a shipped one replaces it.
"""

from __future__ import annotations

import importlib.resources
import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class CatalogueEntry(BaseModel):
    """One downloadable GGUF model."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
    name: str
    repo: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
    file: str = Field(pattern=r"^[^/\\][^\\]*\.gguf$")
    revision: str = "main"
    size_bytes: int = Field(0, ge=0)
    quantization: str = ""
    license: str = ""
    style: str
    fim: bool = True
    memory_gb: float = 0.0
    good_for: str = ""
    verified: str = ""
    # the file's SHA-256 at ``revision``: a download must match it (without one, the hub's ETag is
    # checked only when it is a SHA-256; else the download is refused)
    sha256: str | None = None
    # where the pins (revision, size, digest) were read, for people checking the entry
    source: str = ""

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and not _HEX64.match(value.lower()):
            raise ValueError("sha256 must be 64 hexadecimal digits")
        return value.lower() if value else value


def load_catalogue(extra: Iterable[dict[str, Any]] = ()) -> dict[str, CatalogueEntry]:
    """The shipped entries, then ``extra`` ones (same id: replaced), in order."""
    data = json.loads((importlib.resources.files(__package__) / "catalogue.json").read_text(encoding="utf-8"))
    out: dict[str, CatalogueEntry] = {}
    for raw in [*data["entries"], *extra]:
        entry = CatalogueEntry.model_validate(raw)
        out[entry.id] = entry
    return out
