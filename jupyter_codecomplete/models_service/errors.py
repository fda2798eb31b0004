"""The one exception of the model service: a stable ``type``, a message for people, an HTTP status.

It lives in :mod:`jupyter_codecomplete.errors` with every other exception of the package; the
HTTP status of each type is :data:`jupyter_codecomplete.errors.HTTP_STATUS`."""

from __future__ import annotations

from ..errors import ModelServiceError

__all__ = ["ModelServiceError"]
