"""Installing the llama.cpp engine (llama-cpp-python, the ``local`` extra) into this server's own
environment, in the background, with progress.

The built-in numpy engine runs the demo model and other small llama-architecture GGUF files; any
other in-process GGUF needs llama.cpp, and llama-cpp-python publishes no wheel on the registries
users reach here: pip compiles llama.cpp (about 15 minutes on 2 cores, and a C compiler). So it is
never installed by surprise: a user asks for it (``POST api/codecomplete/models/engine``), one
install runs at a time in a child process that never blocks the event loop, and its state is
polled or streamed (``GET``, ``?stream=1``): the output's last lines (bounded), the build's progress
when the compiler's build tool prints it (``[12/145]``, ``[ 45%]``), the seconds so far.

After a successful install the import caches are invalidated, so the next model built finds
``llama_cpp`` without a restart (:func:`..backends.embedded.engines.choose_engine` asks again).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib
import importlib.util
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import Any

REQUIREMENT = "llama-cpp-python[server]>=0.3.9"
COST = "compiles llama.cpp once: about 15 minutes on 2 cores, and it needs a C compiler"
MAX_LINES = 40  # output lines kept
MAX_LINE = 300  # characters kept of one line
READ = 4096  # bytes read from the child at a time; a longer line is cut, never buffered whole

_STEPS = re.compile(r"\[\s*(\d+)\s*/\s*(\d+)\s*\]")  # ninja: [12/145]
_PERCENT = re.compile(r"\[\s*(\d{1,3})%\]")  # make: [ 45%]


def progress_of(line: str) -> float | None:
    """The build's progress (0..1) a line of output states, if it states one."""
    m = _STEPS.search(line)
    if m and 0 < int(m.group(2)) and int(m.group(1)) <= int(m.group(2)):
        return int(m.group(1)) / int(m.group(2))
    m = _PERCENT.search(line)
    if m and int(m.group(1)) <= 100:
        return int(m.group(1)) / 100
    return None


def llama_cpp_installed() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


class EngineInstaller:
    """One background install at a time; :meth:`snapshot` says where it is."""

    def __init__(self, command: Sequence[str] | None = None, env: dict[str, str] | None = None) -> None:
        self.command = list(command or [sys.executable, "-m", "pip", "install", "-v", REQUIREMENT])
        self.env = env
        self.state = "idle"  # idle | running | done | failed | cancelled
        self.lines: collections.deque[str] = collections.deque(maxlen=MAX_LINES)
        self.progress: float | None = None
        self.returncode: int | None = None
        self.started: float | None = None
        self.finished: float | None = None
        self._task: asyncio.Task[None] | None = None
        self._proc: asyncio.subprocess.Process | None = None

    @property
    def running(self) -> bool:
        return self.state == "running"

    def snapshot(self) -> dict[str, Any]:
        now = self.finished or time.monotonic()
        return {
            "state": self.state,
            "installed": llama_cpp_installed(),
            "requirement": REQUIREMENT,
            "cost": COST,
            "seconds": round(now - self.started, 1) if self.started is not None else None,
            "progress": None if self.progress is None else round(self.progress, 3),
            "returncode": self.returncode,
            "last_line": self.lines[-1] if self.lines else None,
            "log": list(self.lines)[-10:],
        }

    async def start(self) -> dict[str, Any]:
        """Start the install (nothing when one is running); the snapshot."""
        if not self.running:
            self.state, self.progress, self.returncode = "running", None, None
            self.started, self.finished = time.monotonic(), None
            self.lines.clear()
            self._task = asyncio.ensure_future(self._run())
        return self.snapshot()

    async def wait(self) -> None:
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)

    async def close(self) -> None:
        """Stop a running install (the child is killed) and wait for it."""
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace").rstrip()[:MAX_LINE]
        if not text.strip():
            return
        self.lines.append(text)
        found = progress_of(text)
        if found is not None:
            self.progress = found

    async def _run(self) -> None:
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("CMAKE_ARGS", "-DGGML_NATIVE=OFF")  # portable, as setup.sh --local builds it
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        try:
            self._proc = proc = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=env,
            )
        except OSError as exc:
            self.lines.append(f"could not start {self.command[0]}: {exc}"[:MAX_LINE])
            self.state, self.finished = "failed", time.monotonic()
            return
        assert proc.stdout is not None
        pending = b""
        try:
            while chunk := await proc.stdout.read(READ):
                pending += chunk
                *whole, pending = re.split(rb"[\r\n]", pending)
                for raw in whole:
                    self._line(raw)
                if len(pending) > READ:  # a line with no end in sight: keep its start only
                    self._line(pending)
                    pending = b""
            if pending:
                self._line(pending)
            self.returncode = await proc.wait()
        except asyncio.CancelledError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            self.returncode = proc.returncode
            self.state, self.finished = "cancelled", time.monotonic()
            raise
        self.finished = time.monotonic()
        if self.returncode == 0:
            importlib.invalidate_caches()  # the next model built finds llama_cpp
            self.state, self.progress = "done", 1.0
        else:
            self.state = "failed"
