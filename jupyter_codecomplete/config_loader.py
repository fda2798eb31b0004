"""Reading the server's configuration outside a running server (``check``, ``models``, ``eval``).

:func:`load_server_config` merges the ``jupyter_server_config`` files on the Jupyter config path
the way jupyter_server reads them, so a command sees the same ``CodeCompleteApp`` traits as the
server. It lives here, not in ``cli.py``, so the evaluation package can use it without importing
the command line (which imports the evaluation package).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence

from traitlets.config import Config
from traitlets.config.loader import JSONFileConfigLoader, PyFileConfigLoader

CONFIG_NAME = "jupyter_server_config"


def load_server_config(config_dirs: Sequence[str] | None = None, config_file: str | None = None) -> Config:
    """The merged server configuration: ``jupyter_server_config.d/*.json``, then ``.json``, then ``.py``
    in each config directory (lowest priority first, as jupyter_server reads them), then ``config_file``."""
    from jupyter_core.paths import jupyter_config_path

    dirs = list(config_dirs) if config_dirs is not None else jupyter_config_path()
    merged = Config()
    for directory in reversed(dirs):  # jupyter_config_path() lists the highest priority first
        for path in sorted(glob.glob(os.path.join(directory, CONFIG_NAME + ".d", "*.json"))):
            merged.merge(JSONFileConfigLoader(os.path.basename(path), os.path.dirname(path)).load_config())
        for ext, loader in ((".json", JSONFileConfigLoader), (".py", PyFileConfigLoader)):
            if os.path.isfile(os.path.join(directory, CONFIG_NAME + ext)):
                merged.merge(loader(CONFIG_NAME + ext, directory).load_config())
    if config_file:
        directory, name = os.path.split(os.path.abspath(config_file))
        loader_cls = JSONFileConfigLoader if name.endswith(".json") else PyFileConfigLoader
        merged.merge(loader_cls(name, directory).load_config())
    return merged
