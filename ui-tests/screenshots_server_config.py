"""Server configuration for the documentation's screenshots: nothing about models is configured,
so the server does what it does for a new user (looks for local model servers, then serves the
bundled demo model). One extra route sends Julia files to a model server that is not running, for
the screenshot of an error. Files are created in a fresh temporary folder."""

import tempfile

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821

c.ServerApp.allow_root = True  # noqa: F821
c.ServerApp.root_dir = tempfile.mkdtemp(prefix="codecomplete-screenshots-")  # noqa: F821
c.FileContentsManager.delete_to_trash = False  # noqa: F821

c.CodeCompleteApp.models = {  # noqa: F821
    "team-server": {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "team-coder"},
}
c.CodeCompleteApp.routes = {"julia": "team-server", "text/x-julia": "team-server"}  # noqa: F821
