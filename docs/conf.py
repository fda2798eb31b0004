"""Sphinx configuration: MyST Markdown pages, the PyData theme, and our generated references.

Build with warnings as errors: ``sphinx-build -W -b html docs docs/_build/html``.
``_ext/codecomplete_docs.py`` generates the configuration reference (from the traitlets and the
ModelConfig fields) and the REST reference (from the OpenAPI document) at build time.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.abspath("_ext"))
sys.path.insert(0, os.path.abspath(".."))

from jupyter_codecomplete import __version__

project = "jupyter_codecomplete"
author = "jupyter_codecomplete contributors"
copyright = "jupyter_codecomplete contributors"
release = __version__
version = ".".join(__version__.split(".")[:2])

extensions = ["myst_parser", "codecomplete_docs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist"]
myst_heading_anchors = 3
suppress_warnings: list[str] = []

html_theme = "pydata_sphinx_theme"
html_title = "jupyter_codecomplete"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []
