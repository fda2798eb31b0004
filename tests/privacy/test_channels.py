"""Nothing that must not leave the machine reaches a model, through a running Jupyter server and a
real scripted upstream that records every request it receives (issue 34).

Realistic fake secrets (``tests/planted_secrets.py``) are planted in every channel a request carries: the
current cell (before and after the cursor), other cells, their outputs (``print(os.environ)``
with the server's own key), kernel candidates, a traceback, the edit history, other open files
(one of them a ``.env``, one ``credentials.json``, one that ``.gitignore`` excludes), for
completions, edit predictions, the fix after an error, warm-ups and REST. Then every body the
upstream received is searched for every value (and for its first 12 characters).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from planted_secrets import (
    AWS_SECRET,
    CODE,
    DIFF,
    ENV_FILE,
    ENVIRON_OUTPUT,
    GITHUB_TOKEN,
    JWT,
    OPENAI_KEY,
    SERVER_KEY,
    TRACEBACK,
    leaks,
)
from tornado.httpclient import HTTPClientError

from jupyter_codecomplete.testing import (
    CompletionSocket,
    OpenAIUpstream,
    edit_chat_rewrite,
    open_socket,
    request,
)

PLACEHOLDER = "<redacted: "
# JSON bodies say so: a form-encoded reading of the traceback's "&token=…" would be taken for
# the server's token
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def codecomplete_config(upstream: OpenAIUpstream) -> dict[str, Any]:
    upstream.set_rules(
        [
            # an edit model that renames `client` to `llm` in the region it is shown
            edit_chat_rewrite(["client = OpenAI"], [[r"\bclient\b", "llm"]]),
            # one that rewrites the placeholder itself (it must never land in the user's text)
            edit_chat_rewrite(["tamper = "], [[r"<redacted: [^>]*>", "sk-made-up"]]),
            # a completion model that repeats a placeholder it saw
            {"contains": "echo_key = ", "completion": 'OpenAI(api_key="<redacted: openai-token>")\n'},
        ],
        default="x = 1\n",
    )
    return {
        "completion_model": upstream.model_config(api_key=SERVER_KEY),
        "edit_model": upstream.model_config(backend="openai-chat", style="edit-chat", model="test-chat"),
        "warm_up": "on",
    }


@pytest.fixture(autouse=True)
def files(jp_root_dir: Path) -> Path:
    """The server's root: a .gitignore that ignores local_settings.py, a .codecompleteignore."""
    (jp_root_dir / ".gitignore").write_text("local_settings.py\n")
    (jp_root_dir / ".codecompleteignore").write_text("private/\n")
    return jp_root_dir


def cells_above() -> list[dict[str, Any]]:
    return [
        {
            "cell_type": "code",
            "source": CODE,
            "cell_id": "c1",
            "outputs": [
                {"output_type": "stream", "text": ENVIRON_OUTPUT},
                {"output_type": "error", "text": TRACEBACK},
            ],
        },
        {"cell_type": "markdown", "source": f"Our token is `{GITHUB_TOKEN}`."},
    ]


def everything(number: int) -> dict[str, Any]:
    """A completion request that carries a secret in every channel."""
    return request(
        number,
        CODE + "\nresult = ",
        f"\nprint(TOKEN)  # {JWT}",
        cells_above=cells_above(),
        cells_below=[{"cell_type": "code", "source": f'backup_secret = "{AWS_SECRET}"'}],
        kernel_candidates={"expression": "os.environ[", "items": [{"text": f"'{OPENAI_KEY}'"}]},
        files=[
            {"path": "utils.py", "content": CODE},
            {"path": ".env", "content": ENV_FILE},
            {"path": "conf/credentials.json", "content": json.dumps({"token": GITHUB_TOKEN})},
            {"path": "local_settings.py", "content": f"SECRET = '{OPENAI_KEY}'"},
            {"path": "private/notes.py", "content": f"k = '{OPENAI_KEY}'"},
        ],
        recent_edits=[{"path": "test.ipynb", "diff": DIFF}, {"path": ".env", "diff": "+" + ENV_FILE}],
    )


async def edit_reply(socket: CompletionSocket, number: int) -> dict[str, Any]:
    while True:
        msg = await socket.recv(timeout=15)
        if msg.get("reply_to") == number and msg["type"] in ("edit_prediction", "error"):
            return msg


async def test_a_completion_with_a_secret_in_every_channel_sends_none(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    [reply] = [m for m in await socket.complete(1, **_fields(everything(1)))]
    assert reply["error"] is None, reply
    [sent] = upstream.records
    assert leaks(upstream.records) == {}
    prompt = sent.body["prompt"]
    # not vacuous: each channel reached the prompt, its secrets as placeholders
    assert 'aws_secret_access_key="<redacted: aws-access-key' in prompt
    assert 'OpenAI(api_key="<redacted: openai-token>")' in prompt
    assert "-----BEGIN RSA PRIVATE KEY-----\n<redacted: private-key>\n-----END RSA PRIVATE KEY-----" in prompt
    assert "postgresql://app:<redacted: basic-auth-credentials>@db.internal" in prompt
    assert 'hmac_sign(payload, "<redacted: high-entropy-string>")' in prompt
    assert "# Out:" in prompt and "'CODECOMPLETE_API_KEY': '<redacted: server-key>'" in prompt
    assert "# The kernel completes os.environ[ with:" in prompt
    # one placeholder for one value, wherever it appears in the request
    assert prompt.count('"<redacted: openai-token>"') >= 2
    notes = " ".join(reply.get("notes") or [])
    assert "redacted" in notes and ".env" in notes and "ignored by .gitignore" in notes


def _fields(req: dict[str, Any]) -> dict[str, Any]:
    """A request dict as :meth:`CompletionSocket.complete`'s arguments."""
    out = {k: v for k, v in req.items() if k not in ("type", "number")}
    return {"prefix": out.pop("prefix"), "suffix": out.pop("suffix"), **out}


async def test_warm_ups_and_prefetches_are_redacted_too(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    await socket.send({**everything(1), "type": "warm"})
    while (msg := await socket.recv(timeout=10))["type"] != "warm":
        pass
    assert msg["warmed"] is True, msg
    await socket.complete(2, **_fields({**everything(2), "prefetch": True}))
    assert len(upstream.records) == 2
    assert leaks(upstream.records) == {}


async def test_an_excluded_document_gets_no_suggestion_and_nothing_is_sent(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch, protocol=3)
    for number, path in enumerate(
        [".env", "app/.env.local", "keys/id_rsa", "conf/credentials.json", "private/a.py"]
    ):
        [reply] = await socket.complete(number, "API_KEY=", path=path)
        assert reply["error"]["type"] == "excluded", (path, reply)
        assert "excluded" in reply["error"]["message"]
    [reply] = await socket.complete(10, "API_KEY=", path="private/a.py")
    assert reply["error"]["message"] == "excluded by .codecompleteignore"
    await socket.send({**request(11, "x = ", path=".env"), "type": "warm"})
    while (msg := await socket.recv(timeout=10))["type"] != "warm":
        pass
    assert msg["warmed"] is False and msg["reason"] == "off"
    await socket.send(
        {
            "type": "edit_prediction",
            "number": 12,
            "path": ".env",
            "language": "python",
            "text": ENV_FILE,
            "cursor": 3,
        }
    )
    refused = await edit_reply(socket, 12)
    assert refused["error"]["type"] == "excluded"
    assert upstream.records == []  # nothing reached the model
    # the socket and the other documents go on
    [reply] = await socket.complete(13, "import num", path="analysis.ipynb")
    assert reply["error"] is None and reply["list"]["items"][0]["insertText"] == "x = 1"


async def test_a_nearer_ignore_file_brings_a_path_back(
    jp_ws_fetch: Any, upstream: OpenAIUpstream, files: Path
) -> None:
    (files / "private" / "shared").mkdir(parents=True)
    (files / "private" / "shared" / ".codecompleteignore").write_text("!*.py\n")
    socket = await open_socket(jp_ws_fetch)
    [reply] = await socket.complete(1, "import num", path="private/shared/ok.py")
    assert reply["error"] is None
    [reply] = await socket.complete(2, "import num", path="private/other.py")
    assert reply["error"]["type"] == "excluded"


async def test_an_edit_prediction_sends_no_secret_and_keeps_the_users_own(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    text = CODE
    cursor = text.index("client = OpenAI")
    await socket.send(
        {
            "type": "edit_prediction",
            "number": 1,
            "version": 3,
            "path": "nb.ipynb",
            "language": "python",
            "text": text,
            "cursor": cursor,
            "recent_edits": [{"path": "nb.ipynb", "diff": DIFF}],
            "cells_above": cells_above()[1:],
            "files": [{"path": ".env", "content": ENV_FILE}, {"path": "lib.py", "content": CODE}],
        }
    )
    reply = await edit_reply(socket, 1)
    assert reply["error"] is None, reply
    assert leaks(upstream.records) == {}
    assert PLACEHOLDER in json.dumps(upstream.last().body)
    # the rename is applied to the user's text: the key in it is the user's own, not a placeholder
    applied = _apply(text, reply["edits"])
    assert f'llm = OpenAI(api_key="{OPENAI_KEY}")' in applied
    assert PLACEHOLDER not in applied and applied.count(OPENAI_KEY) == text.count(OPENAI_KEY)


async def test_an_edit_that_would_write_over_a_secret_is_dropped(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    text = f'tamper = "{OPENAI_KEY}"\n'
    await socket.send(
        {"type": "edit_prediction", "number": 1, "language": "python", "text": text, "cursor": 0}
    )
    reply = await edit_reply(socket, 1)
    assert reply["error"] is None, reply
    assert reply["edits"] == [] and any("redacted secret" in n for n in reply["notes"])
    assert leaks(upstream.records) == {}


async def test_the_fix_after_an_error_sends_no_secret(jp_ws_fetch: Any, upstream: OpenAIUpstream) -> None:
    socket = await open_socket(jp_ws_fetch)
    cell = f'r = requests.get(url, headers={{"Authorization": "Bearer {JWT}"}})'
    await socket.send(
        {
            "type": "edit_prediction",
            "number": 1,
            "path": "nb.ipynb",
            "language": "python",
            "text": cell,
            "cursor": len(cell),
            "cell_id": "c3",
            "trigger": "error",
            "error": {"ename": "HTTPError", "evalue": f"401 for ?key={GITHUB_TOKEN}", "traceback": TRACEBACK},
            "kernel_candidates": {"expression": "os.environ[", "items": [{"text": f"'{OPENAI_KEY}'"}]},
            "cells_above": cells_above(),
        }
    )
    reply = await edit_reply(socket, 1)
    assert reply["error"] is None, reply
    assert upstream.records and leaks(upstream.records) == {}


async def test_a_placeholder_the_model_repeats_ends_the_suggestion(
    jp_ws_fetch: Any, upstream: OpenAIUpstream
) -> None:
    socket = await open_socket(jp_ws_fetch)
    [reply] = await socket.complete(1, f'key = "{OPENAI_KEY}"\necho_key = ')
    assert reply["error"] is None
    text = reply["list"]["items"][0]["insertText"] if reply["list"]["items"] else ""
    assert PLACEHOLDER not in text and OPENAI_KEY not in text
    assert PLACEHOLDER in upstream.last().body["stop"]


async def test_rest_completions_and_the_prompt_preview_redact(
    jp_fetch: Any, upstream: OpenAIUpstream
) -> None:
    body = {
        "prompt": CODE + "\nx = ",
        "language": "python",
        "files": {"utils.py": CODE, ".env": ENV_FILE},
        "cells_above": cells_above(),
    }

    async def post(route: str, data: dict[str, Any]) -> Any:
        answer = await jp_fetch(
            "api", "codecomplete", route, method="POST", body=json.dumps(data), headers=JSON
        )
        return json.loads(answer.body)

    preview = await post("prompt", body)
    assert OPENAI_KEY not in preview["prompt"] and '"<redacted: openai-token>"' in preview["prompt"]
    assert preview["privacy"]["redacted"]["openai-token"] >= 2
    assert preview["privacy"]["excluded"] == [
        {"path": ".env", "reason": "excluded by default (.env*; see .codecompleteignore)"}
    ]
    done = await post("completions", body)
    assert done["choices"][0]["text"]  # the model answered
    assert upstream.records and leaks(upstream.records) == {}
    # an excluded document is refused with the reason
    with pytest.raises(HTTPClientError) as refused:
        await post("completions", {**body, "file_path": "a/.env"})
    assert refused.value.code == 403
    assert refused.value.response is not None
    assert json.loads(refused.value.response.body)["error"]["type"] == "excluded"


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    for e in sorted(edits, key=lambda e: e["start"], reverse=True):
        assert e.get("cell_id") is None
        text = text[: e["start"]] + e["text"] + text[e["end"] :]
    return text
