"""Cell outputs and kernel candidates through a running server to a real scripted upstream."""

from __future__ import annotations

import json
from typing import Any

from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.protocol import MAX_OUTPUT_TEXT
from jupyter_codecomplete.testing import OpenAIUpstream, open_socket, request

CELLS_ABOVE = [
    {
        "cell_type": "code",
        "source": "df.head(1)",
        "outputs": [{"output_type": "execute_result", "text": "   price  qty\n0    1.0    2"}],
    },
    {
        "cell_type": "code",
        "source": "df['prize']",
        "outputs": [{"output_type": "error", "text": "\x1b[0;31mKeyError\x1b[0m: 'prize'"}],
    },
]
CANDIDATES = {"expression": "df[", "items": [{"text": "'price'"}, {"text": "'qty'"}]}


async def test_outputs_and_candidates_reach_the_model(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    await socket.send(request(1, "total = df[", cells_above=CELLS_ABOVE, kernel_candidates=CANDIDATES))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None
    assert upstream.last().body["prompt"] == (
        "df.head(1)\n# Out:\n#    price  qty\n# 0    1.0    2\n\n"
        "df['prize']\n# Error:\n# KeyError: 'prize'\n\n"
        "# The kernel completes df[ with:\n# 'price', 'qty'\ntotal = df["
    )


async def test_bad_notebook_context_gets_an_error_reply_and_the_socket_keeps_working(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    huge = [
        {
            "cell_type": "code",
            "source": "x",
            "outputs": [{"output_type": "stream", "text": "y" * (MAX_OUTPUT_TEXT + 1)}],
        }
    ]
    await socket.send(request(2, "x = ", cells_above=huge))
    [error] = await socket.until_done(2)
    assert error["type"] == "error" and error["reply_to"] == 2
    assert error["error"]["type"] == "bad_request"
    assert "outputs" in error["error"]["message"]

    await socket.send(request(3, "x = df[", kernel_candidates={"expression": "df[", "items": "price"}))
    [error] = await socket.until_done(3)
    assert error["reply_to"] == 3 and "kernel_candidates" in error["error"]["message"]

    await socket.send(request(4, "def add(a, b):"))
    [reply] = await socket.until_done(4)
    assert reply["error"] is None and reply["list"]["items"][0]["insertText"] == "\n    return a + b"


async def test_binary_and_ansi_outputs_do_not_break_the_request(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    cells = [
        {
            "cell_type": "code",
            "source": "open('a.png', 'rb').read()",
            "outputs": [
                {"output_type": "execute_result", "text": "\x00\x01\x02\x89PNG\x00\x00\x00\x1a" * 100}
            ],
        },
        {
            "cell_type": "code",
            "source": "run()",
            "outputs": [{"output_type": "stream", "text": "\x1b[1m\x1b[32mok\x1b[0m\r\n" * 1000}],
        },
    ]
    await socket.send(request(5, "x = ", cells_above=cells))
    [reply] = await socket.until_done(5)
    assert reply["error"] is None
    prompt = upstream.last().body["prompt"]
    assert "PNG" not in prompt and "\x1b" not in prompt and "\x00" not in prompt
    assert "run()\n# Out:\n# ok\n" in prompt


async def test_the_prompt_endpoint_shows_notebook_context(jp_fetch: Any) -> None:
    body = {
        "prompt": "total = df[",
        "language": "python",
        "cells_above": CELLS_ABOVE,
        "kernel_candidates": CANDIDATES,
    }
    response = await jp_fetch("api", "codecomplete", "prompt", method="POST", body=json.dumps(body))
    prompt = json.loads(response.body)["prompt"]
    assert "# Out:\n#    price  qty" in prompt
    assert "# 'price', 'qty'\ntotal = df[" in prompt


async def test_the_prompt_endpoint_refuses_oversized_candidates(jp_fetch: Any) -> None:
    body = {"prompt": "df.", "kernel_candidates": {"expression": "df.", "items": [{"text": "a" * 500}]}}
    try:
        await jp_fetch("api", "codecomplete", "prompt", method="POST", body=json.dumps(body))
    except HTTPClientError as e:
        assert e.code == 400
        assert "kernel_candidates" in json.loads(e.response.body)["error"]["message"]
    else:  # pragma: no cover
        raise AssertionError("an oversized candidate was accepted")
