"""The built wheel, installed into a fresh environment with no compiler, serves the demo model.

What a user gets from ``pip install jupyter_codecomplete``: the package is built as a wheel (with
the prebuilt JupyterLab extension and the demo GGUF) from a copy of this checkout, installed into a
new virtual environment that sees nothing of this one, with ``CC``/``CXX`` set to a program that
fails and ``--only-binary :all:`` (so nothing can be compiled: no llama-cpp-python), then
``jupyter server`` from that environment answers ``POST api/codecomplete/completions`` with the
demo model's text. pip's cache is used as it is (a warm machine installs in about a minute).

Slow (a minute or two): run alone with ``pytest -m wheel``; ``scripts/test.sh`` runs it with the
rest. Skipped when the JupyterLab extension has not been built (``./scripts/setup.sh`` builds it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from jupyter_codecomplete.testing import build_wheel, clean_env, free_port

REPO = Path(__file__).resolve().parents[1]
PROMPTS = ("import os\nimport sys\n\n\ndef main():\n    ", "class Config:\n    def __init__(self):\n")
STYLE_JS = REPO / "jupyter_codecomplete" / "labextension" / "static" / "style.js"

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not STYLE_JS.is_file(), reason="build the JupyterLab extension first (setup.sh)"),
]


def run(cmd: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 600) -> str:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd[:4]} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_the_wheel_serves_the_demo_model_with_no_compiler(tmp_path: Path) -> None:
    env = clean_env()
    env.update(CC="/bin/false", CXX="/bin/false", PIP_DISABLE_PIP_VERSION_CHECK="1")
    started = time.perf_counter()
    # this environment has the build tools (setup.sh installs them); the extension is prebuilt
    wheel = build_wheel(REPO, tmp_path, env)
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], env)
    py = venv / "bin" / "python"
    run([str(py), "-m", "pip", "install", "-q", "--only-binary", ":all:", str(wheel)], env)
    installed = time.perf_counter() - started
    probe = (
        "import importlib.util as u, jupyter_codecomplete as m; print(m.__file__, u.find_spec('llama_cpp'))"
    )
    where, llama = run([str(py), "-c", probe], env, tmp_path).split()  # not this checkout's folder
    assert where.startswith(str(venv)) and llama == "None"

    home = tmp_path / "home"
    for d in ("config", "data", "runtime"):
        (home / d).mkdir(parents=True)
    env.update(
        HOME=str(home),
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        IPYTHONDIR=str(home / "ipython"),
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
    )
    port, token = free_port(), "wheel-test-token"
    log = (tmp_path / "server.log").open("w")
    args = [
        "server",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={tmp_path}",
        "--ServerApp.allow_root=True",
        "--CodeCompleteApp.discover_local_servers=False",
    ]
    server = subprocess.Popen(
        [str(venv / "bin" / "jupyter"), *args], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path
    )
    base = f"http://127.0.0.1:{port}/api/codecomplete"
    headers = {"Authorization": f"token {token}"}
    try:
        with httpx.Client(timeout=60, headers=headers) as client:
            for _ in range(240):
                try:
                    if client.get(f"{base}/models").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert server.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
                time.sleep(0.25)
            models = client.get(f"{base}/models").json()
            assert "codecomplete-demo" in json.dumps(models), models
            texts = []
            for prompt in (
                "import os\nimport sys\n\n\ndef main():\n    ",
                "class Config:\n    def __init__(self):\n",
            ):
                r = client.post(f"{base}/completions", json={"prompt": prompt, "max_tokens": 16})
                assert r.status_code == 200, r.text
                body = r.json()
                assert body["model"] == "codecomplete-demo"
                texts.append(body["choices"][0]["text"])
            assert any(t.strip() for t in texts), texts
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    print(f"built and installed in {installed:.0f} s")
