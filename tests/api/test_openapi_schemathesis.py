"""Schemathesis against the published OpenAPI document of the REST endpoints.

The Jupyter server runs as its own process (schemathesis calls it with a blocking HTTP client),
with a real scripted upstream; every generated request must get a documented status code, never a
5xx, with a response matching the document.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis.specs.openapi.checks import positive_data_acceptance  # noqa: E402

from jupyter_codecomplete.testing import (  # noqa: E402
    OpenAIUpstream,
    UpstreamConfig,
    free_port,
)
from jupyter_codecomplete.web.openapi import openapi_document  # noqa: E402

TOKEN = "schemathesis-token"
EXAMPLES = int(os.environ.get("CODECOMPLETE_SCHEMATHESIS_EXAMPLES", "30"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    upstream = OpenAIUpstream(UpstreamConfig(default="x = 1\n")).start()
    root = tmp_path_factory.mktemp("jupyter")
    config = root / "config.py"
    model = {"backend": "openai", "base_url": upstream.base_url, "model": "qwen2.5-coder", "timeout": 5.0}
    config.write_text(
        f"c.CodeCompleteApp.completion_model = {model!r}\n"
        f"c.CodeCompleteApp.models = {{'plain': {{**{model!r}, 'style': 'raw'}}}}\n"
        "c.CodeCompleteApp.discover_local_servers = False\n"
    )
    env = {**os.environ}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(root / name.lower())
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter_server",
            f"--port={port}",
            "--ip=127.0.0.1",
            "--no-browser",
            f"--IdentityProvider.token={TOKEN}",
            "--allow-root",
            f"--config={config}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.jpserver_extensions={'jupyter_codecomplete': True}",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(root / "server.log").open("w"),
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(f"{base}/api/status", headers={"Authorization": f"token {TOKEN}"}, timeout=1).ok:
                break
        except requests.RequestException:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError((root / "server.log").read_text()[-3000:])
        time.sleep(0.2)
    yield base
    proc.terminate()
    proc.wait(10)
    upstream.stop()


SCHEMA = schemathesis.openapi.from_dict(openapi_document())
# Operations not fuzzed, and why (each is still in the document, and its answers are checked
# against their schemas by the tests of its route through a running server):
NOT_FUZZED = {
    ("POST", "/api/codecomplete/models/engine"): "installs llama-cpp-python (compiles llama.cpp)",
    ("POST", "/api/codecomplete/models/downloads"): "starts a download from the model hub",
    ("DELETE", "/api/codecomplete/models/downloads/{id}"): "cancels a download (none runs here)",
    ("POST", "/api/codecomplete/models/use"): "switches the model the other operations are fuzzed against",
    ("PUT", "/api/codecomplete/models/custom"): "writes the user's store",
}
ALL_OPERATIONS = [op.ok() for op in SCHEMA.get_all_operations()]
OPERATIONS = [op for op in ALL_OPERATIONS if (op.method.upper(), op.path) not in NOT_FUZZED]


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op.method.upper()} {op.path}")
def test_operation_conforms(server: str, operation: object) -> None:
    session = requests.Session()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        case = data.draw(operation.as_strategy())  # type: ignore[attr-defined]
        # Every default check runs (no 5xx, documented status codes and content types, response
        # schemas, ...) except "schema-valid data must be accepted": requests have cross-field rules
        # the schema cannot say (infill needs a suffix, a style without FIM cannot infill), and
        # those get a documented 4xx.
        response = case.call_and_validate(
            base_url=server,
            session=session,
            headers={"Authorization": f"token {TOKEN}"},
            timeout=30,
            excluded_checks=[positive_data_acceptance],
        )
        assert response.status_code < 500, response.text
        if response.headers.get("Content-Type", "").startswith("application/json"):
            json.loads(response.text)

    check()


def test_no_token_is_403_everywhere(server: str) -> None:
    for op in ALL_OPERATIONS:
        path = op.path.replace("{id}", "demo")
        r = requests.request(op.method.upper(), server + path, data="{}", timeout=10)
        assert r.status_code == 403, (op.path, r.status_code)


def test_document_lists_every_route_and_method() -> None:
    """Every route the server serves (the websocket aside) with every HTTP method its handler
    defines is in the document, and nothing else; each answers a reply model (but the document)."""
    from jupyter_codecomplete.web.routes import handlers
    from jupyter_codecomplete.web.websocket import InlineCompletionWebSocket

    served = set()
    for pattern, handler in handlers():
        if issubclass(handler, InlineCompletionWebSocket):
            continue
        path = pattern.replace("([A-Za-z0-9][A-Za-z0-9._-]{0,99})", "{id}")
        ours = [c for c in handler.__mro__ if c.__module__.startswith("jupyter_codecomplete")]
        served |= {
            (m, path) for m in ("get", "post", "put", "delete", "patch") if any(m in vars(c) for c in ours)
        }
    documented = {
        (method, path) for path, methods in openapi_document()["paths"].items() for method in methods
    }
    assert documented == served
    for path, methods in openapi_document()["paths"].items():
        for method, op in methods.items():
            ok = next(v for k, v in op["responses"].items() if k.startswith("2"))
            schema = ok["content"]["application/json"]["schema"]
            assert "$ref" in schema or "oneOf" in schema or path.endswith("openapi.json"), (method, path)
    assert set(NOT_FUZZED) <= {(op.method.upper(), op.path) for op in ALL_OPERATIONS}
    assert Path(__file__).exists()
