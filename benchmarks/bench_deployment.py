"""Many users, one shared model service, on this machine (issue 37): one command.

    python benchmarks/bench_deployment.py            # about 5 minutes on 2 cores (setup aside)
    python benchmarks/bench_deployment.py --users 10 --out /tmp/ccbench-deploy/result.json

What it starts, everything on loopback (127.0.0.1) and under /tmp/ccbench-deploy:

* two model replicas: real ``llama_cpp.server`` processes (llama-cpp-python, the ``local`` extra,
  this interpreter) serving the demo GGUF this package ships, each with its prompt cache on
  (``cache=True``: a RAM cache of evaluated prompts; a new prompt resumes from its longest cached
  prefix) and requests queued, not interrupted. llama.cpp itself says what it evaluated: each
  request's ``llama_perf_context_print: prompt eval time = … / N tokens`` line in the replica's
  log is read, so prompt tokens evaluated are the engine's count, not the bench's. The launcher
  (``REPLICA``) adds what the router needs and llama-cpp-python's server lacks: a ``/health``
  route (vllm-router waits for it before routing), and one log line per request naming its
  session key as it arrived (the ``x-session-id`` header, the body's ``user``), which is how the
  bench knows which replica served which key;
* vllm-router (``vllm-router``, pinned below, the vLLM project's Rust router, in a throw-away
  venv) in front of them with static ``--worker-urls``: ``--policy consistent_hash`` takes its
  key from the ``x-session-id`` header, else the body's ``user`` (its log says "found session key
  in header" / "found user field"); ``round_robin`` is what a router does with no key, and
  ``cache_aware`` (its default: a prefix tree of the prompts it routed) needs none;
* the LiteLLM proxy (``litellm[proxy]``, pinned below, in a throw-away venv) in front of the router:
  one model group, a key per user with a rate limit per user (a ``custom_auth`` function: LiteLLM's
  virtual keys need a database, its custom auth does not; the limiter is LiteLLM's own, its window
  shortened to 10 s with ``LITELLM_RATE_LIMIT_WINDOW_SIZE``). Client headers: LiteLLM forwards
  ``x-*`` headers (``forward_client_headers_to_llm_api``, on here) only on the chat path: for
  ``/v1/completions`` (the ``text-completion-openai`` provider) 1.89.3's ``litellm/main.py``
  never hands the forwarded ``headers`` to the text-completion handler; it does pass
  ``extra_headers`` on to the OpenAI client, so a LiteLLM pre-call hook in the gateway's config
  (``callbacks``: ``SESSION_HEADER`` below, LiteLLM's documented ``CustomLogger`` hook) copies
  the client's ``x-session-id`` into ``extra_headers`` and the router routes on it;
* JupyterHub (from the registry, in a throw-away venv) with ``SimpleLocalProcessSpawner`` (no
  system users), the dummy authenticator, configurable-http-proxy from npm, and N users, each a
  real single-user server with this extension (this interpreter, the worktree first on the path),
  configured system-wide through ``JUPYTER_CONFIG_PATH`` and given its own gateway key in the
  spawner's environment.

Simulated users type through the real websocket (through the hub's proxy) and the bench measures:
the share of each user's requests on one replica under each router policy, prompt tokens the
replicas evaluated per keystroke and per request (llama.cpp's count), tokens generated, the first
piece's p50 at N users against 1, and what a rate-limited user sees (one notice, the quiet held
replies, recovery).

Pins. ``jupyterhub==6.1.1`` (the registry's current release). ``litellm[proxy]==1.89.3``: the
releases 1.82.7 and 1.82.8 were a compromised upload (a credential stealer, March 2026:
BerriAI/litellm#24518, OSV MAL-2026-2144); the proxy then had critical advisories fixed in 1.83.0
(OIDC auth bypass, GHSA-jjhc-v7c2-5hh6), 1.83.7 (SQL injection in the key check,
GHSA-r75f-5x8p-qvmc; MCP stdio command injection; SSTI), 1.83.10 (guardrail sandbox escape) and
1.84.0 (Host-header auth bypass, GHSA-4xpc-pv4p-pm3w); 1.89.3 is past every one of them, came
through the release pipeline after the incident, and raised the starlette, pyjwt and
python-multipart floors that had advisories of their own. ``vllm-router==0.1.17``: a single
wheel (abi3: the Rust router and a thin Python launcher) needing only setproctitle, aiohttp,
fastapi/uvicorn, requests and orjson. Checked 2026-12-06 in what this machine can read (OSV and
GitHub advisory pages, the projects' issue threads): no advisory names ``vllm-router`` or the
vllm-project/router repository; the vLLM advisories found (GHSA-…, PYSEC-2026-…) are about the
engine (``vllm``), which is not installed here; later releases (0.1.20: a route rewritten to
chat completions) fixed bugs, not advisories. It is bound to 127.0.0.1 and given no API key here.
Nothing is reachable from outside the machine either way.

Nothing is installed into the interpreter that runs this file: the hub, the gateway and the router
get venvs of their own under /tmp, and jupyterhub's package is put in a folder that the
single-user servers append to their path (after this interpreter's own packages).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tornado import httpclient

import jupyter_codecomplete
from jupyter_codecomplete.testing import CompletionSocket

ROOT = Path("/tmp/ccbench-deploy")
WORKTREE = Path(__file__).resolve().parents[1]
JUPYTERHUB = "jupyterhub==6.1.1"
LITELLM = "litellm[proxy]==1.89.3"
CHP = "configurable-http-proxy@5.3.0"
ROUTER = "vllm-router==0.1.17"
GGUF = Path(jupyter_codecomplete.__file__).parent / "models" / "codecomplete-demo.Q8_0.gguf"
HOST = "127.0.0.1"
MODEL_GROUP = "coder"
WINDOW_S = 10  # LiteLLM's rate-limit window here (its default is 60 s)
LIMITED_RPW = 2  # the rate-limited user's requests per window (reached even behind slow replicas)
PAUSE_S = 0.5  # a typist's pause at a word's end (the request goes then)
SNIPPET = (
    "def moving_average(values, window):\n    total = sum(values[:window])\n    out = [total / window]\n"
)


# -- setup -------------------------------------------------------------------------------------------


def run(cmd: list[str], **kw: Any) -> None:
    print("  $", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def setup() -> dict[str, Path]:
    """The throw-away environments (made once; kept between runs under ROOT)."""
    ROOT.mkdir(parents=True, exist_ok=True)
    hub, gw, deps, chp = ROOT / "hub-venv", ROOT / "gw-venv", ROOT / "hubdeps", ROOT / "chp"
    rt = ROOT / "router-venv"
    if not (hub / "bin" / "jupyterhub").exists():
        run([sys.executable, "-m", "venv", str(hub)])
        run([str(hub / "bin" / "pip"), "install", "-q", JUPYTERHUB])
    if not (gw / "bin" / "litellm").exists():
        run([sys.executable, "-m", "venv", str(gw)])
        run([str(gw / "bin" / "pip"), "install", "-q", LITELLM])
    if not (rt / "bin" / "vllm-router").exists():
        run([sys.executable, "-m", "venv", str(rt)])
        run([str(rt / "bin" / "pip"), "install", "-q", ROUTER])
    if not (deps / "jupyterhub").exists():
        run([sys.executable, "-m", "pip", "install", "-q", "--target", str(deps), JUPYTERHUB])
    proxy = chp / "node_modules" / ".bin" / "configurable-http-proxy"
    if not proxy.exists():
        run(["npm", "install", "--silent", "--prefix", str(chp), CHP])
    return {"hub": hub, "gw": gw, "deps": deps, "chp": proxy, "router": rt / "bin" / "vllm-router"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


async def wait_http(url: str, timeout: float, ok: tuple[int, ...] = (200,)) -> None:
    client = httpclient.AsyncHTTPClient()
    end = time.monotonic() + timeout
    while True:
        try:
            r = await client.fetch(url, raise_error=False, request_timeout=2)
            if r.code in ok:
                return
        except Exception:
            pass
        if time.monotonic() > end:
            raise TimeoutError(f"{url} did not answer in {timeout} s")
        await asyncio.sleep(0.5)


# -- the replicas and the router ------------------------------------------------------------------


REPLICA = '''
"""llama-cpp-python's OpenAI server, as ``python -m llama_cpp.server`` makes it, plus what the
bench needs: ``/health`` (vllm-router waits for it), a log line per completion request naming
the session key it came with (which replica served which key), and ``/bench``: the tokens the
engine evaluated, counted where llama-cpp-python hands them to llama.cpp (``Llama.eval``): the
first batch of each generation is the prompt left after the prompt cache's longest prefix, the
rest are decoded tokens."""
import json, sys
import uvicorn
from llama_cpp import Llama
from llama_cpp.server.app import create_app

COUNTS = {"prompt_tokens": 0, "decoded": 0, "generations": 0, "streams_cut": 0, "decoded_in_cut_streams": 0}
_eval, _generate = Llama.eval, Llama.generate


def generate(self, tokens, *args, **kwargs):
    self.bench_first = True
    COUNTS["generations"] += 1
    yield from _generate(self, tokens, *args, **kwargs)


def evaluate(self, tokens):
    if getattr(self, "bench_first", False):
        COUNTS["prompt_tokens"] += len(tokens)
        self.bench_first = False
    else:
        COUNTS["decoded"] += len(tokens)
    return _eval(self, tokens)


_create = Llama.create_completion


def create_completion(self, *args, **kwargs):
    """A stream the server stops reading before its last chunk (the client hung up: superseded,
    cancelled, or the gateway's connection closed) counts as cut, with the tokens decoded in it."""
    out = _create(self, *args, **kwargs)
    if not kwargs.get("stream"):
        return out

    def stream():
        # the count at the last chunk handed on, read while this stream holds the model (the
        # close may come later, while another request's generation runs)
        start = last = COUNTS["decoded"]
        done = False
        try:
            for chunk in out:
                last = COUNTS["decoded"]
                done = done or bool(chunk["choices"][0].get("finish_reason"))
                yield chunk
        finally:
            if not done:
                COUNTS["streams_cut"] += 1
                COUNTS["decoded_in_cut_streams"] += last - start

    return stream()


Llama.generate, Llama.eval, Llama.create_completion = generate, evaluate, create_completion
from llama_cpp.server.settings import ModelSettings, ServerSettings

model, alias, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
app = create_app(
    server_settings=ServerSettings(host="127.0.0.1", port=port, interrupt_requests=False),
    model_settings=[
        ModelSettings(
            model=model, model_alias=alias, n_ctx=2048, n_threads=1, cache=True, verbose=True
        )
    ],
)


# async: on the event loop, not in the thread pool that queued generations fill (a sync route
# waited behind them past the bench's 30 s in a saturated phase)
@app.get("/health")
async def health() -> dict:
    return {"status": "ok"}


@app.get("/bench")
async def bench() -> dict:
    return dict(COUNTS)


class Seen:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].endswith("/completions"):
            return await self.app(scope, receive, send)
        header = dict(scope["headers"]).get(b"x-session-id", b"").decode()
        chunks = []

        async def seen():
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    try:
                        user = json.loads(b"".join(chunks)).get("user") or ""
                    except ValueError:
                        user = ""
                    line = json.dumps({"header": header, "user": str(user)})
                    print("BENCH-REQUEST " + line, file=sys.stderr, flush=True)
            return message

        return await self.app(scope, seen, send)


uvicorn.run(Seen(app), host="127.0.0.1", port=port, log_level="warning")
'''


@dataclass
class Replica:
    name: str
    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, script: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(script), str(GGUF), "test-coder", str(self.port)],
            stdout=open(self.log, "wb"),
            stderr=subprocess.STDOUT,
        )

    def size(self) -> int:
        return self.log.stat().st_size

    async def counts(self) -> dict[str, int]:
        r = await httpclient.AsyncHTTPClient().fetch(self.url + "/bench", request_timeout=30)
        return dict(json.loads(r.body))

    def since(self, offset: int) -> str:
        with self.log.open("rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")


class Router:
    """vllm-router in front of the replicas, restarted for each policy (a start-up flag)."""

    def __init__(self, binary: Path, port: int, replicas: list[Replica]) -> None:
        self.binary, self.port, self.replicas = binary, port, replicas
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self, policy: str) -> None:
        self.stop()
        self.proc = subprocess.Popen(  # noqa: ASYNC220 - between phases, nothing is measured then
            [
                str(self.binary),
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--worker-urls",
                *(r.url for r in self.replicas),
                "--policy",
                policy,
                "--log-level",
                "warning",
                "--request-timeout-secs",
                "60",
                "--prometheus-port",
                str(free_port()),
            ],
            stdout=open(ROOT / f"router-{policy}.log", "wb"),  # noqa: ASYNC230 - the log, for the process
            stderr=subprocess.STDOUT,
        )
        await wait_http(f"http://{HOST}:{self.port}/v1/models", 60)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


# -- LiteLLM and JupyterHub --------------------------------------------------------------------------


CUSTOM_AUTH = '''
"""Per-user keys with a per-user rate limit, without a database (LiteLLM custom auth)."""
import json, os
from fastapi import Request
from litellm.proxy._types import UserAPIKeyAuth

KEYS = json.loads(os.environ["BENCH_KEYS"])  # key -> {"user": name, "rpm": limit}


async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    found = KEYS.get(api_key)
    if found is None:
        raise Exception("unknown key")
    return UserAPIKeyAuth(api_key=api_key, user_id=found["user"], rpm_limit=found["rpm"])
'''

SESSION_HEADER = '''
"""Pass the client's x-session-id on to a text-completion deployment (a LiteLLM pre-call hook).

LiteLLM 1.89.3 forwards client x-* headers (``data["headers"]``) only on the chat path; for
``text-completion-openai`` ``litellm/main.py`` puts ``extra_headers`` into the request it hands
to the OpenAI client (``optional_params["extra_headers"]``), so the hook sets that.
"""
from litellm.integrations.custom_logger import CustomLogger


class SessionHeader(CustomLogger):
    async def async_pre_call_hook(self, user_api_key_dict, cache, data, call_type):
        headers = (data.get("proxy_server_request") or {}).get("headers") or {}
        key = next((v for k, v in headers.items() if k.lower() == "x-session-id"), None)
        if key:
            data["extra_headers"] = {**(data.get("extra_headers") or {}), "x-session-id": key}
        return data


session_header = SessionHeader()
'''


def litellm_config(router_port: int) -> str:
    return textwrap.dedent(
        f"""\
        model_list:
          - model_name: {MODEL_GROUP}
            litellm_params:
              model: text-completion-openai/test-coder
              api_base: http://{HOST}:{router_port}/v1
              api_key: none
        litellm_settings:
          telemetry: false
          drop_params: false
          callbacks: [session_header.session_header]
          model_group_settings:
            forward_client_headers_to_llm_api: [{MODEL_GROUP}]
        general_settings:
          custom_auth: custom_auth.user_api_key_auth
          forward_client_headers_to_llm_api: true
        """
    )


def hub_config(paths: dict[str, Path], hub_port: int, api_token: str, keys: dict[str, str]) -> str:
    boot = (
        f"import sys; sys.path.insert(0, {str(WORKTREE)!r}); sys.path.append({str(paths['deps'])!r}); "
        "from jupyterhub.singleuser import main; sys.exit(main())"
    )
    return textwrap.dedent(
        f"""\
        import json
        c.JupyterHub.ip = {HOST!r}
        c.JupyterHub.port = {hub_port}
        c.JupyterHub.hub_ip = {HOST!r}
        c.JupyterHub.db_url = "sqlite:///{ROOT}/hub.sqlite"
        c.JupyterHub.cookie_secret_file = "{ROOT}/cookie_secret"
        c.JupyterHub.authenticator_class = "dummy"
        c.Authenticator.allow_all = True
        c.ConfigurableHTTPProxy.command = [{str(paths["chp"])!r}]
        c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
        c.SimpleLocalProcessSpawner.home_dir_template = "{ROOT}/home/{{username}}"
        c.Spawner.cmd = [{sys.executable!r}, "-c", {boot!r}]
        c.Spawner.args = ["--allow-root", "--ServerApp.ip={HOST}"]
        c.Spawner.start_timeout = 120
        c.Spawner.http_timeout = 120
        c.JupyterHub.concurrent_spawn_limit = 4
        keys = json.loads({json.dumps(json.dumps(keys))})
        def environment(spawner):
            return keys[spawner.user.name]
        c.Spawner.environment = {{
            "LITELLM_API_KEY": environment,
            "JUPYTER_CONFIG_PATH": "{ROOT}/etc/jupyter",
        }}
        c.JupyterHub.services = [{{"name": "bench", "api_token": {api_token!r}}}]
        c.JupyterHub.load_roles = [{{
            "name": "bench",
            "scopes": ["admin:users", "admin:servers", "tokens", "access:servers"],
            "services": ["bench"],
        }}]
        """
    )


def server_config(gateway_port: int) -> str:
    """The system-wide configuration every single-user server reads (docs/jupyterhub.md)."""
    model = {
        "backend": "openai",
        "base_url": f"http://{HOST}:{gateway_port}/v1",
        "model": "test-coder",
        "api_model": MODEL_GROUP,
        "style": "raw",
        "server": "litellm",
        "api_key_env": "LITELLM_API_KEY",
        "shared": True,
        "timeout": 20.0,
        "first_request_timeout": 30.0,
        # the demo model on 2 shared cores: short suggestions keep two replicas ahead of 10 typists
        "max_tokens": 32,
        "max_tokens_single_line": 16,
        "context_window": 2048,  # the replicas' n_ctx
    }
    return textwrap.dedent(
        f"""\
        c.ServerApp.jpserver_extensions = {{"jupyter_codecomplete": True}}
        c.CodeCompleteApp.completion_model = {model!r}
        c.CodeCompleteApp.discover_local_servers = False
        c.CodeCompleteApp.recent_completions = 0
        c.CodeCompleteApp.record_usage = False
        c.ModelService.allow_user_choice = False
        """
    )


class Hub:
    def __init__(self, port: int, token: str) -> None:
        self.base = f"http://{HOST}:{port}"
        self.token = token
        self.client = httpclient.AsyncHTTPClient()

    async def api(self, method: str, path: str, body: Any = None) -> Any:
        r = await self.client.fetch(
            f"{self.base}/hub/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
            body=None if body is None and method == "GET" else json.dumps(body or {}),
            raise_error=False,
            request_timeout=60,
        )
        if r.code >= 400:
            raise RuntimeError(f"{method} {path}: {r.code} {r.body[:300]!r}")
        return json.loads(r.body) if r.body else None

    async def start_user(self, name: str) -> str:
        await self.api("POST", f"users/{name}")
        await self.api("POST", f"users/{name}/server")
        end = time.monotonic() + 180
        while True:
            user = await self.api("GET", f"users/{name}")
            server = (user.get("servers") or {}).get("")
            if server and server.get("ready"):
                break
            if time.monotonic() > end:
                raise TimeoutError(f"{name}'s server did not start")
            await asyncio.sleep(1)
        token = await self.api("POST", f"users/{name}/tokens", {"note": "bench", "expires_in": 3600})
        return str(token["token"])


# -- simulated users ---------------------------------------------------------------------------------


@dataclass
class Typed:
    first_ms: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    shown: int = 0
    requests: int = 0
    keystrokes: int = 0
    timeline: list[tuple[float, str]] = field(default_factory=list)  # (t, "ok" | error type)


class User:
    """One simulated user's socket: one reader for its whole life (a read cancelled halfway would
    lose a frame), each request's answer given to the :class:`Typed` it was sent for."""

    def __init__(self, sock: CompletionSocket) -> None:
        self.sock = sock
        self.pending: dict[int, tuple[float, Typed, float]] = {}  # number -> (sent, record, t0)
        self.task = asyncio.get_running_loop().create_task(self._read())
        self.numbers = 0  # the last request number used on this socket

    async def _read(self) -> None:
        while True:
            try:
                msg = await self.sock.recv()
            except Exception:
                return
            n = msg.get("reply_to")
            if n not in self.pending:
                continue
            sent, out, t0 = self.pending[n]
            err = msg.get("error")
            text = (msg.get("response") or {}).get("insertText") or ""
            if err:
                kind = err["type"]
                if kind not in ("superseded", "cancelled"):
                    out.errors[kind] = out.errors.get(kind, 0) + 1
                    out.timeline.append((time.monotonic() - t0, kind))
                self.pending.pop(n, None)
            elif (msg.get("type") == "stream" and (text or msg.get("done"))) or (
                msg.get("type") == "inline_completion"
                and not any(i.get("isIncomplete") for i in (msg.get("list") or {}).get("items") or [])
            ):
                # the first piece of the suggestion (the reply before it only opens the stream)
                out.first_ms.append((time.monotonic() - sent) * 1000)
                out.shown += 1
                out.timeline.append((time.monotonic() - t0, "ok"))
                self.pending.pop(n, None)

    def close(self) -> None:
        self.task.cancel()
        self.sock.close()


async def type_document(
    user: User, doc: str, start: int, keystroke_s: float, chars: int, out: Typed, t0: float
) -> int:
    """Type ``chars`` characters into ``doc``: one streamed request per keystroke (a newer one
    supersedes the older, as in the browser); each reply's first piece timed."""
    number = start
    # each user's own file: about 2 KB of code above the place they type at (what a model server
    # caches: a prompt that starts the same is not evaluated again)
    above = f"# {doc}, typed by {id(user):x}\nimport numpy as np\n\n" + "".join(
        f"def step_{k}(x):\n    return x * {k} + {len(doc)}\n\n" for k in range(50)
    )
    text = above + SNIPPET * 4
    base = len(above)
    mine: list[int] = []
    for i in range(chars):
        # a person types a word at ~8 keys a second and pauses at its end; the browser's debounce
        # asks in that pause, not at every key (src/restraint.ts), so a request goes at word ends
        out.keystrokes += 1
        await asyncio.sleep(keystroke_s)
        if text[base + i] not in " \n(:,=." and i != chars - 1:
            continue
        number += 1
        mine.append(number)
        user.pending[number] = (time.monotonic(), out, t0)
        out.requests += 1
        await user.sock.send(
            {
                "type": "inline_completion",
                "number": number,
                "prefix": text[: base + i + 1],
                "suffix": "",
                "language": "python",
                "path": doc,
                "stream": True,
            }
        )
        await asyncio.sleep(PAUSE_S)
    end = time.monotonic() + 10
    while any(n in user.pending for n in mine) and time.monotonic() < end:  # noqa: ASYNC110 - a bounded wait
        await asyncio.sleep(0.02)
    left = [n for n in mine if user.pending.pop(n, None) is not None]
    if left:
        out.errors["no_answer"] = out.errors.get("no_answer", 0) + len(left)
    return number


async def typing_phase(
    users: dict[str, User], docs: int, chars: int, keystroke_s: float, tag: str
) -> dict[str, Typed]:
    """Each user types ``docs`` documents of their own, named with ``tag`` (each phase types new
    ones: what the replicas cached in an earlier phase does not help a later one)."""
    results = {name: Typed() for name in users}
    t0 = time.monotonic()

    async def one(name: str, user: User) -> None:
        n = user.numbers
        for d in range(docs):
            n = await type_document(
                user, f"work/{tag}-notebook{d}.py", n, keystroke_s, chars, results[name], t0
            )
            await asyncio.sleep(0.3)
        user.numbers = n + 1

    await asyncio.gather(*(one(name, s) for name, s in users.items()))
    return results


# -- the measures ---------------------------------------------------------------------------------------


@dataclass
class Work:
    """What the replicas logged since a mark: the session key of each request they took (the
    ``x-session-id`` header as it arrived, else the body's ``user``), and the engine's count of
    the prompt tokens it evaluated (after its prompt cache) and of the tokens it decoded."""

    routed: list[tuple[str, str]] = field(default_factory=list)  # (key, replica)
    sources: dict[str, int] = field(default_factory=dict)  # which field the key came in
    prompt_tokens: int = 0
    decoded: int = 0
    generations: int = 0
    streams_cut: int = 0  # streams the replica stopped before their end (the client hung up)
    decoded_in_cut_streams: int = 0  # tokens decoded in them: model work nobody read to the end


async def mark(replicas: list[Replica]) -> dict[str, tuple[int, dict[str, int]]]:
    return {r.name: (r.size(), await r.counts()) for r in replicas}


async def replica_work(replicas: list[Replica], since: dict[str, tuple[int, dict[str, int]]]) -> Work:
    work = Work()
    for rep in replicas:
        offset, before = since[rep.name]
        now = await rep.counts()
        work.prompt_tokens += now["prompt_tokens"] - before["prompt_tokens"]
        work.decoded += now["decoded"] - before["decoded"]
        work.generations += now["generations"] - before["generations"]
        work.streams_cut += now["streams_cut"] - before["streams_cut"]
        work.decoded_in_cut_streams += now["decoded_in_cut_streams"] - before["decoded_in_cut_streams"]
        for line in rep.since(offset).splitlines():
            if line.startswith("BENCH-REQUEST "):
                try:  # llama.cpp writes to the same stderr from C: a line may run on
                    seen, _ = json.JSONDecoder().raw_decode(line.split(" ", 1)[1])
                except ValueError:
                    continue
                key = seen["header"] or seen["user"]
                source = "header" if seen["header"] else ("body user" if key else "none")
                work.sources[source] = work.sources.get(source, 0) + 1
                work.routed.append((key, rep.name))
    return work


def share_on_one(routed: list[tuple[str, str]]) -> float:
    """Mean over session keys of the share of the key's requests on its most used replica."""
    by_key: dict[str, dict[str, int]] = {}
    for key, replica in routed:
        by_key.setdefault(key, {}).setdefault(replica, 0)
        by_key[key][replica] += 1
    shares = [max(c.values()) / sum(c.values()) for c in by_key.values() if sum(c.values()) >= 3]
    return statistics.mean(shares) if shares else float("nan")


def p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# -- the run --------------------------------------------------------------------------------------------


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    paths = setup()
    for sub in ("home", "etc/jupyter"):
        shutil.rmtree(ROOT / sub, ignore_errors=True)
        (ROOT / sub).mkdir(parents=True)
    for f in ("hub.sqlite", "jupyterhub-proxy.pid"):
        (ROOT / f).unlink(missing_ok=True)
    procs: list[subprocess.Popen[bytes]] = []
    script = ROOT / "replica.py"
    script.write_text(REPLICA)
    replicas = [Replica(f"replica{i}", free_port(), ROOT / f"replica{i}.log") for i in range(args.replicas)]
    for rep in replicas:
        rep.start(script)
    router_port, gw_port, hub_port = free_port(), free_port(), free_port()
    router = Router(paths["router"], router_port, replicas)
    names = [f"user{i:02d}" for i in range(args.users)] + ["limited"]
    keys = {n: "sk-bench-" + secrets.token_hex(12) for n in names}
    key_table = {k: {"user": n, "rpm": LIMITED_RPW if n == "limited" else 100_000} for n, k in keys.items()}
    result: dict[str, Any] = {
        "users": args.users,
        "replicas": args.replicas,
        "litellm": LITELLM,
        "jupyterhub": JUPYTERHUB,
        "router": ROUTER,
        "replica": f"llama_cpp.server (llama-cpp-python), {GGUF.name}, prompt cache on",
    }
    try:
        for rep in replicas:
            await wait_http(rep.url + "/health", 120)
        await router.start("consistent_hash")
        # the gateway
        gwdir = ROOT / "gateway"
        gwdir.mkdir(exist_ok=True)
        (gwdir / "custom_auth.py").write_text(CUSTOM_AUTH)
        (gwdir / "session_header.py").write_text(SESSION_HEADER)
        (gwdir / "config.yaml").write_text(litellm_config(router_port))
        env = {
            **os.environ,
            "BENCH_KEYS": json.dumps(key_table),
            "LITELLM_RATE_LIMIT_WINDOW_SIZE": str(WINDOW_S),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "LITELLM_TELEMETRY": "False",
            "PYTHONPATH": str(gwdir),
            "NO_PROXY": "*",
        }
        t = time.monotonic()
        procs.append(
            subprocess.Popen(  # noqa: ASYNC220 - started once, before anything is measured
                [
                    str(paths["gw"] / "bin" / "litellm"),
                    "--config",
                    str(gwdir / "config.yaml"),
                    "--host",
                    HOST,
                    "--port",
                    str(gw_port),
                    "--num_workers",
                    "1",
                ],
                cwd=gwdir,
                env=env,
                stdout=open(ROOT / "litellm.log", "wb"),  # noqa: ASYNC230 - the log, kept open for the process
                stderr=subprocess.STDOUT,
            )
        )
        await wait_http(f"http://{HOST}:{gw_port}/health/liveliness", 180)
        result["gateway_start_s"] = round(time.monotonic() - t, 1)
        print(f"gateway up in {result['gateway_start_s']} s", flush=True)
        # the hub
        (ROOT / "etc/jupyter/jupyter_server_config.py").write_text(server_config(gw_port))
        token = secrets.token_hex(16)
        (ROOT / "jupyterhub_config.py").write_text(hub_config(paths, hub_port, token, keys))
        t = time.monotonic()
        procs.append(
            subprocess.Popen(  # noqa: ASYNC220 - started once, before anything is measured
                [str(paths["hub"] / "bin" / "jupyterhub"), "-f", str(ROOT / "jupyterhub_config.py")],
                cwd=ROOT,
                stdout=open(ROOT / "hub.log", "wb"),  # noqa: ASYNC230 - the log, kept open for the process
                stderr=subprocess.STDOUT,
                env={**os.environ, "PATH": f"{paths['hub'] / 'bin'}:{os.environ['PATH']}"},
            )
        )
        hub = Hub(hub_port, token)
        await wait_http(f"{hub.base}/hub/api", 120)
        tokens: dict[str, str] = {}
        for batch in range(0, len(names), 4):
            got = await asyncio.gather(*(hub.start_user(n) for n in names[batch : batch + 4]))
            tokens.update(zip(names[batch : batch + 4], got, strict=True))
        result["hub_and_servers_start_s"] = round(time.monotonic() - t, 1)
        print(f"hub and {len(names)} servers up in {result['hub_and_servers_start_s']} s", flush=True)

        async def connect(name: str) -> User:
            url = f"ws://{HOST}:{hub_port}/user/{name}/api/codecomplete/inline"
            return User(await CompletionSocket.connect(url, token=tokens[name]))

        sockets = {n: await connect(n) for n in names if n != "limited"}
        chars = args.chars

        async def phase(label: str, who: dict[str, User], policy: str) -> dict[str, Any]:
            await router.start(policy)
            await asyncio.sleep(1)  # the gateway's pooled connections to the old router are gone
            since = await mark(replicas)
            t = time.monotonic()
            typed = await typing_phase(
                who, args.docs, chars, args.keystroke_ms / 1000, policy + str(len(who))
            )
            await asyncio.sleep(1.5)  # the last generations end and are logged
            work = await replica_work(replicas, since)
            firsts = [ms for r in typed.values() for ms in r.first_ms]
            keystrokes = sum(r.keystrokes for r in typed.values())
            out = {
                "policy": policy,
                "users": len(who),
                "seconds": round(time.monotonic() - t, 1),
                "keystrokes": keystrokes,
                "requests": sum(r.requests for r in typed.values()),
                "model_requests": len(work.routed),
                "generations": work.generations,
                "first_piece_p50_ms": round(p50(firsts), 1),
                "first_piece_p90_ms": round(statistics.quantiles(firsts, n=10)[8], 1)
                if len(firsts) >= 10
                else None,
                "share_on_one_replica": round(share_on_one(work.routed), 3),
                "prompt_tokens_evaluated": work.prompt_tokens,
                "prompt_tokens_evaluated_per_model_request": round(work.prompt_tokens / work.generations, 1)
                if work.generations
                else None,
                "prompt_tokens_evaluated_per_keystroke": round(work.prompt_tokens / max(1, keystrokes), 1),
                "tokens_decoded": work.decoded,
                "streams_cut": work.streams_cut,
                "tokens_decoded_in_cut_streams": work.decoded_in_cut_streams,
                "suggestions_shown": sum(r.shown for r in typed.values()),
                "errors": {k: v for r in typed.values() for k, v in r.errors.items()},
                "key_source": work.sources,
            }
            print(label, json.dumps(out), flush=True)
            return out

        # warm every server's first request (the model lookup) out of the figures
        await typing_phase(sockets, 1, 3, 0.2, "warm")
        one = dict(itertools.islice(sockets.items(), 1))
        result["one_user"] = await phase("1 user, session key", one, "consistent_hash")
        result["all_users_session"] = await phase(
            f"{len(sockets)} users, session key", sockets, "consistent_hash"
        )
        result["all_users_round_robin"] = await phase(
            f"{len(sockets)} users, round robin", sockets, "round_robin"
        )
        result["all_users_cache_aware"] = await phase(
            f"{len(sockets)} users, cache aware", sockets, "cache_aware"
        )

        # the gateway rate-limits one user: LIMITED_RPW requests per WINDOW_S
        limited = await connect("limited")
        await router.start("consistent_hash")
        await asyncio.sleep(2)  # what the phases before left in flight ends
        # the replicas' queue from a saturated phase drains first (bounded): else the limited
        # user's first requests wait behind it and time out before the gateway's limit is reached
        end, before = time.monotonic() + 90, None
        while time.monotonic() < end:
            now = [await r.counts() for r in replicas]
            if now == before:
                break
            before = now
            await asyncio.sleep(3)
        since = await mark(replicas)
        typed = Typed()
        t0 = time.monotonic()
        n = 0
        for _burst in range(3):  # type, pause, type again: what the user sees
            n = await type_document(limited, "work/limited.py", n, 0.12, 40, typed, t0) + 1
            await asyncio.sleep(4)
        upstream_calls = len((await replica_work(replicas, since)).routed)  # only this user types now
        oks = [t for t, k in typed.timeline if k == "ok"]
        limits = [t for t, k in typed.timeline if k == "rate_limited"]
        after_limit = [t for t in oks if limits and t > limits[0]]
        result["rate_limited_user"] = {
            "keystrokes": typed.keystrokes,
            "requests": typed.requests,
            "suggestions_shown": typed.shown,
            "replies_by_error": typed.errors,
            "notices_a_user_sees": len(
                {"model_busy" if k in ("rate_limited", "model_busy") else k for k in typed.errors}
            ),
            "upstream_calls": upstream_calls,
            "first_429_at_s": round(limits[0], 1) if limits else None,
            "suggestions_again_at_s": round(after_limit[0], 1) if after_limit else None,
            "window_s": WINDOW_S,
            "limit_per_window": LIMITED_RPW,
        }
        print("rate-limited user", json.dumps(result["rate_limited_user"]), flush=True)
        for s in [*sockets.values(), limited]:
            s.close()
    finally:
        router.stop()
        for rep in replicas:
            if rep.proc is not None and rep.proc.poll() is None:
                rep.proc.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        for rep in replicas:
            if rep.proc is not None:
                try:
                    rep.proc.wait(10)
                except subprocess.TimeoutExpired:
                    rep.proc.kill()
        # the hub's proxy and the single-user servers it started, if any are left
        pid_file = ROOT / "jupyterhub-proxy.pid"
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
            except (OSError, ValueError):
                pass
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--docs", type=int, default=2, help="documents each user types in, one after another")
    parser.add_argument("--chars", type=int, default=60, help="keystrokes per document")
    parser.add_argument("--keystroke-ms", type=float, default=120.0)
    parser.add_argument("--out", default=str(ROOT / "result.json"))
    parser.add_argument("--timeout", type=float, default=900.0, help="the whole run's bound (s)")
    args = parser.parse_args()
    result = asyncio.run(asyncio.wait_for(main_async(args), args.timeout))
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
