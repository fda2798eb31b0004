"""Server configuration for the UI tests: Galata's settings, the extension, and a scripted
OpenAI-compatible upstream (a real local HTTP server) started here and stopped at exit.

The upstream's rules decide what the "model" answers: the first rule whose ``contains`` is in
the prompt wins. Rules with ``status`` script a failing backend.
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821

c.ServerApp.allow_root = True  # noqa: F821
c.FileContentsManager.delete_to_trash = False  # noqa: F821

# The settings a test saves (the Notebook 7 tests switch languages through the real settings
# API) go to a folder of this run, never to the user's ~/.jupyter: every run starts from the
# defaults, and a test that fails half-way leaves nothing behind for the next run.
_settings_dir = tempfile.mkdtemp(prefix="codecomplete-ui-settings-")
atexit.register(shutil.rmtree, _settings_dir, True)
c.LabApp.user_settings_dir = _settings_dir  # noqa: F821
c.JupyterNotebookApp.user_settings_dir = _settings_dir  # noqa: F821

UPSTREAM_PORT = int(os.environ.get("CODECOMPLETE_UI_UPSTREAM_PORT", "8911"))

# Issue 27's edit predictions across cells: rewrite rules in the generic chat format (edit-chat,
# the edit_model below) that answer from what the prompt shows: the fix of "prcie" after the
# KeyError, the rename of df to sales in the other cells (jupyter_codecomplete/testing/edit_rules.py).
# They come first and match only an edit prompt that shows what the test is about.
from jupyter_codecomplete.testing import EDIT_CHAT_ISSUE_27_RULES  # noqa: E402

RULES = [
    *EDIT_CHAT_ISSUE_27_RULES,
    # A failing backend, chosen by the text before the cursor.
    {"contains": "backend_goes_down", "status": 503, "body": "model server overloaded"},
    # The fresh line after Enter at a person's typing pace (freshline.spec.ts): a suggestion on
    # the header's own line first (a comment, so Enter does not type through it), then one on the
    # fresh line, after Enter, after Tab + Enter, after Escape + Enter.
    {"contains": "def fib(n):\n", "completion": "if n < 2:\n        return n\n"},
    {"contains": "the n-th Fibonacci number\n", "completion": "if n < 2:\n        return n\n"},
    {"contains": "the n-th Fibonacci number", "completion": ""},
    {"contains": "def fib(n):", "completion": "  # the n-th Fibonacci number"},
    # Only once the line after the definition is fresh (a fresh-line suggestion).
    {"contains": "def subtract(a, b):\n", "completion": "return a - b\n"},
    {"contains": "def add(a, b):", "completion": "\n    return a + b\n"},
    {"contains": "def multiply(a, b):", "completion": "\n    return a * b\n"},
    {"contains": "def slow_sum(values):", "completion": "\n    total = 0\n    for value in values:\n        total += value\n    return total\n"},
    {"contains": "function greet(name)", "completion": " {\n  return `Hello, ${name}!`;\n}\n"},
    {"contains": "# Shopping", "completion": " list\n\n- apples\n"},
    # The kernel's candidates reached the prompt (tests/kernel.spec.ts, the user guide's screenshot).
    {"contains": "# The kernel completes df[ with:", "completion": "'price'] * df['qty']\n"},
    # An edit prediction and an inline completion in flight together (editprediction-inflight.spec.ts):
    # the prediction after renaming `items` to `prices` in `def mean(...)` comes slowly (about two
    # seconds, token by token), the completion asked meanwhile at the line's end at once.
    {
        "contains": "<|editable_region_start|>\ndef mean(prices):<|cursor|>",
        "completion": "<REWRITE>\ndef mean(prices):\n    s = 0\n    for p in prices:\n        s += p\n"
        "    return s / len(prices)\n</REWRITE>",
        "token_s": 0.1,
    },
    {"contains": "def mean(prices):", "completion": "  # the mean price"},
    # Edit predictions (tests/editprediction.spec.ts): the generic chat format's prompt, after
    # the user renamed `items` to `prices` on the first line; the rename follows on three lines.
    {
        "contains": "<|editable_region_start|>\ndef total(prices<|cursor|>):",
        "completion": "<REWRITE>\ndef total(prices):\n    s = 0\n    for p in prices:\n        s += p\n"
        "    print(len(prices))\n    return s / len(prices)\n</REWRITE>",
        "token_s": 0.002,  # the answer comes whole, not streamed
    },
]

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
        # Slow enough that streaming is visible token by token.
        "--token-ms",
        os.environ.get("CODECOMPLETE_UI_TOKEN_MS", "60"),
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

# Wait until the upstream answers, so the first test does not race it.
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{UPSTREAM_PORT}/v1/models", timeout=1)
        break
    except Exception:
        time.sleep(0.1)

c.CodeCompleteApp.completion_model = {  # noqa: F821
    "backend": "openai",
    "base_url": f"http://127.0.0.1:{UPSTREAM_PORT}/v1",
    "model": "test-coder",
    "style": "raw",
}

# Edit predictions: the same upstream as a chat model, in the generic next-edit format.
c.CodeCompleteApp.edit_model = {  # noqa: F821
    "backend": "openai-chat",
    "base_url": f"http://127.0.0.1:{UPSTREAM_PORT}/v1",
    "model": "test-chat",
    "style": "edit-chat",
}

# The embedded demo model (in-process llama.cpp, no model server) serves R files, so one UI test
# sees real model output end to end. Greedy decoding keeps its suggestion reproducible.
c.CodeCompleteApp.models = {  # noqa: F821
    "demo": {"backend": "embedded", "max_tokens": 24, "temperature": 0.0},
}
c.CodeCompleteApp.routes = {"r": "demo", "text/x-rsrc": "demo"}  # noqa: F821

# The model chooser (models.spec.ts): a fake Hugging Face hub serving the demo GGUF (slow enough that
# the progress bar is visible) and a scripted Ollama, both in this process; the user's choice and the
# downloads go to a temporary folder.
from jupyter_codecomplete.testing.fake_hub import FakeHub, demo_entry  # noqa: E402
from jupyter_codecomplete.testing.openai_upstream import UpstreamConfig  # noqa: E402
from jupyter_codecomplete.testing.providers import FIM_TEMPLATE, OllamaUpstream  # noqa: E402

HUB_PORT = int(os.environ.get("CODECOMPLETE_UI_HUB_PORT", "8912"))
OLLAMA_PORT = int(os.environ.get("CODECOMPLETE_UI_OLLAMA_PORT", "8913"))
_hub = FakeHub(port=HUB_PORT).start()
_hub.demo().bytes_per_s = 2_000_000  # about 4 s for the 8 MB demo model
_ollama = OllamaUpstream(
    UpstreamConfig(
        model="qwen2.5-coder:1.5b",
        rules=[{"contains": "def add(a, b):", "completion": "\n    return a + b  # from ollama\n"}],
        default="pass\n",
        token_s=0.02,
    ),
    port=OLLAMA_PORT,
    models={"qwen2.5-coder:1.5b": {"capabilities": ["completion", "insert"], "template": FIM_TEMPLATE}},
).start()
_models_tmp = tempfile.mkdtemp(prefix="codecomplete-ui-models-")
atexit.register(_hub.stop)
atexit.register(_ollama.stop)

c.ModelService.hub_endpoint = _hub.endpoint  # noqa: F821
c.ModelService.extra_catalogue = [demo_entry()]  # noqa: F821
c.ModelService.models_dir = os.path.join(_models_tmp, "models")  # noqa: F821
c.ModelService.store_dir = os.path.join(_models_tmp, "store")  # noqa: F821
c.ModelService.scan_default_dirs = False  # noqa: F821
c.ModelService.detect_servers = [["ollama", OLLAMA_PORT]]  # noqa: F821

# The UI tests watch suggestions stream in and count the requests reaching the upstream; the
# server's memory of recent completions would answer a prompt an earlier test already asked for in
# one piece, without the upstream (it has its own pytest tests).
c.CodeCompleteApp.recent_completions = 0  # noqa: F821

# Usage events (usage.spec.ts) go to a database of this run, never to the user's data directory.
_usage_dir = tempfile.mkdtemp(prefix="codecomplete-ui-usage-")
atexit.register(shutil.rmtree, _usage_dir, True)
c.CodeCompleteApp.usage_path = os.path.join(_usage_dir, "usage.sqlite3")  # noqa: F821
