"""Installing the llama.cpp engine in the background: real child processes (pip itself, installing a
wheel built here into a folder of the test's own; a long-running child for cancellation), the
progress read from the child's output, bounded output, and the REST route's policy."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.models_service.engine_install import (
    MAX_LINE,
    MAX_LINES,
    REQUIREMENT,
    EngineInstaller,
    progress_of,
)

HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None


def tiny_wheel(folder: Path) -> Path:
    """A one-module wheel (what pip installs; nothing to compile)."""
    path = folder / "tinyengine-0.1-py3-none-any.whl"
    files = {
        "tinyengine/__init__.py": "VALUE = 42\n",
        "tinyengine-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinyengine\nVersion: 0.1\n",
        "tinyengine-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + "tinyengine-0.1.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr("tinyengine-0.1.dist-info/RECORD", record)
    return path


def test_progress_is_read_from_the_build_tools_lines() -> None:
    assert progress_of("  [12/48] Building C object vendor/llama.cpp/ggml/src/ggml.c.o") == 0.25
    assert progress_of("[ 45%] Building CXX object src/llama.cpp.o") == 0.45
    assert progress_of("Building wheel for llama-cpp-python (pyproject.toml): started") is None
    assert progress_of("[9/3] nonsense") is None


async def test_pip_installs_in_the_background_and_says_when_it_is_done(tmp_path: Path) -> None:
    wheel = tiny_wheel(tmp_path)
    target = tmp_path / "target"
    cmd = [sys.executable, "-m", "pip", "install", "-v", "--no-index", "--target", str(target), str(wheel)]
    installer = EngineInstaller(cmd)
    first = await installer.start()
    assert (
        first["state"] == "running" and first["requirement"] == REQUIREMENT and "15 minutes" in first["cost"]
    )
    assert (await installer.start())["state"] == "running"  # one install at a time
    ticks = 0
    while installer.running:  # the event loop stays free while pip works
        ticks += 1
        await asyncio.sleep(0.01)
    snap = installer.snapshot()
    assert snap["state"] == "done" and snap["returncode"] == 0 and snap["progress"] == 1.0, snap
    # the loop turned while pip ran (a start that waited for pip would leave no turn), whatever
    # the machine's speed
    assert ticks >= 1 and snap["log"]
    assert (target / "tinyengine" / "__init__.py").read_text() == "VALUE = 42\n"


async def test_a_failed_install_says_why(tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-index",
        "--target",
        str(tmp_path / "t"),
        "no-such-pkg-x",
    ]
    installer = EngineInstaller(cmd)
    await installer.start()
    await installer.wait()
    snap = installer.snapshot()
    assert snap["state"] == "failed" and snap["returncode"] != 0
    assert any("no-such-pkg-x" in line or "No matching distribution" in line for line in snap["log"]), snap


async def test_closing_kills_a_running_install_at_once() -> None:
    child = "print('[3/12] Building C object ggml.c', flush=True); import time; time.sleep(120)"
    installer = EngineInstaller([sys.executable, "-u", "-c", child])
    await installer.start()
    for _ in range(500):
        if installer.progress is not None:
            break
        await asyncio.sleep(0.01)
    assert installer.snapshot()["progress"] == 0.25
    start = time.monotonic()
    await installer.close()
    assert time.monotonic() - start < 10
    snap = installer.snapshot()
    assert snap["state"] == "cancelled" and snap["returncode"] is not None


async def test_the_output_kept_is_bounded() -> None:
    child = "import sys; sys.stdout.write('x' * 100000); sys.stdout.write('\\nline\\n' * 500)"
    installer = EngineInstaller([sys.executable, "-c", child])
    await installer.start()
    await installer.wait()
    assert installer.state == "done"
    assert len(installer.lines) == MAX_LINES and max(len(line) for line in installer.lines) <= MAX_LINE
    assert installer.lines[-1] == "line"


async def api(jp_fetch: Any, method: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    import json

    try:
        r = await jp_fetch("api", "codecomplete", "models", "engine", method=method, **kwargs)
    except HTTPClientError as err:
        assert err.response is not None
        return err.code, json.loads(err.response.body)
    return r.code, json.loads(r.body)


async def test_the_route_says_whether_llama_cpp_is_installed(jp_fetch: Any) -> None:
    code, body = await api(jp_fetch, "GET")
    assert code == 200 and body["state"] == "idle" and body["installed"] is HAVE_LLAMA


@pytest.mark.skipif(not HAVE_LLAMA, reason="would start a real install: only where it is a no-op")
async def test_asking_again_when_installed_starts_nothing(jp_fetch: Any) -> None:
    code, body = await api(jp_fetch, "POST", body="{}")
    assert code == 202 and body["state"] == "idle" and body["installed"] is True


class TestLocked:
    @pytest.fixture
    def service_config(self, service_config: dict[str, Any]) -> dict[str, Any]:
        return {**service_config, "allow_engine_install": False}

    async def test_the_administrator_can_refuse_it(self, jp_fetch: Any) -> None:
        code, body = await api(jp_fetch, "POST", body="{}")
        assert code == 403 and body["error"]["type"] == "locked"
        assert "allow_engine_install" in body["error"]["message"]
