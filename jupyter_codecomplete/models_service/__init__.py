"""Choosing, fetching and switching models: one service used by the REST handlers, the UI and the CLI.

* :mod:`.catalogue`: recommended code models as data (``catalogue.json``);
* :mod:`.download`: downloads with ``huggingface_hub`` (cancellable, checked, resumable);
* :mod:`.engine_install`: installing the llama.cpp engine (llama-cpp-python) in the background;
* :mod:`.store`: the user's choice and custom endpoint, server-side, mode 0600;
* :mod:`.service`: :class:`ModelService`, the sources, the administrator's locks, test and switch;
* :mod:`.errors`: :class:`ModelServiceError`.
"""

from .catalogue import CatalogueEntry, load_catalogue
from .errors import ModelServiceError
from .service import CustomEndpoint, ModelEntry, ModelService
from .store import UserChoiceStore

__all__ = [
    "CatalogueEntry",
    "CustomEndpoint",
    "ModelEntry",
    "ModelService",
    "ModelServiceError",
    "UserChoiceStore",
    "load_catalogue",
]
