"""A local HTTP server for tests: a tornado application on loopback ports, on its own thread or as a process.

Every fake server in :mod:`jupyter_codecomplete.testing` is one of these: :meth:`LocalServer.start`
binds the ports (0: an ephemeral one), runs the application on a private event loop in a daemon
thread and returns once it listens; :meth:`LocalServer.stop` ends it (also as a context manager).
:meth:`LocalServer.serve_forever` runs it in the foreground instead (the ``python -m`` entry points
used by the UI tests and benchmarks). Subclasses say what they serve (:meth:`make_app`) and may bind
more ports (:meth:`more_sockets`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import threading
from typing import Any, TypedDict

from tornado import httpserver, web
from tornado.http1connection import HTTP1Connection
from tornado.netutil import bind_sockets
from typing_extensions import Self

# a route of the application: (path pattern, handler); every handler gets handler_args()
Route = tuple[str, type[web.RequestHandler]]

# Large bodies are part of the tests (a 9 MB answer, a 4 MB prompt).
MAX_BUFFER_SIZE = 200 * 1024 * 1024


class Listen(TypedDict, total=False):
    """Where a server listens (:class:`LocalServer`'s keyword arguments, passed on by subclasses)."""

    port: int  # 0: an ephemeral one
    host: str
    tls: ssl.SSLContext  # serve HTTPS with this server-side context


def hang_up(handler: web.RequestHandler) -> None:
    """Close a request's connection mid-answer (a scripted fault)."""
    connection = handler.request.connection
    assert isinstance(connection, HTTP1Connection)  # what tornado's HTTPServer hands out
    connection.close()


class LocalServer:
    """A tornado application on ``host:port``; ``port`` is known once started."""

    def __init__(self, port: int = 0, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> None:
        self.host = host
        self.tls = tls
        self.port = 0
        self._want_port = port
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: httpserver.HTTPServer | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Task[None] | None = None

    # -- what to serve (subclasses)
    def routes(self) -> list[Route]:
        raise NotImplementedError

    def make_app(self) -> web.Application:
        args = self.handler_args()
        return web.Application([(path, handler, args) for path, handler in self.routes()])

    def more_sockets(self) -> list[socket.socket]:
        """Further listening sockets for the same application (another origin), bound by :meth:`bind`."""
        return []

    def url_at(self, port: int) -> str:
        """The origin of one of this server's ports (a second port: another origin)."""
        return f"{'https' if self.tls is not None else 'http'}://{self.host}:{port}"

    @property
    def root_url(self) -> str:
        return self.url_at(self.port)

    @property
    def base_url(self) -> str:
        """Where a client points (the root; an API server may add its prefix)."""
        return self.root_url

    def handler_args(self) -> dict[str, Any]:
        """The keyword arguments every route's ``initialize`` gets."""
        return {"upstream": self}

    # -- running
    def bind(self) -> None:
        """Listen (on the running event loop)."""
        sockets = bind_sockets(self._want_port, self.host)
        self.port = sockets[0].getsockname()[1]
        self._server = httpserver.HTTPServer(
            self.make_app(), max_buffer_size=MAX_BUFFER_SIZE, ssl_options=self.tls
        )
        self._server.add_sockets(sockets + self.more_sockets())

    def start(self) -> Self:
        """Serve on a daemon thread; returns ``self`` once listening."""

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self.bind()
            self._ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name=type(self).__name__, daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None or loop.is_closed():
            return

        async def shutdown() -> None:
            # as a server process that exits: nothing listens, and its open connections close (a
            # client's pooled keep-alive connection sees the end, not a server that never answers)
            try:
                if self._server is not None:
                    self._server.stop()
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self._server.close_all_connections(), 2)
            finally:
                loop.stop()

        def begin() -> None:
            self._stopping = loop.create_task(shutdown())  # held: a task only the loop knows may vanish

        loop.call_soon_threadsafe(begin)
        if self._thread is not None:
            self._thread.join(5)

    def serve_forever(self, label: str) -> None:
        """Run in the foreground (a process of its own) until killed; prints ``<label> on <url>``."""

        async def serve() -> None:
            self.bind()
            print(f"{label} on {self.base_url}", flush=True)
            await asyncio.Event().wait()

        asyncio.run(serve())

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
