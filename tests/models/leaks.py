"""Secrets in tests: one check that no response body and no log line holds a key, or a piece of one."""

from __future__ import annotations

import json
import logging
from typing import Any

STORE_KEY = "sk-store-Zq9vK2mXw7LpR4tN8yHcQe3Jb6Uf"
ADMIN_KEY = "sk-admin-Pf4Ld8Ws2Nx6Tq1Hv9Kc5Mr7Ye3Ga"
ADMIN_HEADER = "hdr-admin-Bq7Rz2Xc9Vm4Tn6Lp1Ks8Wd3Jf"


def secret_pieces(secret: str, width: int = 12) -> list[str]:
    """The key and every piece of it ``width`` characters long (a key split in two pieces is found)."""
    if len(secret) <= width:
        return [secret]
    step = max(1, width // 2)
    return [secret, *(secret[i : i + width] for i in range(0, len(secret) - width + 1, step))]


def assert_no_secrets(texts: list[str], secrets: list[str]) -> None:
    """No text holds a secret, nor a piece of one (12 characters or more)."""
    for secret in secrets:
        pieces = secret_pieces(secret)
        for text in texts:
            found = next((p for p in pieces if p in text), None)
            assert found is None, f"a piece of a key ({found[:4]}…) leaked into: {text[:300]!r}"


class LeakWatch(logging.Handler):
    """Records every log line (all levels, with tracebacks) and every response body of a test."""

    def __init__(self, jp_fetch: Any) -> None:
        super().__init__(level=logging.DEBUG)
        self.jp_fetch = jp_fetch
        self.lines: list[str] = []
        self.bodies: list[str] = []
        self.secrets: list[str] = [STORE_KEY, ADMIN_KEY, ADMIN_HEADER]
        self._format = logging.Formatter("%(name)s %(levelname)s %(message)s")

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(self._format.format(record))
        except Exception as exc:  # a record that cannot be formatted is itself worth a look
            self.lines.append(f"unformattable record {record.msg!r}: {exc}")

    def add_secret(self, secret: str) -> None:
        self.secrets.append(secret)

    async def api(self, method: str, *path: str, body: Any = None, **params: str) -> tuple[int, Any]:
        """A request to ``api/codecomplete/models/...``; its body is recorded."""
        return await self.fetch(method, "models", *path, body=body, **params)

    async def fetch(self, method: str, *path: str, body: Any = None, **params: Any) -> tuple[int, Any]:
        kwargs: dict[str, Any] = {"method": method, "raise_error": False, "request_timeout": 120}
        if body is not None:
            kwargs["body"] = body if isinstance(body, (str, bytes)) else json.dumps(body)
        if params:
            kwargs["params"] = params
        r = await self.jp_fetch("api", "codecomplete", *path, **kwargs)
        text = r.body.decode("utf-8", "replace") if r.body else ""
        self.bodies.append(text)
        try:
            return r.code, json.loads(text) if text else None
        except json.JSONDecodeError:
            return r.code, text

    def check(self) -> None:
        assert_no_secrets(self.bodies + self.lines, self.secrets)
