"""Every route the extension registers is authorized in one place (``web.base``): no token is 403,
a user the authorizer refuses is 403, and the action is the HTTP method's (read for GET, write for
the others, execute for the websocket). A refusal keeps the reply's CORS header."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jupyter_server.auth.authorizer import Authorizer
from tornado import web
from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.web import handlers

METHODS = ("get", "post", "put", "delete")


def endpoints() -> list[tuple[str, str]]:
    """(path under the server's base url, HTTP method) for every method each route defines."""
    out = []
    for path, handler in handlers():
        concrete = path.replace("([A-Za-z0-9][A-Za-z0-9._-]{0,99})", "some-id").lstrip("/")
        for method in METHODS:
            if getattr(handler, method) is not getattr(web.RequestHandler, method):
                out.append((concrete, method.upper()))
    return out


ENDPOINTS = endpoints()


def test_every_route_is_listed() -> None:
    paths = {p for p, _ in ENDPOINTS}
    assert {"api/codecomplete/inline", "api/codecomplete/stats", "api/codecomplete/usage/gate"} <= paths
    assert ("api/codecomplete/models/downloads/some-id", "DELETE") in ENDPOINTS
    assert len(ENDPOINTS) == 19, ENDPOINTS


async def code_of(jp_fetch: Any, path: str, method: str, **kwargs: Any) -> int:
    if method in ("POST", "PUT"):
        kwargs["body"] = "{}"
    try:
        response = await jp_fetch(*path.split("/"), method=method, **kwargs)
    except HTTPClientError as err:
        return int(err.code)
    return int(response.code)


@pytest.mark.parametrize(("path", "method"), ENDPOINTS)
async def test_no_token_is_403(jp_fetch: Any, path: str, method: str) -> None:
    assert await code_of(jp_fetch, path, method, headers={"Authorization": ""}) == 403


class ReadOnCodeComplete(Authorizer):
    """May read codecomplete's routes, not write or execute (everything else is allowed)."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return resource != "codecomplete" or action == "read"


class TestReadOnlyUser:
    @pytest.fixture
    def authorizer_class(self) -> type:
        return ReadOnCodeComplete

    async def test_reads_pass_and_everything_else_is_403(self, jp_fetch: Any) -> None:
        for path, method in ENDPOINTS:
            code = await code_of(jp_fetch, path, method)
            if method != "GET" or path.endswith("/inline"):  # the websocket is "execute"
                assert code == 403, (path, method, code)
            else:  # read: allowed (a download never started is the route's own 404)
                assert code == (404 if path.endswith("some-id") else 200), (path, method, code)


async def test_a_refusal_keeps_the_cors_header(jp_fetch: Any) -> None:
    """A token-authenticated request from another origin reads the error reply as it reads a reply."""
    origin = {"Origin": "http://elsewhere.example"}
    ok = await jp_fetch("api", "codecomplete", "styles", headers=origin)
    assert ok.headers["Access-Control-Allow-Origin"] == "http://elsewhere.example"
    for body in ("[1]", "{not json", json.dumps({"prompt": "x", "mode": "infill"})):
        with pytest.raises(HTTPClientError) as err:
            await jp_fetch("api", "codecomplete", "prompt", method="POST", body=body, headers=origin)
        assert err.value.code == 400
        assert err.value.response is not None
        assert err.value.response.headers["Access-Control-Allow-Origin"] == "http://elsewhere.example"
        assert err.value.response.headers["Content-Type"] == "application/json"
        assert json.loads(err.value.response.body)["error"]["type"] in {
            "bad_request",
            "bad_json",
            "missing_suffix",
        }


@pytest.mark.parametrize("path", sorted({p for p, _ in ENDPOINTS if not p.endswith("/inline")}))
async def test_a_cors_preflight_needs_no_token(jp_fetch: Any, path: str) -> None:
    """jupyter_server answers OPTIONS without a user (a browser sends no credentials there)."""
    code = await code_of(jp_fetch, path, "OPTIONS", headers={"Authorization": ""})
    assert code == 200
