"""Real servers as child processes, for tests and benchmarks: a free port, start, wait until ready, stop.

:class:`ServerProcess` runs a command whose output goes to a log file and counts as started once a
URL answers ``200``; if the process dies or the wait runs out, :meth:`ServerProcess.start` raises
with the end of the log. :func:`llama_cpp_server` is the one way the tests and benchmarks start
``llama_cpp.server`` (llama-cpp-python's OpenAI-compatible server) on the bundled demo model.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx
from typing_extensions import Self


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class ServerStartError(RuntimeError):
    """The server process exited, or did not answer in time; the message ends with its log."""


class ServerProcess:
    """``args`` as a child process; ready when ``ready_url`` answers 200 (within ``startup_s``)."""

    def __init__(
        self,
        args: Sequence[str],
        *,
        ready_url: str,
        log: Path,
        env: Mapping[str, str] | None = None,
        startup_s: float = 120.0,
    ) -> None:
        self.args = list(args)
        self.ready_url = ready_url
        self.log = log
        self.env = dict(os.environ if env is None else env)
        self.startup_s = startup_s
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Self:
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(self.args, stdout=out, stderr=subprocess.STDOUT, env=self.env)
        deadline = time.monotonic() + self.startup_s
        while True:
            try:
                if httpx.get(self.ready_url, timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise ServerStartError(f"{self.args[:3]} did not start:\n{self.output()[-3000:]}")
            time.sleep(0.2)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class LlamaCppServer(ServerProcess):
    """``llama_cpp.server``; ``base_url`` is its OpenAI-compatible root (``…/v1``)."""

    def __init__(
        self, args: Sequence[str], *, port: int, log: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.port = port
        super().__init__(args, ready_url=f"{self.base_url}/models", log=log, env=env)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def llama_cpp_server(
    model: str | Path,
    log: Path,
    *,
    n_ctx: int,
    n_threads: int | None = None,
    alias: str | None = "codecomplete-demo",
) -> LlamaCppServer:
    """llama-cpp-python's server on ``model`` at a free loopback port (not started: use ``with``)."""
    port = free_port()
    args = [sys.executable, "-u", "-m", "llama_cpp.server", "--model", str(model)]
    args += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]
    if n_threads is not None:
        args += ["--n_threads", str(n_threads)]
    if alias is not None:
        args += ["--model_alias", alias]
    # one OpenMP thread unless told: the tests share two cores with the Jupyter server
    env = {"OMP_NUM_THREADS": str(n_threads or 1), **os.environ}
    return LlamaCppServer(args, port=port, log=log, env=env)
