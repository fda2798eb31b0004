"""The model stream's wire: an httpx transport whose connections are aiohttp's.

httpx stays the one client API of the package (requests, responses, timeouts, errors:
:mod:`.http`, :mod:`jupyter_codecomplete.errors`); this module only changes what reads and writes
the sockets of the model's requests. httpx's own stack below the client (httpcore, h11's pure-Python
parser, and anyio's cancel scope and checkpoint around every read) cost about three times the CPU
per streamed token of aiohttp's (C parser, one protocol callback per read) in the same process:
the largest share of the server's CPU per suggestion (``benchmarks/bench_vs_jupyter_ai.py``,
``docs/performance.md``).

What carries over from httpx's default transport:

* **TLS**: the same verification as httpx's (:func:`httpx.create_ssl_context`: certifi, or
  ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when the environment is trusted).
* **Proxies**: with ``trust_env``, ``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``NO_PROXY`` of the
  environment, read once when the transport is made, as httpx does (HTTP proxies, credentials in
  the proxy's URL included; a SOCKS proxy or ``ALL_PROXY`` keeps httpx's own transport:
  :func:`wants_httpx_transport`). aiohttp's own ``trust_env`` is not used: it reads the
  environment and looks for ``~/.netrc`` on every request, and would send the netrc's credentials
  to the model server, which httpx never did.
* **Timeouts**: the request's httpx timeouts (connect, read) become aiohttp's socket timeouts; an
  expired one is httpx's :class:`httpx.ConnectTimeout` or :class:`httpx.ReadTimeout`.
* **Errors**: aiohttp's exceptions become httpx's (:data:`ERRORS`): a refused connection is
  :class:`httpx.ConnectError`, a stream cut short :class:`httpx.RemoteProtocolError`...
* **Cancellation**: closing a response before its end closes its connection (the model server sees
  the disconnect and stops generating); a response read to its end gives its connection back to
  the pool.
* **Reads when the consumer wants them** (:data:`READ_HOLD`): a consumer that passes the text on
  at its own pace (the websocket sends a suggestion's pieces at most every 40 ms) says how long its
  next bytes may wait, and whether the socket may be paused meanwhile (:data:`READ_PAUSE`).
  Paused, the socket is not read until :data:`READ_LEAD_S` before the hold ends (no event-loop
  wake-up, no parsing per packet: at a token every 5 ms those were the largest cost of a stream
  left); then it is read into aiohttp's buffer and the hold ends when the consumer's next frame
  may leave, one read bringing all (the end of the answer is seen from the lead on at once).
  Not paused (a consumer waiting for the whole answer), aiohttp buffers what the model sends and
  the end of the body wakes the reader at once. Either way, what is below the events (this body,
  httpx's decoding, the lines) runs once for all that came meanwhile, not once per token.
* **No redirects, no decompression here**: httpx decodes a compressed body itself, and a model
  server that redirects is an error (``follow_redirects`` off).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import ssl
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import aiohttp
import httpx

__all__ = [
    "ERRORS",
    "READ_HOLD",
    "READ_PAUSE",
    "WHOLE_ANSWER_HOLD_S",
    "AiohttpTransport",
    "read_hold",
    "wants_httpx_transport",
    "whole_answer_hold",
]

# Set by a stream's consumer (in its task's context): how long, in seconds from now, its next
# bytes may wait. A response body waits that long before each read (when more than
# READ_HOLD_MIN_S), or until the body's end, so what the model sent meanwhile comes in one read.
READ_HOLD: contextvars.ContextVar[Callable[[], float] | None] = contextvars.ContextVar(
    "codecomplete_read_hold", default=None
)
READ_HOLD_MIN_S = 0.002
# Set with READ_HOLD: whether the socket is paused during a hold (the end of the answer may then be
# seen as late as the hold's end), or read into aiohttp's buffer (the end is seen at once).
READ_PAUSE: contextvars.ContextVar[bool] = contextvars.ContextVar("codecomplete_read_pause", default=False)
# The hold of a consumer that needs only the whole answer (an edit prediction: the reply is sent
# once the model's answer is read): a read at most this often, the end of the body at once.
WHOLE_ANSWER_HOLD_S = 0.05
# A paused hold (READ_PAUSE) pauses the socket only while aiohttp has at most this much unread.
HOLD_BUFFER_BYTES = 256 * 1024
# A paused hold's socket is read again this long before the hold ends (into aiohttp's buffer; the
# body's end seen at once). A sender with Nagle's algorithm on (tornado, cpp-httplib by default)
# holds its small writes until the ACK of the one before, and a socket not read is not ACKed
# promptly: the read that ACKs releases its burst, which this window collects. A sender with
# TCP_NODELAY (asyncio and uvloop servers, Go's) has nothing held, and the window costs a wake-up.
READ_LEAD_S = 0.005


@contextlib.contextmanager
def read_hold(hold: Callable[[], float] | None, *, pause: bool = False) -> Iterator[None]:
    """:data:`READ_HOLD` set to ``hold`` (and :data:`READ_PAUSE` to ``pause``) for the model
    streams read inside (in a coroutine of the current task; not across an async generator's
    yields)."""
    token, paused = READ_HOLD.set(hold), READ_PAUSE.set(pause)
    try:
        yield
    finally:
        READ_PAUSE.reset(paused)
        READ_HOLD.reset(token)


def whole_answer_hold() -> float:
    """The :data:`READ_HOLD` of a consumer that needs only the whole answer."""
    return WHOLE_ANSWER_HOLD_S


# aiohttp's exceptions as httpx's, the most specific first (the first match is taken).
ERRORS: tuple[tuple[type[BaseException], type[httpx.TransportError]], ...] = (
    (aiohttp.ConnectionTimeoutError, httpx.ConnectTimeout),
    (aiohttp.SocketTimeoutError, httpx.ReadTimeout),
    (aiohttp.ServerTimeoutError, httpx.ReadTimeout),
    (aiohttp.ClientProxyConnectionError, httpx.ProxyError),
    (aiohttp.ClientHttpProxyError, httpx.ProxyError),
    (aiohttp.ClientConnectorError, httpx.ConnectError),  # refused, unknown host, TLS failures
    (aiohttp.ServerDisconnectedError, httpx.RemoteProtocolError),
    (aiohttp.ClientPayloadError, httpx.RemoteProtocolError),  # a body cut short or malformed
    (aiohttp.ClientResponseError, httpx.RemoteProtocolError),  # a malformed status line or header
    (aiohttp.InvalidURL, httpx.UnsupportedProtocol),
    (aiohttp.NonHttpUrlClientError, httpx.UnsupportedProtocol),
    (aiohttp.ClientConnectionError, httpx.ReadError),  # reset, broken pipe
    (aiohttp.ClientError, httpx.TransportError),
)

# The environment variables of a proxy that aiohttp cannot use (SOCKS): httpx's transport then.
_PROXY_VARIABLES = ("ALL_PROXY", "HTTP_PROXY", "HTTPS_PROXY")


def wants_httpx_transport(trust_env: bool = True) -> bool:
    """Whether a client must keep httpx's own transport: a proxy in the environment that aiohttp
    does not speak (``ALL_PROXY``, which aiohttp ignores, or a SOCKS one)."""
    if not trust_env:
        return False
    for name in _PROXY_VARIABLES:
        for value in (os.environ.get(name), os.environ.get(name.lower())):
            if value and (name == "ALL_PROXY" or not value.lower().startswith(("http://", "https://"))):
                return True
    return False


@contextlib.contextmanager
def _as_httpx(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except (asyncio.TimeoutError, TimeoutError) as exc:
        if isinstance(exc, aiohttp.ConnectionTimeoutError):
            raise httpx.ConnectTimeout(str(exc) or "connect timed out", request=request) from exc
        raise httpx.ReadTimeout(str(exc) or "read timed out", request=request) from exc
    except aiohttp.ClientError as exc:
        for source, target in ERRORS:
            if isinstance(exc, source):
                # from None: the message says it all (aiohttp's own sentence would follow it)
                raise target(_message(exc), request=request) from None
        raise  # pragma: no cover - ClientError is the last row


def _message(exc: aiohttp.ClientError) -> str:
    """What went wrong, in the words of the system where there are some: a failed connection's
    error number as the system names it ("Connection refused", "Name or service not known"),
    not aiohttp's sentence around it (which repeats the address the error message names)."""
    if isinstance(exc, aiohttp.ClientConnectorError) and not isinstance(exc, aiohttp.ClientSSLError):
        if isinstance(exc, aiohttp.ClientConnectorDNSError):
            return f"Cannot resolve the host name {exc.host} ({exc.os_error.strerror or exc.os_error})"
        if exc.errno:
            return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__


class _Body(httpx.AsyncByteStream):
    """An aiohttp response's body as httpx reads it: at each read, all that has arrived (after the
    consumer's :data:`READ_HOLD`, or the body's end); closing it before its end closes the
    connection."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._response = response
        self._request = request
        self._wake: asyncio.Future[None] | None = None  # the hold in progress (READ_HOLD)
        self._watching = False  # told of the body's end
        self._transport: asyncio.ReadTransport | None = None  # paused by the hold in progress
        self._read = 0  # bytes handed on
        self._timer: asyncio.TimerHandle | None = None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self._response.content
        hold, pause = READ_HOLD.get(), READ_PAUSE.get()
        with _as_httpx(self._request):
            while True:
                if hold is not None:
                    wait = hold()
                    if wait > READ_HOLD_MIN_S:
                        await self._held(wait, pause)
                chunk = await content.readany()  # all that is buffered (bounded by aiohttp)
                if not chunk:
                    return  # the end of the body
                self._read += len(chunk)
                yield chunk

    async def _held(self, wait: float, pause: bool) -> None:
        """``wait`` seconds, or less when the body ends meanwhile (seen at once unless ``pause``).

        ``pause``: meanwhile the socket is not read at all (no wake-up per packet) until
        :data:`READ_LEAD_S` before the hold's end; from then it is read into aiohttp's buffer, so
        the read after the hold brings it all; the end of the answer is seen at that lead, at the
        latest."""
        content = self._response.content
        if content.is_eof():
            return
        loop = asyncio.get_running_loop()
        self._wake = wake = loop.create_future()
        if not self._watching:
            self._watching = True
            content.on_eof(self._ended)
        transport = self._pausable() if pause and wait > READ_LEAD_S else None
        if transport is None:
            self._timer = loop.call_later(wait, self._ended)
        else:
            transport.pause_reading()
            self._transport = transport
            self._timer = loop.call_later(wait - READ_LEAD_S, self._resume, READ_LEAD_S)
        try:
            await wake
        finally:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._wake = None
            if self._transport is not None:
                self._transport.resume_reading()
                self._transport = None

    def _pausable(self) -> asyncio.ReadTransport | None:
        """The socket's transport, when it may be paused for a hold: not where aiohttp buffers
        more than :data:`HOLD_BUFFER_BYTES` unread (a model writing that fast is read as it
        comes; aiohttp's own flow control then has the socket)."""
        connection = self._response.connection
        transport = connection.transport if connection is not None else None
        if not isinstance(transport, asyncio.ReadTransport) or not transport.is_reading():
            return None
        if self._response.content.total_bytes - self._read > HOLD_BUFFER_BYTES:
            return None
        return transport

    def _resume(self, lead: float) -> None:
        """``lead`` seconds before the end of a paused hold: the socket is read again (into
        aiohttp's buffer, the body's end seen at once), and the hold ends ``lead`` later."""
        if self._transport is not None:
            self._transport.resume_reading()
            self._transport = None
        self._timer = asyncio.get_running_loop().call_later(lead, self._ended)

    def _ended(self) -> None:
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def aclose(self) -> None:
        # release() keeps the connection only when the body was read to its end (aiohttp closes
        # one whose payload is unfinished), so a cut stream tells the server at once.
        self._response.release()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """An httpx transport over one aiohttp session (made on first use, on the running loop).

    ``limits`` as httpx's: ``max_connections`` caps the connections, ``keepalive_expiry`` is how
    long an idle one is kept. ``trust_env``: proxies from the environment (and httpx's TLS
    settings from it)."""

    def __init__(
        self,
        *,
        limits: httpx.Limits | None = None,
        trust_env: bool = True,
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        self._limits = limits or httpx.Limits()
        if isinstance(verify, ssl.SSLContext):
            self._ssl: ssl.SSLContext | bool = verify
        elif verify:
            self._ssl = httpx.create_ssl_context(verify=True, trust_env=trust_env)
        else:
            self._ssl = False
        self._session: aiohttp.ClientSession | None = None
        # the environment's proxies, read once (as httpx reads them when its client is made)
        self._proxies = urllib.request.getproxies_environment() if trust_env else {}
        self._proxy_of: dict[tuple[str, str], str | None] = {}

    def proxy_for(self, url: httpx.URL) -> str | None:
        """The proxy a request to ``url`` goes through (None: directly), per scheme and host."""
        if not self._proxies:
            return None
        key = (url.scheme, url.host)
        if key not in self._proxy_of:
            bypass = urllib.request.proxy_bypass_environment(url.host, self._proxies)  # type: ignore[attr-defined]  # in urllib, not in its stubs
            self._proxy_of[key] = None if bypass else self._proxies.get(url.scheme)
        return self._proxy_of[key]

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=self._limits.max_connections or 0,
                keepalive_timeout=self._limits.keepalive_expiry or 15.0,
                ssl=self._ssl,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,  # proxies: proxy_for; no ~/.netrc credentials
                auto_decompress=False,  # httpx decodes what the headers say
                skip_auto_headers=("User-Agent", "Accept-Encoding", "Content-Type"),  # httpx's are sent
                timeout=aiohttp.ClientTimeout(total=None),
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeouts: dict[str, Any] = request.extensions.get("timeout", {})
        try:
            body: bytes | None = request.content or None
        except httpx.RequestNotRead:  # pragma: no cover - the package sends bodies it has built
            body = await request.aread() or None
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "transfer-encoding"]
        with _as_httpx(request):
            response = await self._client().request(
                request.method,
                str(request.url),
                data=body,
                headers=headers,
                allow_redirects=False,
                compress=None,
                proxy=self.proxy_for(request.url),
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    connect=timeouts.get("pool"),
                    sock_connect=timeouts.get("connect"),
                    sock_read=timeouts.get("read"),
                ),
            )
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode("ascii", "replace")
        return httpx.Response(
            status_code=response.status,
            headers=list(response.raw_headers),
            stream=_Body(response, request),
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()
