"""The OpenAPI document of the REST endpoints, generated from the pydantic wire models."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from ..protocol import CompletionRequestBody, EditPredictionReply, EditPredictionRequest

try:  # the installed package's version (not the package's __init__, which imports the server app)
    __version__ = version("jupyter_codecomplete")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0.0.0"

_ERROR = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "type": {"type": "string"},
                "title": {"type": "string"},
                "message": {"type": "string"},
                "retry_after": {"type": "number", "nullable": True},
            },
            "required": ["type", "title", "message"],
        }
    },
    "required": ["error"],
}


# one server-sent event: `data` is a JSON text_completion chunk, or "[DONE]" at the end
_SSE_EVENT = {
    "type": "object",
    "properties": {"event": {"type": "string"}, "data": {"type": "string"}},
    "required": ["data"],
}


def _errors(*codes: int) -> dict[str, Any]:
    return {
        str(c): {
            "description": "error",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for c in codes
    }


def _days() -> dict[str, Any]:
    return {
        "name": "days",
        "in": "query",
        "required": False,
        "description": "only the events of the last N days",
        "schema": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 100000},
    }


def _ws_schemas() -> dict[str, Any]:
    """The websocket's edit-prediction messages (``api/codecomplete/inline``, docs/protocol.md),
    listed here for tools that read schemas; they are not REST bodies."""
    out: dict[str, Any] = {}
    for model in (EditPredictionRequest, EditPredictionReply):
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        out.update(schema.pop("$defs", {}))
        about = schema.get("description", "")
        schema["description"] = "Websocket message (api/codecomplete/inline). " + about
        out[model.__name__] = schema
    return out


def openapi_document() -> dict[str, Any]:
    body_schema = CompletionRequestBody.model_json_schema(ref_template="#/components/schemas/{model}")
    defs = body_schema.pop("$defs", {})
    request_body = {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CompletionRequest"}}},
    }
    obj = {"type": "object"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "jupyter_codecomplete REST API", "version": __version__},
        "paths": {
            "/api/codecomplete/prompt": {
                "post": {
                    "summary": "The prompt, stop sequences, style and model a request would use",
                    "requestBody": request_body,
                    "responses": {
                        "200": {
                            "description": "the prompt",
                            "content": {"application/json": {"schema": obj}},
                        },
                        **_errors(400, 403, 404, 413, 501, 502),
                    },
                }
            },
            "/api/codecomplete/completions": {
                "post": {
                    "summary": "Prompt + completion, OpenAI text_completion shape (SSE when stream is true)",
                    "requestBody": request_body,
                    "responses": {
                        "200": {
                            "description": "the completion",
                            "content": {
                                "application/json": {"schema": obj},
                                "text/event-stream": {"schema": _SSE_EVENT},
                            },
                        },
                        **_errors(400, 403, 404, 413, 501, 502, 504),
                    },
                }
            },
            "/api/codecomplete/models": {
                "get": {
                    "summary": "Configured models, their styles, capabilities and what the backend reports",
                    "responses": {
                        "200": {"description": "models", "content": {"application/json": {"schema": obj}}},
                        **_errors(403),
                    },
                }
            },
            "/api/codecomplete/styles": {
                "get": {
                    "summary": "Built-in and user prompt styles",
                    "responses": {
                        "200": {"description": "styles", "content": {"application/json": {"schema": obj}}},
                        **_errors(403),
                    },
                }
            },
            "/api/codecomplete/usage": {
                "get": {
                    "summary": "What became of the suggestions shown: totals, per model, trigger, language, "
                    "line kind and day, the latency histogram, the learned pauses before an accept, "
                    "and what each restraint level would have changed on them (docs/usage.md)",
                    "parameters": [_days()],
                    "responses": {
                        "200": {"description": "summary", "content": {"application/json": {"schema": obj}}},
                        **_errors(400, 403),
                    },
                }
            },
            "/api/codecomplete/usage/gate": {
                "get": {
                    "summary": "The restraint learned from the usage events (where automatic requests are "
                    "held or skipped; the user's pauses before taking a suggestion, by line kind)",
                    "parameters": [
                        _days(),
                        {
                            "name": "level",
                            "in": "query",
                            "required": False,
                            "schema": {"type": "string", "enum": ["off", "more", "normal", "less"]},
                        },
                    ],
                    "responses": {
                        "200": {"description": "the gate", "content": {"application/json": {"schema": obj}}},
                        **_errors(400, 403),
                    },
                }
            },
        },
        "components": {
            "schemas": {"CompletionRequest": body_schema, "Error": _ERROR, **defs, **_ws_schemas()}
        },
    }
