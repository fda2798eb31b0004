"""A local fake of the Hugging Face Hub's file routes, for tests and UI tests (point ``HF_ENDPOINT`` at it).

It answers like the real hub for LFS files: ``HEAD``/``GET /{repo}/resolve/{revision}/{file}`` answer
``302`` to an absolute "CDN" URL on the same server, with ``X-Repo-Commit``, ``X-Linked-Etag`` (the
file's SHA-256, quoted) and ``X-Linked-Size``; the "CDN" route serves the bytes with ``Accept-Ranges``
and honours ``Range: bytes=N-`` (``206``), so ``huggingface_hub`` really resumes. Unknown repositories,
revisions and files get ``404`` with the hub's ``X-Error-Code``.

Faults, per file (a hub that lies or fails the way real ones do):

* ``advertised_size``: claim another size (the disk-space check, a contradicted pin);
* ``corrupt``: serve other bytes than the checksum says;
* ``etag``: the ``X-Linked-Etag``/``ETag`` to report instead of the SHA-256 (e.g. an MD5- or SHA-1-style
  one, which proves nothing);
* ``no_length``: stream without ``Content-Length`` (chunked), and ``extra_bytes``: then keep sending
  that many bytes more than the file has;
* ``bytes_per_s``: a slow link (progress, cancel);
* ``stall_after``: send that many bytes, then nothing, holding the connection open (a stalled hub);
* ``drop_after``: close the connection after N bytes of the next transfer; ``fail_after_drop``: then
  answer ``503`` until :meth:`FakeHub.heal`;
* ``ignore_range``: answer a range request with the whole file (``200``).

Every request is recorded (``records``: method, path, ``Range``, status, bytes sent).

By default it serves the bundled demo GGUF as ``codecomplete/codecomplete-demo-GGUF``:
:func:`demo_entry` is the matching catalogue entry. Run as a process:
``python -m jupyter_codecomplete.testing.fake_hub --port 8912 [--bytes-per-s N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import re
import socket
from dataclasses import dataclass
from typing import Any

from tornado import iostream, web
from tornado.netutil import bind_sockets

from .server import LocalServer, Route, hang_up

DEMO_REPO = "codecomplete/codecomplete-demo-GGUF"
DEMO_FILE = "codecomplete-demo.Q8_0.gguf"
DEMO_COMMIT = "0123456789abcdef0123456789abcdef01234567"
CHUNK = 64 * 1024


def demo_sha256() -> str:
    return hashlib.sha256(demo_bytes()).hexdigest()


def demo_bytes() -> bytes:
    from ..backends.embedded import default_model_path

    with open(default_model_path(), "rb") as f:
        return f.read()


def demo_entry(**overrides: Any) -> dict[str, Any]:
    """The catalogue entry of the demo GGUF on the fake hub (pinned: revision, size, SHA-256)."""
    entry = {
        "id": "test-demo",
        "name": "Demo model (test hub)",
        "repo": DEMO_REPO,
        "file": DEMO_FILE,
        "revision": DEMO_COMMIT,
        "size_bytes": 8144384,
        "quantization": "Q8_0",
        "license": "BSD-3-Clause",
        "style": "qwen2.5-coder",
        "fim": True,
        "memory_gb": 0.1,
        "good_for": "Tests: the bundled demo model served by the fake hub.",
        "verified": "served by jupyter_codecomplete.testing.fake_hub",
        "sha256": demo_sha256(),
        "source": "jupyter_codecomplete.testing.fake_hub (the bundled demo model)",
    }
    entry.update(overrides)
    return entry


@dataclass
class HubFile:
    data: bytes
    commit: str = DEMO_COMMIT
    advertised_size: int | None = None
    corrupt: bool = False
    drop_after: int | None = None
    fail_after_drop: bool = False
    bytes_per_s: float | None = None
    failing: bool = False
    etag: str | None = None
    no_length: bool = False
    extra_bytes: int = 0
    stall_after: int | None = None
    ignore_range: bool = False

    @property
    def reported_etag(self) -> str:
        return self.etag if self.etag is not None else self.sha256

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def served(self) -> bytes:
        if not self.corrupt:
            return self.data
        flipped = bytearray(self.data)
        flipped[len(flipped) // 2] ^= 0xFF
        return bytes(flipped)


@dataclass
class HubRecord:
    method: str
    path: str
    range: str | None
    status: int = 0
    sent: int = 0


class _Hub(web.RequestHandler):
    def initialize(self, hub: FakeHub) -> None:
        self.hub = hub
        self.rec = HubRecord(self.request.method or "", self.request.path, self.request.headers.get("Range"))
        hub.records.append(self.rec)

    def check_xsrf_cookie(self) -> None:
        return

    def missing(self, code: str, message: str) -> None:
        self.rec.status = 404
        self.set_status(404)
        self.set_header("X-Error-Code", code)
        self.set_header("X-Error-Message", message)
        self.finish({"error": message})


class ResolveHandler(_Hub):
    def head(self, repo: str, revision: str, filename: str) -> None:
        self.resolve(repo, revision, filename)

    def get(self, repo: str, revision: str, filename: str) -> None:
        self.resolve(repo, revision, filename)

    def resolve(self, repo: str, revision: str, filename: str) -> None:
        files = {name: f for (r, name), f in self.hub.files.items() if r == repo}
        if not files:
            return self.missing("RepoNotFound", f"Repository not found: {repo}")
        hub_file = files.get(filename)
        if hub_file is None:
            return self.missing("EntryNotFound", f"{filename} does not exist in {repo}")
        if revision not in ("main", hub_file.commit):
            return self.missing("RevisionNotFound", f"Invalid rev id: {revision}")
        self.rec.status = 302
        self.set_status(302)
        self.set_header("Location", f"{self.hub.url_at(self.hub.cdn_port)}/_cdn/{repo}/{filename}")
        self.set_header("X-Repo-Commit", hub_file.commit)
        self.set_header("X-Linked-Etag", f'"{hub_file.reported_etag}"')
        self.set_header("X-Linked-Size", str(hub_file.advertised_size or len(hub_file.data)))
        self.set_header("ETag", f'"{hashlib.sha1(hub_file.data).hexdigest()}"')
        self.finish()


_RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")


class CdnHandler(_Hub):
    def lookup(self, repo: str, filename: str) -> HubFile | None:
        hub_file = self.hub.files.get((repo, filename))
        if hub_file is None:
            self.missing("EntryNotFound", "no such object")
        return hub_file

    def head(self, repo: str, filename: str) -> None:
        hub_file = self.lookup(repo, filename)
        if hub_file is None:
            return
        self.set_header("Content-Length", str(len(hub_file.data)))
        self.set_header("Accept-Ranges", "bytes")
        self.set_header("ETag", f'"{hub_file.reported_etag}"')
        self.rec.status = 200

    async def get(self, repo: str, filename: str) -> None:
        hub_file = self.lookup(repo, filename)
        if hub_file is None:
            return
        if hub_file.failing:
            self.rec.status = 503
            self.set_status(503)
            self.finish({"error": "service unavailable (scripted)"})
            return
        body = hub_file.served()
        start, end = 0, len(body) - 1
        match = _RANGE.match(self.request.headers.get("Range", ""))
        if match and not hub_file.ignore_range:
            start = int(match.group(1))
            if match.group(2):
                end = min(int(match.group(2)), end)
            if start > end:
                self.set_status(416)
                self.set_header("Content-Range", f"bytes */{len(body)}")
                self.rec.status = 416
                return
            self.set_status(206)
            self.set_header("Content-Range", f"bytes {start}-{end}/{len(body)}")
        self.rec.status = self.get_status()
        self.set_header("Accept-Ranges", "bytes")
        self.set_header("ETag", f'"{hub_file.reported_etag}"')
        if not hub_file.no_length:
            self.set_header("Content-Length", str(end - start + 1))
        self.set_header("Content-Type", "application/octet-stream")
        drop = hub_file.drop_after
        sent = 0
        pos = start
        try:
            if hub_file.no_length and hub_file.extra_bytes:
                body = body + b"\0" * hub_file.extra_bytes
                end = len(body) - 1
            while pos <= end:
                if hub_file.stall_after is not None and sent >= hub_file.stall_after:
                    await self.stall()
                    return
                piece = body[pos : min(pos + CHUNK, end + 1)]
                if drop is not None and sent + len(piece) >= drop:
                    piece = piece[: max(drop - sent, 0)]
                    self.write(piece)
                    await self.flush()
                    hub_file.drop_after = None
                    if hub_file.fail_after_drop:
                        hub_file.failing = True
                    hang_up(self)
                    return
                self.write(piece)
                await self.flush()
                sent += len(piece)
                self.rec.sent = sent
                pos += len(piece)
                if hub_file.bytes_per_s:
                    await asyncio.sleep(len(piece) / hub_file.bytes_per_s)
        except iostream.StreamClosedError:
            return

    async def stall(self) -> None:
        """Send nothing more, holding the connection open until the client goes (or a minute)."""
        for _ in range(600):
            stream = getattr(self.request.connection, "stream", None)
            if stream is None or stream.closed():
                return
            await asyncio.sleep(0.1)
        hang_up(self)


class FakeHub(LocalServer):
    """The fake hub server; ``files`` maps ``(repo, filename)`` to a :class:`HubFile`."""

    def __init__(self, port: int = 0, host: str = "127.0.0.1", with_demo: bool = True) -> None:
        super().__init__(port=port, host=host)
        self.files: dict[tuple[str, str], HubFile] = {}
        self.records: list[HubRecord] = []
        self.cdn_port = 0
        if with_demo:
            self.add_file(DEMO_REPO, DEMO_FILE, demo_bytes())

    def add_file(self, repo: str, filename: str, data: bytes, **faults: Any) -> HubFile:
        hub_file = HubFile(data=data, **faults)
        self.files[(repo, filename)] = hub_file
        return hub_file

    def demo(self) -> HubFile:
        return self.files[(DEMO_REPO, DEMO_FILE)]

    def heal(self) -> None:
        for hub_file in self.files.values():
            hub_file.failing = False
            hub_file.fail_after_drop = False
            hub_file.drop_after = None
            hub_file.stall_after = None

    def more_sockets(self) -> list[socket.socket]:
        # the "CDN" is another origin (a second port), as on the real hub: huggingface_hub then reads the
        # file's metadata from the redirect itself
        cdn = bind_sockets(0, self.host)
        self.cdn_port = cdn[0].getsockname()[1]
        return cdn

    @property
    def endpoint(self) -> str:
        return self.root_url

    def ranges(self) -> list[str]:
        return [r.range for r in self.records if r.method == "GET" and r.range]

    def handler_args(self) -> dict[str, Any]:
        return {"hub": self}

    def routes(self) -> list[Route]:
        return [
            (r"/_cdn/([^/]+/[^/]+)/(.+)", CdnHandler),
            (r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", ResolveHandler),
        ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, default=8912)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--bytes-per-s", type=float, default=None, help="throttle transfers (progress is visible)"
    )
    args = parser.parse_args(argv)
    hub = FakeHub(port=args.port, host=args.host)
    if args.bytes_per_s:
        hub.demo().bytes_per_s = args.bytes_per_s

    hub.serve_forever("fake hub")


if __name__ == "__main__":
    main()
