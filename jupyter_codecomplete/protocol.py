"""Wire models shared by the websocket and the REST endpoints (pydantic v2).

The websocket ``api/codecomplete/inline`` speaks JSON text frames. The client sends
:class:`InlineCompletionRequest` (``type: "inline_completion"``) or :class:`CancelRequest`
(``type: "cancel"``); the server answers with :class:`InlineCompletionReply` (non-streamed),
:class:`InlineCompletionStreamChunk` (streamed) or :class:`ErrorReply`. Every answer carries
``reply_to``: the ``number`` of the request it answers. See ``docs/protocol.md``.

The REST endpoints ``api/codecomplete/prompt`` and ``api/codecomplete/completions`` take a
:class:`CompletionRequestBody` (see ``docs/rest-api.md``); its OpenAPI schema is generated from it.

Protocol versions: 1 sends the whole suggestion so far in every ``stream`` message; 2 sends only
what is new (``delta: true``), so an n-character suggestion costs O(n) bytes on the wire. The
server's ``hello`` names the versions it speaks; a client that wants version 2 answers with a
:class:`ClientHello`. A client that sends none (an old client) keeps version 1.
"""

from __future__ import annotations

import builtins
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# Limits that keep one message from flooding the engine; the websocket also has a byte limit.
MAX_TEXT = 4_000_000
# Deepest JSON nesting a request may have (a valid one needs about 6); deeper is refused before
# validation, and the parser's own recursion limit is caught.
MAX_DEPTH = 32
PROTOCOL_VERSIONS = (1, 2)


def nesting_depth(data: Any, limit: int = MAX_DEPTH) -> int:
    """Depth of nested lists/dicts in ``data``, counted without recursion; stops past ``limit``."""
    depth = 0
    level: list[Any] = [data]
    while level:
        containers = [x for x in level if isinstance(x, dict | list)]
        if not containers:
            break
        depth += 1
        if depth > limit:
            break
        nxt: list[Any] = []
        for c in containers:
            nxt.extend(c.values() if isinstance(c, dict) else c)
        level = nxt
    return depth


_NUMBER_RE = re.compile(r'^\s*\{[^{}\[\]]*?"number"\s*:\s*(\d{1,15})\s*[,}]')


def number_hint(message: str) -> int:
    """The request number of a message that cannot be parsed, when it is readable at the top level."""
    m = _NUMBER_RE.match(message[:4096])
    return int(m.group(1)) if m else -1
# Cell outputs and kernel candidates are hints, not code: small limits (the client cuts to less).
MAX_OUTPUT_TEXT = 20_000
MAX_CELL_OUTPUTS = 32
MAX_CANDIDATES = 100
MAX_CANDIDATE_TEXT = 200


class _Strict(BaseModel):
    """Unknown fields are an error: a typo in a field name must not be silently ignored."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class CellOutput(_Strict):
    """One output of a code cell above the cursor, as plain text the client extracted.

    ``execute_result`` / ``display_data``: the ``text/plain`` result, or an HTML table's rows;
    ``stream``: what the cell printed; ``error``: ``"Name: message"`` (a traceback's last line).
    Images and widgets are never sent. The prompt builder cleans and cuts the text again.
    """

    output_type: Literal["execute_result", "display_data", "stream", "error"]
    text: Annotated[str, Field(max_length=MAX_OUTPUT_TEXT)] = ""


class ContextCell(_Strict):
    """Another cell of the notebook the cursor is in; code cells above may carry their outputs."""

    cell_type: Literal["code", "markdown", "raw"] = "code"
    language: str | None = None
    source: Annotated[str, Field(max_length=MAX_TEXT)] = ""
    outputs: Annotated[list[CellOutput], Field(max_length=MAX_CELL_OUTPUTS)] = Field(default_factory=list)


class KernelCandidate(_Strict):
    """One completion the notebook's kernel offers at the cursor (a column, attribute, argument)."""

    text: Annotated[str, Field(min_length=1, max_length=MAX_CANDIDATE_TEXT)]
    type: Annotated[str, Field(max_length=64)] | None = None


class KernelCandidates(_Strict):
    """What the kernel's ``complete_request`` answered for the expression before the cursor."""

    # the text the kernel completed, e.g. ``df[`` or ``df.``
    expression: Annotated[str, Field(min_length=1, max_length=MAX_CANDIDATE_TEXT)]
    items: Annotated[list[KernelCandidate], Field(max_length=MAX_CANDIDATES)] = Field(default_factory=list)


class ContextFile(_Strict):
    """Another open document or a file the client names, used as repository context."""

    path: Annotated[str, Field(max_length=4096)]
    content: Annotated[str, Field(max_length=MAX_TEXT)] = ""
    language: str | None = None


class InlineCompletionRequest(_Strict):
    """One numbered request for an inline completion at the cursor."""

    type: Literal["inline_completion"] = "inline_completion"
    number: Annotated[int, Field(ge=0, strict=True)]
    path: str | None = None
    language: str | None = None
    mime: str | None = None
    prefix: Annotated[str, Field(max_length=MAX_TEXT)]
    suffix: Annotated[str, Field(max_length=MAX_TEXT)] = ""
    stream: bool = False
    cell_id: str | None = None
    # "auto": the user is typing; "manual": the user asked for a completion explicitly.
    trigger: Literal["auto", "manual"] = "auto"
    cells_above: list[ContextCell] = Field(default_factory=list)
    cells_below: list[ContextCell] = Field(default_factory=list)
    files: list[ContextFile] = Field(default_factory=list)
    # what the notebook's kernel completes at the cursor (optional; older clients leave it out)
    kernel_candidates: KernelCandidates | None = None


class CancelRequest(_Strict):
    """Stop the request with this number (its upstream stream is closed)."""

    type: Literal["cancel"]
    number: Annotated[int, Field(ge=0, strict=True)]


MAX_USAGE_EVENTS = 64


class UsageEvent(_Strict):
    """What became of one suggestion the user was shown (see ``docs/usage.md``).

    Sent by the client when the suggestion's fate is known, and again with ``kept_30s`` /
    ``kept_5m`` when those windows end: the store keeps one row per ``id`` (the last one sent wins).
    No code text: lengths, a hash and a position; ``sample`` only when the user keeps samples."""

    id: Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.:-]+$")]
    # when it was shown, in milliseconds since the epoch (the client's clock)
    shown_at: Annotated[float, Field(ge=0, le=1e14)]
    model: Annotated[str, Field(max_length=200)] | None = None
    style: Annotated[str, Field(max_length=100)] | None = None
    language: Annotated[str, Field(max_length=64)] | None = None
    trigger: Literal["typing", "fresh_line", "manual", "edit"] = "typing"
    # where the cursor was: code, comment, string, mid_line (text after the cursor on its line)
    line_kind: Literal["code", "comment", "string", "mid_line", "empty"] = "code"
    # from the request (after the debounce) to the first ghost text, ms
    latency_ms: Annotated[float, Field(ge=0, le=600_000)]
    length: Annotated[int, Field(ge=0, le=MAX_TEXT)]
    outcome: Literal["accepted", "typed_through", "dismissed", "ignored"]
    # the first way it was accepted: whole (Tab), word (Ctrl+Right), line (Ctrl+End)
    accept_kind: Literal["whole", "word", "line"] | None = None
    accepted_chars: Annotated[int, Field(ge=0, le=MAX_TEXT)] = 0
    typed_chars: Annotated[int, Field(ge=0, le=MAX_TEXT)] = 0
    kept_30s: Annotated[int, Field(ge=0, le=MAX_TEXT)] | None = None
    kept_5m: Annotated[int, Field(ge=0, le=MAX_TEXT)] | None = None
    # a hash of the suggestion text and the cursor's line / column: no code
    text_hash: Annotated[str, Field(max_length=64)] | None = None
    line: Annotated[int, Field(ge=0, le=10_000_000)] | None = None
    column: Annotated[int, Field(ge=0, le=10_000_000)] | None = None
    # the suggestion and a little context, only when the user keeps samples for ``eval``
    sample: Annotated[str, Field(max_length=20_000)] | None = None


class UsageMessage(_Strict):
    """Client to server: usage events to record. Sent only when the hello says ``usage: true``."""

    type: Literal["usage"]
    events: Annotated[list[UsageEvent], Field(min_length=1, max_length=MAX_USAGE_EVENTS)]


class ClientHello(_Strict):
    """The client's answer to the server's hello: the protocol version it wants on this socket."""

    type: Literal["hello"]
    protocol: Annotated[int, Field(ge=1, strict=True)]


ClientMessage = Annotated[
    InlineCompletionRequest | CancelRequest | ClientHello | UsageMessage, Field(discriminator="type")
]
client_message_adapter: TypeAdapter[
    InlineCompletionRequest | CancelRequest | ClientHello | UsageMessage
] = TypeAdapter(ClientMessage)


class InlineCompletionItem(BaseModel):
    """Mirrors JupyterLab's ``IInlineCompletionItem``."""

    insertText: str
    isIncomplete: bool = False
    token: str | None = None


class InlineCompletionList(BaseModel):
    items: list[InlineCompletionItem]


class ErrorInfo(BaseModel):
    """What went wrong, for a person: ``type`` is a stable machine name, ``message`` human text."""

    type: str
    title: str
    message: str
    retry_after: float | None = None


class ServingModel(BaseModel):
    """Which model really serves a request: the configured name and what the backend reports."""

    name: str
    backend: str
    reported: str | None = None
    style: str | None = None
    demo: bool = False


class InlineCompletionReply(BaseModel):
    type: Literal["inline_completion"] = "inline_completion"
    reply_to: int
    list: InlineCompletionList
    model: ServingModel | None = None
    # the field `list` shadows the builtin inside this class body
    notes: builtins.list[str] = Field(default_factory=builtins.list)
    error: ErrorInfo | None = None


class InlineCompletionStreamChunk(BaseModel):
    """A streamed update: ``response.insertText`` is the whole suggestion so far (protocol 1), or
    only what is new since the previous chunk when ``delta`` is true (protocol 2)."""

    type: Literal["stream"] = "stream"
    reply_to: int
    response: InlineCompletionItem
    done: bool
    delta: bool = False
    model: ServingModel | None = None
    notes: list[str] = Field(default_factory=list)
    error: ErrorInfo | None = None


class ErrorReply(BaseModel):
    """A request that could not be served; ``reply_to`` is -1 when its number is unknown."""

    type: Literal["error"] = "error"
    reply_to: int
    error: ErrorInfo


class HelloMessage(BaseModel):
    """Sent once when the socket opens: protocol version and the model that serves by default.

    ``protocol`` is the version in force until the client asks for another one of ``protocols``
    with a :class:`ClientHello`."""

    type: Literal["hello"] = "hello"
    protocol: int = 1
    protocols: list[int] = Field(default_factory=lambda: list(PROTOCOL_VERSIONS))
    model: ServingModel | None = None
    max_message_bytes: int
    # whether this server records usage events (c.CodeCompleteApp.record_usage): the client sends
    # :class:`UsageMessage` only when it does
    usage: bool = False


# Most stop sequences a REST request may add, and their longest length (OpenAI itself takes 4).
MAX_STOP = 32
MAX_STOP_CHARS = 256


class CompletionRequestBody(BaseModel):
    """A code-completion request (fields follow Xinference's code completion request)."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(None, description="Name of a configured model (completion, chat or named).")
    mode: Literal["auto", "completion", "infill", "repository"] = "auto"
    prompt: Annotated[str, Field(max_length=MAX_TEXT)] = Field("", description="Text before the cursor.")
    suffix: Annotated[str, Field(max_length=MAX_TEXT)] | None = Field(
        None, description="Text after the cursor."
    )
    files: dict[str, Annotated[str, Field(max_length=MAX_TEXT)]] | None = Field(
        None, description="Other files of the repository: path or name → content."
    )
    repo_name: str | None = None
    file_path: str | None = None
    language: str | None = None
    cells_above: list[ContextCell] | None = Field(
        None, description="Notebook cells above the cursor (code cells may carry their outputs)."
    )
    cells_below: list[ContextCell] | None = Field(None, description="Notebook cells below the cursor.")
    kernel_candidates: KernelCandidates | None = Field(
        None, description="What the notebook's kernel completes at the cursor."
    )
    max_tokens: Annotated[int, Field(ge=1, le=32768)] | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    stop: Annotated[
        list[Annotated[str, Field(max_length=MAX_STOP_CHARS)]], Field(max_length=MAX_STOP)
    ] | None = Field(None, description=f"Extra stop sequences (at most {MAX_STOP}).")
    stream: bool = False
