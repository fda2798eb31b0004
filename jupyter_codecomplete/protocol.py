"""Wire models shared by the websocket and the REST endpoints (pydantic v2).

The websocket ``api/codecomplete/inline`` speaks JSON text frames. The client sends
:class:`InlineCompletionRequest` (``type: "inline_completion"``), :class:`EditPredictionRequest`
(``type: "edit_prediction"``, when the server's hello lists the feature) or :class:`CancelRequest`
(``type: "cancel"``); the server answers with :class:`InlineCompletionReply` (non-streamed),
:class:`InlineCompletionStreamChunk` (streamed), :class:`EditPredictionReply` or
:class:`ErrorReply`. Every answer carries ``reply_to``: the ``number`` of the request it answers.
See ``docs/protocol.md``.

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

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

# Limits that keep one message from flooding the engine; the websocket also has a byte limit.
MAX_TEXT = 4_000_000
# Deepest JSON nesting a request may have (a valid one needs about 6); deeper is refused before
# validation, and the parser's own recursion limit is caught.
MAX_DEPTH = 32
PROTOCOL_VERSIONS = (1, 2, 3)


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
# A cell id's length (nbformat allows 64; JupyterLab's are UUIDs) with room for other front ends.
MAX_CELL_ID = 256


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
    # the cell's id (nbformat 4.5): an edit prediction with ``scope="notebook"`` may name it in a
    # :class:`TextEdit`; cells without one are context only
    cell_id: Annotated[str, Field(min_length=1, max_length=MAX_CELL_ID)] | None = None
    # execution order: the ``In [n]`` of the cell's last run (None: it has not run in this kernel)
    execution_count: Annotated[int, Field(ge=0, strict=True)] | None = None
    # its source changed since it last ran
    changed: bool = False


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


# Edit history: how many recent edits a request may carry, and how long each diff may be.
MAX_RECENT_EDITS = 16
MAX_EDIT_DIFF = 20_000


class RecentEdit(_Strict):
    """One of the user's recent edits, as a unified diff (``---``/``+++`` headers optional), oldest
    first in a request's list. The client merges consecutive keystrokes into one edit."""

    path: Annotated[str, Field(max_length=4096)] | None = None
    diff: Annotated[str, Field(max_length=MAX_EDIT_DIFF)]
    # the notebook cell the edit was made in (None: a file, or the request's own cell unknown)
    cell_id: Annotated[str, Field(min_length=1, max_length=MAX_CELL_ID)] | None = None
    # the edit was an accepted suggestion (a completion or an edit prediction), not typed
    accepted: bool = False


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
    # the user's recent edits in this notebook or file, oldest first (hello feature ``edit_history``)
    recent_edits: Annotated[list[RecentEdit], Field(max_length=MAX_RECENT_EDITS)] = Field(
        default_factory=list
    )
    # asked ahead, before the user wants it (the completion that would follow accepting the shown
    # one; hello feature ``prefetch``): the server answers it only where it may warm the model
    # that serves this request's route, never for a paid API
    prefetch: bool = False


# The traceback text an error-fix request may carry (the client keeps the end of a longer one).
MAX_TRACEBACK = 20_000


class CellError(_Strict):
    """The error the cell's last run ended with (its ``error`` output), for an error fix.

    ``traceback`` is the traceback's text with terminal colour codes removed (the client keeps its
    last :data:`MAX_TRACEBACK` characters); the server finds the line it names in the cell
    (ipykernel's ``Cell In[n], line k``, a SyntaxError's ``line k``) and cleans it like other
    outputs before any of it reaches a model."""

    ename: Annotated[str, Field(min_length=1, max_length=256)]
    evalue: Annotated[str, Field(max_length=MAX_OUTPUT_TEXT)] = ""
    traceback: Annotated[str, Field(max_length=MAX_TRACEBACK)] = ""
    # the ``In [n]`` of the run that raised
    execution_count: Annotated[int, Field(ge=0, strict=True)] | None = None


class EditRegion(_Strict):
    """A span ``[start, end)`` of the document (offsets in Unicode code points)."""

    start: Annotated[int, Field(ge=0, strict=True)]
    end: Annotated[int, Field(ge=0, strict=True)]


class EditPredictionRequest(_Strict):
    """One numbered request for an edit prediction: the next change in a region around the cursor.

    ``text`` is the whole document (a cell or a file); ``cursor`` and ``region`` are offsets in it,
    in Unicode code points. ``region`` is the editable region the client proposes (the server
    widens it to whole lines); without it the model's format decides. ``version`` is the client's
    document version: the reply carries it back, so an answer to an older text is never applied.

    ``scope="notebook"`` (hello feature ``notebook_edits``): the notebook is one document; the
    reply's edits may also land in the context cells that carry a ``cell_id`` (offsets in that
    cell's ``source`` as sent here). ``trigger="error"`` (hello feature ``error_fix``): fix the
    ``error`` this cell's last run raised; ``kernel_candidates`` then holds what the kernel offers
    for the missing key, attribute or name.
    """

    type: Literal["edit_prediction"] = "edit_prediction"
    number: Annotated[int, Field(ge=0, strict=True)]
    version: Annotated[int, Field(ge=0, strict=True)] = 0
    path: str | None = None
    language: str | None = None
    mime: str | None = None
    cell_id: str | None = None
    text: Annotated[str, Field(max_length=MAX_TEXT)]
    cursor: Annotated[int, Field(ge=0, strict=True)]
    region: EditRegion | None = None
    recent_edits: Annotated[list[RecentEdit], Field(max_length=MAX_RECENT_EDITS)] = Field(
        default_factory=list
    )
    trigger: Literal["auto", "manual", "error"] = "manual"
    cells_above: list[ContextCell] = Field(default_factory=list)
    cells_below: list[ContextCell] = Field(default_factory=list)
    files: list[ContextFile] = Field(default_factory=list)
    scope: Literal["cell", "notebook"] = "cell"
    error: CellError | None = None
    kernel_candidates: KernelCandidates | None = None

    @model_validator(mode="after")
    def _in_document(self) -> EditPredictionRequest:
        n = len(self.text)
        if self.cursor > n:
            raise ValueError(f"cursor {self.cursor} lies past the end of the text ({n} characters)")
        r = self.region
        if r is not None and not r.start <= self.cursor <= r.end <= n:
            raise ValueError(
                f"region [{r.start}, {r.end}) must lie in the text (0..{n}) and hold the cursor "
                f"({self.cursor})"
            )
        if (self.trigger == "error") != (self.error is not None):
            raise ValueError('trigger "error" goes with an error, and an error with trigger "error"')
        if self.scope == "notebook":
            if self.cell_id is None:
                raise ValueError('scope "notebook" needs the cell_id of the cell being edited')
            seen = {self.cell_id}
            for cell in (*self.cells_above, *self.cells_below):
                if cell.cell_id is None:
                    continue
                if cell.cell_id in seen:
                    raise ValueError(f"cell id {cell.cell_id!r} appears twice in the request")
                seen.add(cell.cell_id)
        return self


class CancelRequest(_Strict):
    """Stop the request with this number (its upstream stream is closed)."""

    type: Literal["cancel"]
    number: Annotated[int, Field(ge=0, strict=True)]


MAX_USAGE_EVENTS = 64


class UsageEvent(_Strict):
    """What became of one suggestion the user was shown (see ``docs/usage.md``).

    Sent by the client when the suggestion's fate is known, and again with ``kept_30s`` /
    ``kept_5m`` when those windows end (``kept_at_close`` when its document closes first): the store
    keeps one row per ``id`` (the last one sent wins).
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
    # the mean interval between the last few keystrokes before the request, ms (the gate's rhythm)
    typing_ms: Annotated[float, Field(ge=0, le=600_000)] | None = None
    # from the request (after the debounce) to the first ghost text, ms
    latency_ms: Annotated[float, Field(ge=0, le=600_000)]
    length: Annotated[int, Field(ge=0, le=MAX_TEXT)]
    outcome: Literal["accepted", "typed_through", "dismissed", "ignored"]
    # the first way it was accepted: whole (Tab), word (Ctrl+Right), line (Ctrl+End)
    accept_kind: Literal["whole", "word", "line"] | None = None
    accepted_chars: Annotated[int, Field(ge=0, le=MAX_TEXT)] = 0
    typed_chars: Annotated[int, Field(ge=0, le=MAX_TEXT)] = 0
    # ms from the user's last keystroke to the first accept (whole, word or line); None when not
    # accepted (the gate learns how long the user pauses before taking a suggestion)
    accept_pause_ms: Annotated[float, Field(ge=0, le=600_000)] | None = None
    # the request was asked after a hold (its pause is no evidence of the user's own)
    held: Annotated[bool, Field(strict=True)] = False
    kept_30s: Annotated[int, Field(ge=0, le=MAX_TEXT)] | None = None
    kept_5m: Annotated[int, Field(ge=0, le=MAX_TEXT)] | None = None
    # what was still there when its document (or the browser tab) closed before the 30 s window
    # ended: counted as kept when neither window could be measured
    kept_at_close: Annotated[int, Field(ge=0, le=MAX_TEXT)] | None = None
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


class WarmRequest(InlineCompletionRequest):
    """Protocol 3: the context the next suggestion will be asked for, sent ahead (a notebook or
    file opened, a cell focused, the user paused) so that the model server has it in its cache.
    The server answers with a :class:`WarmReply`; no suggestion is made."""

    type: Literal["warm"] = "warm"  # type: ignore[assignment]  # the discriminator of this message


_ClientMessages = (
    InlineCompletionRequest | EditPredictionRequest | CancelRequest | ClientHello | WarmRequest | UsageMessage
)
ClientMessage = Annotated[_ClientMessages, Field(discriminator="type")]
client_message_adapter: TypeAdapter[_ClientMessages] = TypeAdapter(ClientMessage)


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
    # Why this model serves, when the user should know (a local server was found but could not
    # fill in the middle, so the demo model serves); None: nothing to say.
    notice: str | None = None
    # Why the model is not ready (its server did not answer the start-up check, or the last
    # request could not reach it); None: it answered (or was not checked yet).
    problem: str | None = None
    # The route it serves ("completion", "edit", "chat", or a configured model's name); None where
    # the message says it already (a completion reply).
    key: str | None = None
    # An edit model's format (``style``) is the model's own next-edit format (False: the generic
    # one); None: not an edit model.
    native: bool | None = None


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


class TextEdit(BaseModel):
    """Replace ``[start, end)`` of the request's text with ``text`` (offsets in code points).

    ``cell_id`` (a ``scope="notebook"`` request only): the edit lands in that context cell, and
    ``start``/``end`` are offsets in its ``source`` as the request sent it; None: the request's own
    text. A client applies an edit only to the cell with that id, and only while the cell's text is
    still the one it sent (cells move and change while the answer travels)."""

    start: int
    end: int
    text: str
    cell_id: str | None = None


class EditPredictionReply(BaseModel):
    """The answer to an :class:`EditPredictionRequest`: the edits, sorted and not overlapping, all
    within the editable region (none: nothing to suggest). ``version`` is the request's: a client
    whose document has changed since drops the reply. ``region`` is the span the model rewrote in
    the request's own text. For a ``scope="notebook"`` request, edits naming other cells follow
    the own cell's, grouped by cell in notebook order, each group sorted and not overlapping."""

    type: Literal["edit_prediction"] = "edit_prediction"
    reply_to: int
    version: int = 0
    edits: list[TextEdit] = Field(default_factory=list)
    region: EditRegion | None = None
    model: ServingModel | None = None
    notes: list[str] = Field(default_factory=list)
    error: ErrorInfo | None = None


class ErrorReply(BaseModel):
    """A request that could not be served; ``reply_to`` is -1 when its number is unknown."""

    type: Literal["error"] = "error"
    reply_to: int
    error: ErrorInfo


class WarmReply(BaseModel):
    """The answer to a :class:`WarmRequest`: ``warmed`` when the model server evaluated the prompt;
    else ``reason``: ``off`` (not for this model: c.CodeCompleteApp.warm_up), ``busy`` (a suggestion
    streams), ``superseded`` (a newer warm-up or a completion request came), ``failed``,
    ``capped`` (a shared model: this minute's warm-ups are spent,
    c.CodeCompleteApp.shared_ahead_per_minute)."""

    type: Literal["warm"] = "warm"
    reply_to: int
    warmed: bool
    reason: Literal["off", "busy", "superseded", "failed", "protocol", "capped"] | None = None
    ms: float | None = None


class HelloMessage(BaseModel):
    """Sent once when the socket opens: protocol version and the model that serves by default.

    ``protocol`` is the version in force until the client asks for another one of ``protocols``
    with a :class:`ClientHello`."""

    type: Literal["hello"] = "hello"
    protocol: int = 1
    protocols: list[int] = Field(default_factory=lambda: list(PROTOCOL_VERSIONS))
    model: ServingModel | None = None
    max_message_bytes: int
    # what this server offers besides inline completions; a client sends only what is listed here:
    # ``edit_prediction``: it answers :class:`EditPredictionRequest`; ``notebook_edits``: its
    # ``scope="notebook"``; ``error_fix``: its ``trigger="error"``; ``edit_history``: inline
    # completion requests may carry ``recent_edits``
    features: list[str] = Field(default_factory=list)
    # protocol 3: whether the server warms the default model's cache (``warm`` messages)
    warm: bool = False
    # the same for each configured route (language or MIME type → may its model be warmed and
    # prefetched for); a route not listed follows ``warm``
    warm_routes: dict[str, bool] = Field(default_factory=dict)
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
    stop: (
        Annotated[list[Annotated[str, Field(max_length=MAX_STOP_CHARS)]], Field(max_length=MAX_STOP)] | None
    ) = Field(None, description=f"Extra stop sequences (at most {MAX_STOP}).")
    stream: bool = False
    # The websocket's names for two fields (a request copied from the websocket works here too)
    prefix: Annotated[str, Field(max_length=MAX_TEXT)] | None = Field(
        None, description="The websocket's name for `prompt`: give one of the two."
    )
    path: str | None = Field(None, description="The websocket's name for `file_path`: give one of the two.")

    @model_validator(mode="after")
    def _websocket_names(self) -> CompletionRequestBody:
        for ours, theirs in (("prompt", "prefix"), ("file_path", "path")):
            given = getattr(self, theirs)
            if given is None:
                continue
            if getattr(self, ours) and getattr(self, ours) != given:
                raise ValueError(f"give `{ours}` or `{theirs}` (the websocket's name for it), not both")
            setattr(self, ours, given)
        return self
