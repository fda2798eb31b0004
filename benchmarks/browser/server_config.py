"""Jupyter server configuration for the browser benchmark (``benchmarks/bench_browser.py``).

Galata's settings, the extension, and the scripted OpenAI-compatible upstream (its own process,
50 ms to the first token by default) on ports of its own, so the benchmark can run beside the UI
tests (8888 / 8911). Everything it writes goes to temporary folders.
"""

import atexit
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821

SERVER_PORT = int(os.environ.get("CODECOMPLETE_BENCH_PORT", "8921"))
UPSTREAM_PORT = int(os.environ.get("CODECOMPLETE_BENCH_UPSTREAM_PORT", "8922"))

c.ServerApp.port = SERVER_PORT  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
c.FileContentsManager.delete_to_trash = False  # noqa: F821

# Every request gets the same short answer, unless a rule says otherwise: the first token
# ("alpha") is passed on by the cleaning at once, so the first chunk is the model's first token.
RULES: list[dict[str, str]] = []

_rules_file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
json.dump(RULES, _rules_file)
_rules_file.close()

_upstream = subprocess.Popen(
    [
        sys.executable,
        "-m",
        "jupyter_codecomplete.testing.openai_upstream",
        "--port",
        str(UPSTREAM_PORT),
        "--rules",
        _rules_file.name,
        "--default",
        os.environ.get("CODECOMPLETE_BENCH_ANSWER", "alpha + beta"),
        "--ttft-ms",
        os.environ.get("CODECOMPLETE_BENCH_TTFT_MS", "50"),
        "--token-ms",
        os.environ.get("CODECOMPLETE_BENCH_TOKEN_MS", "5"),
    ]
)


def _stop_upstream() -> None:
    _upstream.terminate()
    try:
        _upstream.wait(5)
    except subprocess.TimeoutExpired:
        _upstream.kill()
    os.unlink(_rules_file.name)


atexit.register(_stop_upstream)

for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{UPSTREAM_PORT}/v1/models", timeout=1)
        break
    except Exception:
        time.sleep(0.1)

c.CodeCompleteApp.completion_model = {  # noqa: F821
    "backend": "openai",
    "base_url": f"http://127.0.0.1:{UPSTREAM_PORT}/v1",
    "model": "bench-coder",
    "style": "raw",
}
# Every trial is a new prompt; the server's memory of recent answers is off all the same, so each
# request reaches the upstream and the typing runs count model requests honestly.
c.CodeCompleteApp.recent_completions = 0  # noqa: F821
