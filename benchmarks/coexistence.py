"""Beside jupyter-ai 3 and notebook-intelligence, in a real browser (issue 40): one command.

    python benchmarks/coexistence.py            # ~6 min the first time (the install), ~2 min after
    python benchmarks/coexistence.py --reuse    # keep an existing venv of the same pins

1. **Install.** Builds this checkout's wheel (the tracked files and the prebuilt JupyterLab extension,
   copied to a temp dir as ``tests/test_wheel_install.py`` does; run ``jlpm build`` first), makes a
   throw-away venv (``/tmp/ccbench-coexist``) and installs, in **one pip resolve**, the wheel,
   ``jupyter-ai[jupyternaut]==3.2.0`` and ``notebook-intelligence==6.2.0``; records ``pip check`` and
   the versions resolved; then installs the ``playwright`` Python package (its driver only: the
   browser is Debian's ``/usr/bin/chromium``) in a second step, and runs ``pip check`` again.
2. **Serve.** Two scripted OpenAI-format upstreams (``jupyter_codecomplete.testing.openai_upstream``,
   loopback): ours answers ``_codecomplete(n):`` (raw completions), notebook-intelligence's answers
   ``_nbi(n):`` (chat completions: its ``openai-compatible`` provider, set in ``~/.jupyter/nbi/config.json``
   under a throw-away ``HOME``). ``jupyter lab`` from the venv on 127.0.0.1 with its own config, data,
   runtime, settings and workspaces dirs.
3. **Drive.** Chromium through Playwright (the venv's Python), typing one key at a time 120-250 ms
   apart with pauses, in a ``.py`` file: the three extensions load (no console or page error naming
   them); both inline providers are asked (each upstream's request count) and the first answer
   shows; Alt+] / Alt+[ switch between the two suggestions; with notebook-intelligence's ghost text
   on screen, Ctrl+→ and Ctrl+Alt+→ leave the text alone and move the cursor where the editor
   moves it without ghost text; with ours shown they accept a word / the line of ours; with our
   provider off in the Inline Completer settings (``providers.jupyter-codecomplete.enabled =
   false``, written through JupyterLab's settings API, then the page reloaded), our status item says
   *provider off* and Ctrl+→ over notebook-intelligence's suggestion is the editor's move.
   Screenshots go to ``--shots`` (``/tmp/ccbench-coexist-shots``).
4. Prints a table of the checks and exits 1 if any failed. Every step has a timeout; the servers
   are stopped and the temp dirs removed at the end (``--keep`` keeps the temp dir and the venv).

Security advisories of the pins (looked up in public issue threads and docs when this was written,
Dec 2026): none found for jupyter-ai 3.2.0, jupyter-ai-jupyternaut 0.1.0 or notebook-intelligence
6.2.0; jupyter-ai's one published notice (jupyter-ai#1108) is about ``langchain-community<0.2.19``
(CVE-2024-8309), which the 3.x line does not install. That search is not an audit: run
``pip-audit`` in the venv (``--keep``) before recommending the pins.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from jupyter_codecomplete.testing import build_wheel, clean_env

ROOT = Path(__file__).resolve().parent.parent
PINS = ("jupyter-ai[jupyternaut]==3.2.0", "notebook-intelligence==6.2.0")
REPORTED = (
    "jupyter_codecomplete",
    "jupyter-ai",
    "jupyter-ai-jupyternaut",
    "jupyterlab-chat",
    "notebook-intelligence",
    "jupyterlab",
    "jupyter_server",
    "notebook",
    "playwright",
)
OURS = "_codecomplete(n):"
THEIRS = "_nbi(n):"
NAMES = (
    "codecomplete",
    "plmbr",
    "notebook-intelligence",
    "notebook_intelligence",
    "jupyter-ai",
    "jupyterlab-chat",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sh(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 900
) -> str:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd[:5])} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done.stdout


# ---------------------------------------------------------------------------------------- install


def wheel_of_checkout(tmp: Path) -> Path:
    if not (ROOT / "jupyter_codecomplete" / "labextension" / "package.json").is_file():
        raise SystemExit("build the JupyterLab extension first (`jlpm build`)")
    try:
        return build_wheel(ROOT, tmp, clean_env(), timeout=900)
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None


def install(venv: Path, tmp: Path, reuse: bool) -> dict[str, Any]:
    py = venv / "bin" / "python"
    env = clean_env()
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    started = time.monotonic()
    if not (reuse and py.exists()):
        wheel = wheel_of_checkout(tmp)
        shutil.rmtree(venv, ignore_errors=True)
        sh([sys.executable, "-m", "venv", str(venv)], env)
        sh([str(py), "-m", "pip", "install", "-q", str(wheel), *PINS], env)  # one resolve
    else:  # still ours: this checkout's Python package, labextension included
        wheel = wheel_of_checkout(tmp)
        sh([str(py), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)], env)
    check = subprocess.run(
        [str(py), "-m", "pip", "check"], env=env, capture_output=True, text=True, timeout=120
    )
    sh([str(py), "-m", "pip", "install", "-q", "playwright"], env)
    listed = json.loads(sh([str(py), "-m", "pip", "list", "--format", "json"], env))
    versions = {row["name"].lower().replace("_", "-"): row["version"] for row in listed}
    return {
        "pip_check": (check.stdout + check.stderr).strip(),
        "pip_check_ok": check.returncode == 0,
        "versions": {n: versions.get(n.lower().replace("_", "-"), "-") for n in REPORTED},
        "seconds": time.monotonic() - started,
    }


# ---------------------------------------------------------------------------------------- serve


class Servers:
    """The two upstreams and ``jupyter lab``, each its own process group; ``stop`` ends them."""

    def __init__(self, venv: Path, tmp: Path) -> None:
        self.venv, self.tmp = venv, tmp
        self.procs: list[subprocess.Popen[bytes]] = []
        self.ours_port, self.theirs_port, self.lab_port = free_port(), free_port(), free_port()
        self.token = "coexistence-" + os.urandom(8).hex()
        home = tmp / "home"
        self.root = tmp / "work"
        self.env = clean_env()
        self.env.update(
            HOME=str(home),
            JUPYTER_CONFIG_DIR=str(home / "config"),
            JUPYTER_DATA_DIR=str(home / "data"),
            JUPYTER_RUNTIME_DIR=str(home / "runtime"),
            IPYTHONDIR=str(home / "ipython"),
            JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
            PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        for d in ("config", "data", "runtime", "settings", "workspaces", ".jupyter/nbi"):
            (home / d).mkdir(parents=True, exist_ok=True)
        self.root.mkdir()

    def spawn(self, name: str, cmd: list[str]) -> None:
        log = (self.tmp / f"{name}.log").open("wb")
        self.procs.append(
            subprocess.Popen(
                cmd, env=self.env, cwd=self.root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        )

    def wait_http(self, url: str, timeout: float, headers: dict[str, str] | None = None) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for proc in self.procs:
                if proc.poll() is not None:
                    raise SystemExit(f"a server exited ({proc.args!r}); logs in {self.tmp}")
            try:
                urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=2)
                return
            except Exception:
                time.sleep(0.25)
        raise SystemExit(f"{url} did not answer within {timeout:.0f} s")

    def start(self) -> None:
        py = str(self.venv / "bin" / "python")
        for name, port, answer in (("ours", self.ours_port, OURS), ("theirs", self.theirs_port, THEIRS)):
            self.spawn(
                f"upstream-{name}",
                [
                    py,
                    "-m",
                    "jupyter_codecomplete.testing.openai_upstream",
                    "--port",
                    str(port),
                    "--default",
                    answer,
                    "--ttft-ms",
                    "30",
                ],
            )
            self.wait_http(f"http://127.0.0.1:{port}/v1/models", 30)
        nbi = {
            "chat_model": {"provider": "none", "model": "none"},
            "inline_completion_model": {
                "provider": "openai-compatible",
                "model": "openai-compatible-inline-completion-model",
                "properties": [
                    {"id": "base_url", "value": f"http://127.0.0.1:{self.theirs_port}/v1"},
                    {"id": "model_id", "value": "test-coder"},
                    {"id": "api_key", "value": "unused"},
                ],
            },
        }
        (self.tmp / "home" / ".jupyter" / "nbi" / "config.json").write_text(json.dumps(nbi))
        config = {
            "ServerApp": {
                "ip": "127.0.0.1",
                "port": self.lab_port,
                "port_retries": 0,
                "open_browser": False,
                "allow_root": True,
            },
            "IdentityProvider": {"token": self.token},
            "FileContentsManager": {"delete_to_trash": False},
            "CodeCompleteApp": {
                "completion_model": {
                    "backend": "openai",
                    "base_url": f"http://127.0.0.1:{self.ours_port}/v1",
                    "model": "test-coder",
                    "style": "raw",
                },
                "discover_local_servers": False,
                "recent_completions": 0,
            },
        }
        (self.tmp / "home" / "config" / "jupyter_server_config.json").write_text(json.dumps(config))
        (self.root / "coexist.py").write_text("\n\nprint(1)\n")
        self.spawn("lab", [str(self.venv / "bin" / "jupyter"), "lab", f"--ServerApp.root_dir={self.root}"])
        self.wait_http(f"http://127.0.0.1:{self.lab_port}/api/status", 120, self.auth)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"}

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


# ---------------------------------------------------------------------------------------- drive

ROW = list[tuple[str, bool, str]]


def drive(args: argparse.Namespace) -> int:
    """Run inside the venv (it has playwright): ``--drive STATE.json``; writes the results there."""
    from playwright.sync_api import sync_playwright  # type: ignore[import-not-found,unused-ignore]

    state = json.loads(Path(args.drive).read_text())
    base, token, shots = state["base"], state["token"], Path(state["shots"])
    rows: ROW = []
    errors: list[str] = []
    rng = random.Random(40)

    def check(name: str, ok: bool, detail: str = "") -> bool:
        rows.append((name, bool(ok), detail))
        print(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail else ""), flush=True)
        return bool(ok)

    def put_setting(value: dict[str, Any]) -> None:
        url = f"{base}/lab/api/settings/@jupyterlab/completer-extension:inline-completer"
        body = json.dumps({"raw": json.dumps(value)}).encode()
        req = urllib.request.Request(
            url,
            data=body,
            method="PUT",
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        )
        urllib.request.urlopen(req, timeout=10).close()

    def requests() -> dict[str, int]:
        out = {}
        for name, port in (("ours", state["ours_port"]), ("theirs", state["theirs_port"])):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stats", timeout=5) as r:
                stats = json.load(r)
            out[name] = len(stats["requests"])
        return out

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
            timeout=60_000,
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(20_000)
        page.on(
            "console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None
        )
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))

        def pause(lo: float = 0.12, hi: float = 0.25) -> None:
            page.wait_for_timeout(rng.uniform(lo, hi) * 1000)

        def type_like_a_person(text: str) -> None:
            for ch in text:
                page.keyboard.type(ch)
                pause()
                if ch == " " and rng.random() < 0.5:
                    pause(0.4, 0.8)  # a person stops to think

        def editor_state() -> dict[str, Any]:
            return dict(
                page.evaluate(
                    """() => {
                      const view = document.querySelector('.jp-FileEditor .cm-content').cmView.view;
                      const head = view.state.selection.main.head;
                      const ghost = document.querySelector('.jp-FileEditor .jp-GhostText');
                      return {text: view.state.doc.toString(), head, ghost: ghost ? ghost.textContent : null};
                    }"""
                )
            )

        def ghost(timeout: float = 10.0) -> str | None:
            """The ghost text once it has stopped changing for 0.4 s (a streamed one grows)."""
            deadline = time.monotonic() + timeout
            last, since = None, time.monotonic()
            while time.monotonic() < deadline:
                shown = editor_state()["ghost"]
                if shown != last:
                    last, since = shown, time.monotonic()
                elif shown and time.monotonic() - since >= 0.4:
                    return str(shown)
                page.wait_for_timeout(100)
            return last

        def show(which: str) -> bool:
            """Alt+] until ``which`` is the ghost text (at most 3 presses)."""
            for _ in range(4):
                if (ghost(5) or "").startswith(which):
                    return True
                page.keyboard.press("Alt+BracketRight")
                pause(0.3, 0.5)
            return False

        def dismiss() -> None:
            """A fresh HOME: notebook-intelligence's first-run tour covers the page; skip it."""
            skip = page.get_by_text("Skip tour", exact=True)
            try:
                skip.wait_for(timeout=8000)
                skip.click()
                page.wait_for_timeout(500)
            except Exception:
                pass  # no tour this time
            for _ in range(3):  # any other dialog would take the keys
                dialog = page.locator(".jp-Dialog")
                if dialog.count() == 0:
                    break
                dialog.first.press("Escape")
                page.wait_for_timeout(500)

        def open_file() -> None:
            page.goto(
                f"{base}/lab/tree/coexist.py?token={token}", wait_until="domcontentloaded", timeout=90_000
            )
            page.locator(".jp-FileEditor .cm-content").wait_for(timeout=90_000)
            page.wait_for_timeout(3000)  # late plugins, the first-run notices
            dismiss()
            page.locator(".jp-FileEditor .cm-content").click()
            page.keyboard.press("Control+Home")

        def retrigger() -> None:
            """Back to the end of ``def fib`` and type its last letter again: a fresh request."""
            page.keyboard.press("Escape")
            page.keyboard.press("Control+Home")
            page.keyboard.press("End")
            pause()
            page.keyboard.press("Backspace")
            pause(0.3, 0.5)
            type_like_a_person("b")

        def editor_move(key: str) -> int:
            """Where ``key`` moves the cursor from the end of ``def fib`` with no ghost text on screen."""
            page.keyboard.press("Escape")
            page.keyboard.press("Control+Home")
            page.keyboard.press("End")
            page.wait_for_timeout(400)
            assert editor_state()["ghost"] is None
            page.keyboard.press(key)
            pause()
            return int(editor_state()["head"])

        try:
            open_file()
            config = page.evaluate(
                "() => JSON.parse(document.getElementById('jupyter-config-data').textContent)"
            )
            loaded = [e["name"] for e in config.get("federated_extensions", [])]
            for name in (
                "jupyter-codecomplete",
                "@plmbr/notebook-intelligence",
                "@jupyter-ai/jupyternaut",
                "@jupyter-ai/router",
                "jupyterlab-chat-extension",
            ):
                check(f"loads: {name}", name in loaded, "" if name in loaded else f"loaded: {loaded}")
            status = page.locator(".jp-StatusBar-Widget .jp-CodeComplete-status")
            check(
                "our status item is there",
                status.count() == 1,
                status.first.inner_text() if status.count() else "",
            )
            page.screenshot(path=str(shots / "1-loaded.png"))

            before = requests()
            type_like_a_person("def fib")
            first = ghost(15)
            after = requests()
            page.screenshot(path=str(shots / "2-first-answer.png"))
            check("the first answer shows", first in (OURS, THEIRS), repr(first))
            check(
                "both providers are asked",
                after["ours"] > before["ours"] and after["theirs"] > before["theirs"],
                f"requests ours {before['ours']}→{after['ours']}, "
                f"notebook-intelligence {before['theirs']}→{after['theirs']}",
            )
            # both answers in (each upstream answered), then Alt+] to the other one and Alt+[ back
            page.wait_for_timeout(1500)

            def switch(key: str, current: str | None) -> str | None:
                page.keyboard.press(key)
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    now = editor_state()["ghost"]
                    if now and now != current:
                        return str(now)
                    page.wait_for_timeout(100)
                now = editor_state()["ghost"]
                return str(now) if now else None

            other = switch("Alt+BracketRight", first)
            page.screenshot(path=str(shots / "3-alt-next.png"))
            back = switch("Alt+BracketLeft", other)
            check(
                "Alt+] / Alt+[ switch between the two",
                {first, other} == {OURS, THEIRS} and back == first,
                f"{first!r} → Alt+] {other!r} → Alt+[ {back!r}",
            )

            typed = "def fib\n\nprint(1)\n"
            for key, label in (("Control+ArrowRight", "Ctrl+→"), ("Control+Alt+ArrowRight", "Ctrl+Alt+→")):
                expected = editor_move(key)
                retrigger()
                shown = show(THEIRS)
                page.screenshot(
                    path=str(shots / f"4-theirs-{label.replace('+', '').replace('→', 'right')}.png")
                )
                if not check(
                    f"notebook-intelligence's ghost text on screen for {label}",
                    shown,
                    repr(editor_state()["ghost"]),
                ):
                    continue
                page.keyboard.press(key)
                pause(0.3, 0.5)
                now = editor_state()
                check(
                    f"{label} over notebook-intelligence's suggestion is the editor's move",
                    now["text"] == typed and now["head"] == expected,
                    f"text {now['text'][:30]!r}, cursor {now['head']} (editor: {expected})",
                )

            for key, label, want in (
                ("Control+ArrowRight", "Ctrl+→ accepts a word of ours", "def fib_codecomplete"),
                ("Control+Alt+ArrowRight", "Ctrl+Alt+→ accepts the line of ours", "def fib_codecomplete(n):"),
            ):
                retrigger()
                if not check(
                    f"our ghost text on screen ({label})", show(OURS), repr(editor_state()["ghost"])
                ):
                    continue
                page.keyboard.press(key)
                pause(0.3, 0.5)
                line = editor_state()["text"].split("\n")[0]
                page.screenshot(path=str(shots / f"5-ours-{'line' if 'line' in label else 'word'}.png"))
                ok = (
                    line.startswith(want)
                    and "_nbi" not in line
                    and (want.endswith(":") == line.endswith(":"))
                )
                check(label, ok, repr(line))
                # back to "def fib" for the next round
                page.keyboard.press("Escape")
                page.keyboard.press("Control+Home")
                page.keyboard.press("Shift+End")
                type_like_a_person("def fib")

            # our provider off in the Inline Completer settings (the docs' recipe), page reloaded
            page.keyboard.press("Escape")
            page.keyboard.press("Control+s")
            page.wait_for_timeout(1000)
            put_setting({"providers": {"jupyter-codecomplete": {"enabled": False}}})
            page.reload()
            page.locator(".jp-FileEditor .cm-content").wait_for(timeout=90_000)
            page.wait_for_timeout(3000)
            dismiss()
            label_text = status.first.inner_text() if status.count() else ""
            page.screenshot(path=str(shots / "6-provider-off.png"))
            check("provider off: our status item says so", "provider off" in label_text, repr(label_text))
            page.locator(".jp-FileEditor .cm-content").click()
            expected = editor_move("Control+ArrowRight")
            before = requests()
            retrigger()
            off_ghost = ghost(15)
            after = requests()
            check(
                "provider off: only notebook-intelligence answers",
                off_ghost == THEIRS and after["ours"] == before["ours"],
                f"ghost {off_ghost!r}, our upstream {before['ours']}→{after['ours']}",
            )
            page.keyboard.press("Control+ArrowRight")
            pause(0.3, 0.5)
            now = editor_state()
            page.screenshot(path=str(shots / "7-provider-off-ctrl-right.png"))
            check(
                "provider off: Ctrl+→ over notebook-intelligence's suggestion is the editor's move",
                now["text"] == typed and now["head"] == expected,
                f"text {now['text'][:30]!r}, cursor {now['head']} (editor: {expected})",
            )
        except Exception as exc:  # a step that timed out: a failed row, not a traceback
            check("the run finished", False, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
            try:
                page.screenshot(path=str(shots / "9-failure.png"))
            except Exception:
                pass
        finally:
            browser.close()
    about = [e for e in errors if any(n in e.lower() for n in NAMES)]
    check("no console or page error naming the three", not about, "; ".join(about)[:400])
    state["rows"], state["errors"] = rows, errors
    Path(args.drive).write_text(json.dumps(state))
    return 0


# ---------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--venv", default="/tmp/ccbench-coexist", help="the throw-away venv (replaced unless --reuse)"
    )
    ap.add_argument("--shots", default="/tmp/ccbench-coexist-shots", help="screenshots go here")
    ap.add_argument(
        "--reuse", action="store_true", help="keep the venv if it is there (reinstalls only ours)"
    )
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (server logs) and the venv")
    ap.add_argument("--drive", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.drive:
        return drive(args)
    venv, shots = Path(args.venv), Path(args.shots)
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    tmp = Path(tempfile.mkdtemp(prefix="ccbench-coexist-"))
    servers: Servers | None = None
    rows: ROW = []
    try:
        print(f"installing into {venv} ...", flush=True)
        inst = install(venv, tmp, args.reuse)
        rows.append(
            ("pip check (the three in one resolve, then playwright)", inst["pip_check_ok"], inst["pip_check"])
        )
        servers = Servers(venv, tmp)
        servers.start()
        state_file = tmp / "drive.json"
        state_file.write_text(
            json.dumps(
                {
                    "base": f"http://127.0.0.1:{servers.lab_port}",
                    "token": servers.token,
                    "shots": str(shots),
                    "ours_port": servers.ours_port,
                    "theirs_port": servers.theirs_port,
                }
            )
        )
        done = subprocess.run(
            [str(venv / "bin" / "python"), str(Path(__file__).resolve()), "--drive", str(state_file)],
            env=servers.env,
            timeout=420,
            check=False,
        )
        state = json.loads(state_file.read_text())
        rows += [(str(n), bool(ok), str(d)) for n, ok, d in state.get("rows", [])]
        if done.returncode != 0 or "rows" not in state:
            rows.append(("the browser run", False, f"exit {done.returncode}"))
        other = [e for e in state.get("errors", []) if not any(n in e.lower() for n in NAMES)]
    finally:
        if servers is not None:
            servers.stop()
        if args.keep:
            print(f"kept {tmp} and {venv}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"\ncoexistence, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"install {inst['seconds']:.0f} s"
    )
    print("| package | version |\n|---|---|")
    for name, version in inst["versions"].items():
        print(f"| {name} | {version} |")
    print("\n| check | result | detail |\n|---|---|---|")
    for name, ok, detail in rows:
        print(f"| {name} | {'pass' if ok else '**FAIL**'} | {detail.replace('|', '/')[:160]} |")
    if other:
        print(f"\nother console errors (not naming the three): {len(other)}")
        for line in other[:8]:
            print("  " + line[:200])
    print(f"\nscreenshots: {shots}")
    failed = [r for r in rows if not r[1]]
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
