"""The model's sockets are aiohttp's under httpx (``backends/aio.py``): what httpx's own transport
did still holds, against real servers on loopback: TLS verified (and trusted through the
environment's ``SSL_CERT_FILE``), the environment's HTTP proxy used (and ``NO_PROXY`` honoured),
a SOCKS proxy left to httpx, a refused connection named."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from backends.helpers import aclose_backend, collect
from tornado import httpclient, web

from jupyter_codecomplete.backends import ModelConfig, make_backend
from jupyter_codecomplete.backends.aio import AiohttpTransport, wants_httpx_transport
from jupyter_codecomplete.backends.http import POOL_LIMITS, make_client
from jupyter_codecomplete.completion import error_info_from
from jupyter_codecomplete.testing.openai_upstream import OpenAIUpstream, UpstreamConfig
from jupyter_codecomplete.testing.server import LocalServer, Route

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def _no_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def _config(url: str) -> ModelConfig:
    return ModelConfig.model_validate({"backend": "openai", "base_url": url, "model": "m"})


class _Forward(web.RequestHandler):
    """A forward proxy's one route: the request's absolute URL fetched and its answer passed on."""

    seen: ClassVar[list[str]]

    def initialize(self, upstream: Any) -> None:
        self.proxy = upstream

    async def post(self, _path: str) -> None:
        self.proxy.seen.append(self.request.uri)
        answer = await httpclient.AsyncHTTPClient().fetch(
            self.request.uri or "",
            method="POST",
            body=self.request.body,
            headers={k: v for k, v in self.request.headers.items() if k.lower() != "host"},
            raise_error=False,
        )
        self.set_status(answer.code)
        self.set_header("Content-Type", answer.headers.get("Content-Type", "text/plain"))
        self.finish(answer.body)


class ForwardProxy(LocalServer):
    """An HTTP forward proxy on loopback that records the URLs it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def routes(self) -> list[Route]:
        return [(r"(.*)", _Forward)]


@pytest.fixture
def upstream() -> Iterator[OpenAIUpstream]:
    up = OpenAIUpstream(UpstreamConfig())
    up.set_rules([], default="x = 1\n")
    up.start()
    yield up
    up.stop()


async def test_the_environment_proxy_carries_the_request(
    upstream: OpenAIUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ForwardProxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.root_url)
        backend = make_backend(_config(upstream.backend_url))
        try:
            assert await collect(backend, "hello") == "x = 1\n"
        finally:
            await aclose_backend(backend)
        assert proxy.seen == [upstream.backend_url + "/completions"]


async def test_no_proxy_sends_the_request_directly(
    upstream: OpenAIUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ForwardProxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.root_url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        backend = make_backend(_config(upstream.backend_url))
        try:
            assert await collect(backend, "hello") == "x = 1\n"
        finally:
            await aclose_backend(backend)
        assert proxy.seen == [] and len(upstream.records) == 1


@pytest.mark.parametrize("variable", ["ALL_PROXY", "https_proxy"])
async def test_a_proxy_aiohttp_does_not_speak_keeps_httpx_transport(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ALL_PROXY (aiohttp ignores it), a SOCKS proxy (httpx speaks it with its socks extra)
    url = "http://127.0.0.1:3128" if variable == "ALL_PROXY" else "socks5://127.0.0.1:1080"
    monkeypatch.setenv(variable, url)
    assert wants_httpx_transport()
    monkeypatch.delenv(variable)
    assert not wants_httpx_transport()
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:3128")
    async with make_client(5.0, limits=POOL_LIMITS, lean=True) as client:
        assert not isinstance(client._transport, AiohttpTransport)
    monkeypatch.delenv("ALL_PROXY")
    async with make_client(5.0, limits=POOL_LIMITS, lean=True) as client:
        assert isinstance(client._transport, AiohttpTransport)


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throw-away certificate authority and a certificate for 127.0.0.1 that it signed."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    d = tmp_path_factory.mktemp("tls")
    (d / "server.ext").write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
        "authorityKeyIdentifier=keyid\n"
    )
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "2", "-subj", "/CN=codecomplete test CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=d,
    )  # fmt: skip
    _openssl(
        "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=127.0.0.1",
        cwd=d,
    )  # fmt: skip
    _openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
        cwd=d,
    )  # fmt: skip
    return d


@pytest.fixture
def tls_upstream(certificates: Path) -> Iterator[OpenAIUpstream]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificates / "server.pem", certificates / "server.key")
    up = OpenAIUpstream(UpstreamConfig(), tls=context)
    up.set_rules([], default="y = 2\n")
    up.start()
    yield up
    up.stop()


async def test_an_untrusted_certificate_is_refused(tls_upstream: OpenAIUpstream) -> None:
    assert tls_upstream.backend_url.startswith("https://127.0.0.1:")
    backend = make_backend(_config(tls_upstream.backend_url))
    try:
        with pytest.raises(Exception) as raised:
            await collect(backend, "hello")
    finally:
        await aclose_backend(backend)
    info = error_info_from(raised.value)
    assert info.type == "backend_unreachable"
    assert "certificate verify failed" in info.message, info.message
    assert tls_upstream.records == []  # nothing was sent over the unverified connection


async def test_ssl_cert_file_of_the_environment_is_trusted(
    tls_upstream: OpenAIUpstream, certificates: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates / "ca.pem"))
    backend = make_backend(_config(tls_upstream.backend_url))
    try:
        assert await collect(backend, "hello") == "y = 2\n"
        assert await collect(backend, "again") == "y = 2\n"
    finally:
        await aclose_backend(backend)
    peers = [r.peer for r in tls_upstream.records]
    assert len(peers) == 2 and len(set(peers)) == 1  # one TLS connection for both


async def test_a_refused_connection_is_named() -> None:
    transport = AiohttpTransport()
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError, match=r"^Connection refused$"):
            await client.get("http://127.0.0.1:9/")  # the discard port: nothing listens
