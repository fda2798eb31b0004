"""The OpenAPI document of the REST endpoints, generated from the pydantic wire models: the request
bodies (``protocol.py``) and the reply of every route (``replies.py``).

:data:`OPERATIONS` is the one table of what each route answers; ``tests/test_rest.py`` checks that it
names every route and method the server serves (the websocket aside) and nothing else, and the
schemathesis test calls them and checks every answer against its schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pydantic import BaseModel

from ..models_service import CustomEndpoint
from ..protocol import CompletionRequestBody, EditPredictionReply, EditPredictionRequest
from ..usage import LEVELS
from . import replies as r

try:  # the installed package's version (not the package's __init__, which imports the server app)
    __version__ = version("jupyter_codecomplete")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0.0.0"

PREFIX = "/api/codecomplete/"


@dataclass(frozen=True)
class Operation:
    """One method of one route: what it does, its reply (``None``: not JSON), its status codes."""

    path: str
    method: str
    summary: str
    reply: type[BaseModel] | None
    errors: tuple[int, ...] = (403,)
    status: int = 200
    body: type[BaseModel] | dict[str, Any] | None = None
    parameters: tuple[dict[str, Any], ...] = ()
    # the same reply as server-sent events (``?stream=1``, or a body's ``stream: true``)
    events: bool = False
    extra_content: dict[str, Any] = field(default_factory=dict)


def _query(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema}


_DAYS = _query(
    "days",
    "only the events of the last N days",
    {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 100000},
)
_STREAM = _query(
    "stream", "1: follow it as server-sent events until it ends", {"type": "string", "enum": ["0", "1"]}
)
_ENTRY_ID = {
    "name": "id",
    "in": "path",
    "required": True,
    "description": "a catalogue id",
    "schema": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"},
}
# the body of the routes that name a model: its id in the list, and a custom endpoint for "custom"
_NAMED = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "custom": {"$ref": "#/components/schemas/CustomEndpoint"},
        "role": {"type": "string", "enum": ["completion", "edit"]},
    },
    "required": ["id"],
}

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "prompt",
        "post",
        "The prompt, stop sequences, style and model a request would use",
        r.PromptPreview,
        (400, 403, 404, 413, 501, 502),
        body=CompletionRequestBody,
    ),
    Operation(
        "completions",
        "post",
        "Prompt + completion, OpenAI text_completion shape (SSE when stream is true)",
        r.TextCompletion,
        (400, 403, 404, 413, 501, 502, 504),
        body=CompletionRequestBody,
        events=True,
    ),
    Operation(
        "models",
        "get",
        "Configured models, their styles, capabilities and what the backend reports",
        r.ModelsReply,
    ),
    Operation("styles", "get", "Built-in and user prompt styles", r.StylesReply, (403, 501)),
    Operation("openapi.json", "get", "This document", None),
    Operation(
        "stats",
        "get",
        "The server process's event-loop lag, collections and memory",
        r.ServerStats,
        parameters=(
            _query("reset", "1: start the loop-lag window again", {"type": "string", "enum": ["0", "1"]}),
            _query("gc", "1: a full collection first", {"type": "string", "enum": ["0", "1"]}),
            _query(
                "objects",
                "1: count the tracked objects (a full walk)",
                {"type": "string", "enum": ["0", "1"]},
            ),
        ),
    ),
    Operation(
        "usage",
        "get",
        "What became of the suggestions shown: totals, per model, trigger, language, line kind and "
        "day, the latency histogram, the learned pauses before an accept, and what each restraint "
        "level would have changed on them (docs/usage.md)",
        r.UsageSummary,
        (400, 403),
        parameters=(_DAYS,),
    ),
    Operation(
        "usage/gate",
        "get",
        "The restraint learned from the usage events (where automatic requests are held or "
        "skipped; the user's pauses before taking a suggestion, by line kind)",
        r.GateModel,
        (400, 403),
        parameters=(_DAYS, _query("level", "the restraint level", {"type": "string", "enum": list(LEVELS)})),
    ),
    Operation(
        "models/choices",
        "get",
        "Every model one can use (configured, found running, on disk, the catalogue, the custom "
        "endpoint), which serves, the administrator's policy and the downloads",
        r.ModelListing,
        parameters=(_query("detect", "0: do not look for local model servers", {"type": "string"}),),
    ),
    Operation(
        "models/test",
        "post",
        "Check a model (nothing is switched)",
        r.TestReply,
        (400, 403, 404, 409, 502, 503, 504),
        body=_NAMED,
    ),
    Operation(
        "models/use",
        "post",
        "Check a model, make it serve (completions, or edit predictions with role edit) and save "
        "the choice; role edit answers an EditUseReply",
        r.UseReply,
        (400, 403, 404, 409, 501, 502, 503, 504),
        body=_NAMED,
        extra_content={"edit": r.EditUseReply},
    ),
    Operation(
        "models/custom",
        "put",
        "Save the custom endpoint (its key stays on the server)",
        r.CustomSaved,
        (400, 403),
        body=CustomEndpoint,
    ),
    Operation("models/downloads", "get", "The downloads of this server", r.DownloadList),
    Operation(
        "models/downloads",
        "post",
        "Start downloading a catalogue model",
        r.DownloadProgress,
        (400, 403, 404, 409, 502, 503, 507),
        status=202,
        body={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    ),
    Operation(
        "models/downloads/{id}",
        "get",
        "One download's progress",
        r.DownloadProgress,
        (403, 404),
        parameters=(_ENTRY_ID, _STREAM),
        events=True,
    ),
    Operation(
        "models/downloads/{id}",
        "delete",
        "Cancel a download (the bytes so far are kept for a resume)",
        r.DownloadProgress,
        (403, 404),
        parameters=(_ENTRY_ID,),
    ),
    Operation(
        "models/engine",
        "get",
        "The llama.cpp engine's install",
        r.EngineInstall,
        parameters=(_STREAM,),
        events=True,
    ),
    Operation(
        "models/engine",
        "post",
        "Install the llama.cpp engine in the server's environment (it compiles llama.cpp)",
        r.EngineInstall,
        (403, 409),
        status=202,
        body={"type": "object"},
    ),
)


_ERROR_REF = {"$ref": "#/components/schemas/Error"}
# one server-sent event: ``data`` is one JSON reply (a completion's chunk; a progress snapshot), or
# "[DONE]" at the end of a completion
_SSE_EVENT = {
    "type": "object",
    "properties": {"event": {"type": "string"}, "data": {"type": "string"}},
    "required": ["data"],
}


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _schemas(models: list[type[BaseModel]], mode: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for model in models:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}", mode=mode)  # type: ignore[arg-type]  # "validation" | "serialization"
        out.update(schema.pop("$defs", {}))
        out[model.__name__] = schema
    return out


def _ws_schemas() -> dict[str, Any]:
    """The websocket's edit-prediction messages (``api/codecomplete/inline``, docs/protocol.md),
    listed here for tools that read schemas; they are not REST bodies."""
    out = _schemas([EditPredictionRequest], "validation") | _schemas([EditPredictionReply], "serialization")
    for model in (EditPredictionRequest, EditPredictionReply):
        about = out[model.__name__].get("description", "")
        out[model.__name__]["description"] = "Websocket message (api/codecomplete/inline). " + about
    return out


def _operation(op: Operation) -> dict[str, Any]:
    out: dict[str, Any] = {"summary": op.summary}
    if op.parameters:
        out["parameters"] = list(op.parameters)
    if op.body is not None:
        schema = op.body if isinstance(op.body, dict) else _ref(op.body)
        out["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    if op.reply is None:
        content: dict[str, Any] = {"application/json": {"schema": {"type": "object"}}}
    else:
        replies = [op.reply, *op.extra_content.values()]
        schema = _ref(op.reply) if len(replies) == 1 else {"oneOf": [_ref(m) for m in replies]}
        content = {"application/json": {"schema": schema}}
    if op.events:
        content["text/event-stream"] = {"schema": _SSE_EVENT}
    ok = {"description": op.reply.__name__ if op.reply is not None else "the document", "content": content}
    errors = {
        str(code): {"description": "error", "content": {"application/json": {"schema": _ERROR_REF}}}
        for code in op.errors
    }
    out["responses"] = {str(op.status): ok, **errors}
    return out


def openapi_document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        paths.setdefault(PREFIX + op.path, {})[op.method] = _operation(op)
    bodies = [op.body for op in OPERATIONS if isinstance(op.body, type)]
    answers = [m for op in OPERATIONS if op.reply is not None for m in (op.reply, *op.extra_content.values())]
    schemas = {
        **_schemas(list(dict.fromkeys(answers)), "serialization"),
        # a model both sent and answered (none today) keeps its request form
        **_schemas(list(dict.fromkeys(bodies)), "validation"),
        "Error": r.ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}"),
    }
    schemas.update(schemas["Error"].pop("$defs", {}))
    return {
        "openapi": "3.0.3",
        "info": {"title": "jupyter_codecomplete REST API", "version": __version__},
        "paths": paths,
        "components": {"schemas": {**schemas, **_ws_schemas()}},
    }
