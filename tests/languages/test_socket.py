"""The language table end to end through the completion websocket: a suggestion is cleaned with
the rules of the language the client names, under any of its names (Objective-C reached the
server as ``objectivec``, a name the old post-processing table did not know: no bracket rule)."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_codecomplete.testing import CompletionSocket, OpenAIUpstream, request

RULES: list[dict[str, Any]] = [
    # one closing parenthesis too many, then the next statement
    {"contains": "compute(a, ", "completion": "b));\nreturn total;\n"},
    # a block that goes on after the cursor's block closes
    {"contains": "if (ok) {", "completion": "[self stop];\n    } else {\n        [self go];\n    }\n"},
]


@pytest.mark.parametrize("language", ["objective-c", "objectivec", "objc", "Objective-C"])
async def test_objective_c_suggestions_use_c_rules(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, language: str
) -> None:
    upstream.set_rules([dict(r) for r in RULES])
    socket = await CompletionSocket.open(jp_ws_fetch)
    await socket.send(request(1, "int total = compute(a, ", language=language, path="main.m"))
    [reply] = await socket.until_done(1)
    assert reply["error"] is None
    assert [i["insertText"] for i in reply["list"]["items"]] == ["b)"]

    await socket.send(request(2, "- (void)run {\n    if (ok) {\n        ", "\n}\n", language=language))
    [reply] = await socket.until_done(2)
    assert [i["insertText"] for i in reply["list"]["items"]] == [
        "[self stop];\n    } else {\n        [self go];\n    }"
    ]
