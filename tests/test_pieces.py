"""Each piece of a suggestion reaches the client before the model sends its next token (issue 29).

The scripted upstream runs in ``lockstep``: before each token after the first it waits until the
client says it shows everything sent so far (trailing whitespace aside, which the cleaning rightly
holds: it may be cut at the end). A server that holds a piece back until the next token arrives
makes every one of those waits run out. Behaviour, not timing: the waits are long (2 s) and only
their running out is counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig, open_socket, request

# ordinary code at a new top-level statement: three lines, nothing that may still be cut
CODE = "def area(radius):\n    squared = radius ** 2\n    return math.pi * squared\n"
PREFIX = "# LOCKSTEP\nimport math\n\n\n"


@pytest.fixture
def upstream() -> Iterator[OpenAIUpstream]:
    rule = {"contains": "# LOCKSTEP", "completion": CODE, "lockstep": 2.0}
    with OpenAIUpstream(UpstreamConfig(rules=[rule])) as up:
        yield up


@pytest.mark.parametrize("protocol", [1, 2])
async def test_every_piece_is_shown_before_the_next_token(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, protocol: int
) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=protocol)
    upstream.client_seen = 0
    await socket.send(request(1, PREFIX, stream=True))
    text = ""
    while True:
        msg = await socket.recv(timeout=60)
        if msg.get("reply_to") != 1 or msg["type"] != "stream":
            continue
        piece = msg["response"]["insertText"]
        text = text + piece if msg.get("delta") else piece
        upstream.client_seen = len(text)
        if msg["done"]:
            assert msg["error"] is None
            break
    assert text == CODE.rstrip()
    record = upstream.last()
    assert record.tokens_sent > 10
    assert record.lockstep_timeouts == 0


async def test_a_held_piece_is_counted(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    """The measure can fail: a client that never reports what it shows makes the waits run out."""
    upstream.set_rules([{"contains": "# LOCKSTEP", "completion": "a = 1\nb = 2\n", "lockstep": 0.05}])
    socket = await open_socket(jp_ws_fetch, protocol=2)
    upstream.client_seen = 0
    msgs = await socket.complete(1, PREFIX, stream=True)
    assert msgs[-1]["done"] and msgs[-1]["error"] is None
    assert upstream.last().lockstep_timeouts > 0
