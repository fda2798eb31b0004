"""The example package ``examples/handler_package`` installs and serves completions.

pip installs it into a temporary folder (its entry point included), the folder goes on
``sys.path``, and a Jupyter server configured with ``completion_handler_name = "snippets"`` answers
websocket requests through it.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from jupyter_codecomplete.testing import open_socket, request

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "examples" / "handler_package"
GROUP = "jupyter_codecomplete.completion_handlers"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(PACKAGE)],
        check=True,
        cwd=build,
    )  # fmt: skip
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    yield target
    sys.path.remove(str(target))
    for name in [m for m in sys.modules if m.startswith("codecomplete_snippets")]:
        del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture
def codecomplete_config(installed: Path) -> dict[str, Any]:
    return {"completion_handler_name": "snippets", "discover_local_servers": False}


def test_the_entry_point_is_installed(installed: Path) -> None:
    from jupyter_codecomplete.completion import load_handler_class

    assert "snippets" in [ep.name for ep in entry_points(group=GROUP)]
    cls = load_handler_class("snippets")
    assert cls.__name__ == "SnippetCompletionHandler"
    assert Path(sys.modules[cls.__module__].__file__ or "").is_relative_to(installed)


async def test_websocket_round_trip_served_by_the_example(jp_ws_fetch: Any, installed: Path) -> None:
    s = await open_socket(jp_ws_fetch)
    assert s.hello is not None and s.hello["model"]["name"] == "snippets"

    await s.send(request(1, "import numpy\nimport num"))
    [reply] = await s.until_done(1)
    assert reply["type"] == "inline_completion" and reply.get("error") is None
    assert [i["insertText"] for i in reply["list"]["items"]] == ["py as np"]
    assert reply["model"]["name"] == "snippets"
    assert reply["model"]["backend"] == "codecomplete-snippets"

    await s.send(request(2, "def main(", stream=True))
    chunks = await s.until_done(2)
    assert chunks[-1]["type"] == "stream" and chunks[-1]["done"]
    assert chunks[-1]["response"]["insertText"] == "):\n    pass"

    await s.send(request(3, "x = 4"))
    [empty] = await s.until_done(3)
    assert empty["list"]["items"] == [] and "no snippet matches the text before the cursor" in empty["notes"]
    s.ws.close()
