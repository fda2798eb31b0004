"""Wire models shared by the websocket and the REST endpoints (pydantic v2).

The websocket ``api/codecomplete/inline`` speaks JSON text frames. The client sends
:class:`InlineCompletionRequest` (``type: "inline_completion"``) or :class:`CancelRequest`
(``type: "cancel"``); the server answers with :class:`InlineCompletionReply` (non-streamed),
:class:`InlineCompletionStreamChunk` (streamed) or :class:`ErrorReply`. Every answer carries
``reply_to``: the ``number`` of the request it answers. See ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# Limits that keep one message from flooding the engine; the websocket also has a byte limit.
MAX_TEXT = 4_000_000
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


ClientMessage = Annotated[InlineCompletionRequest | CancelRequest, Field(discriminator="type")]
client_message_adapter: TypeAdapter[InlineCompletionRequest | CancelRequest] = TypeAdapter(ClientMessage)


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
    notes: list[str] = Field(default_factory=list)
    error: ErrorInfo | None = None


class InlineCompletionStreamChunk(BaseModel):
    """A streamed update: ``response.insertText`` is the whole suggestion so far (not a delta)."""

    type: Literal["stream"] = "stream"
    reply_to: int
    response: InlineCompletionItem
    done: bool
    model: ServingModel | None = None
    notes: list[str] = Field(default_factory=list)
    error: ErrorInfo | None = None


class ErrorReply(BaseModel):
    """A request that could not be served; ``reply_to`` is -1 when its number is unknown."""

    type: Literal["error"] = "error"
    reply_to: int
    error: ErrorInfo


class HelloMessage(BaseModel):
    """Sent once when the socket opens: protocol version and the model that serves by default."""

    type: Literal["hello"] = "hello"
    protocol: int = 1
    model: ServingModel | None = None
    max_message_bytes: int
