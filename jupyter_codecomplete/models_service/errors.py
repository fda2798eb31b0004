"""The one exception of the model service: a stable ``type``, a message for people, an HTTP status."""

from __future__ import annotations

from typing import ClassVar


class ModelServiceError(Exception):
    """Why a listing, download, test or switch was refused or failed.

    ``type`` names (stable): ``unknown_model``, ``bad_request``, ``bad_url``, ``locked``, ``offline``,
    ``hub_unreachable``, ``not_found``, ``not_enough_disk``, ``already_downloading``, ``cancelled``,
    ``network``, ``checksum_mismatch``, ``not_gguf``, ``not_downloaded``, ``probe_failed``,
    ``not_supported``.
    """

    STATUS: ClassVar[dict[str, int]] = {
        "unknown_model": 404,
        "not_found": 404,
        "bad_request": 400,
        "bad_url": 400,
        "not_gguf": 400,
        "locked": 403,
        "already_downloading": 409,
        "not_downloaded": 409,
        "not_enough_disk": 507,
        "offline": 503,
        "hub_unreachable": 502,
        "network": 502,
        "checksum_mismatch": 502,
        "probe_failed": 502,
        "cancelled": 499,
        "not_supported": 501,
    }

    def __init__(self, type: str, message: str) -> None:
        super().__init__(message)
        self.type = type
        self.message = message

    @property
    def status(self) -> int:
        return self.STATUS.get(self.type, 500)

    def to_dict(self) -> dict[str, str]:
        return {"type": self.type, "message": self.message}
