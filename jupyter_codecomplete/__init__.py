"""jupyter_codecomplete: inline code completion for JupyterLab 4 and Notebook 7.

Entry points only: the server extension and the lab extension paths.
"""

__all__ = ["__version__"]

try:
    from ._version import __version__
except ImportError:  # pragma: no cover - running from a source tree without a build
    __version__ = "0.0.0"


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-codecomplete"}]


def _jupyter_server_extension_points() -> list[dict[str, object]]:
    from .extension import CodeCompleteApp

    return [{"module": "jupyter_codecomplete", "app": CodeCompleteApp}]
