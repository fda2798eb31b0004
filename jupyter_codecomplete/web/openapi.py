"""The OpenAPI document of the REST endpoints, generated from the pydantic wire models."""

from __future__ import annotations

from typing import Any

from .. import __version__
from ..protocol import CompletionRequestBody, EditPredictionReply, EditPredictionRequest

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
        },
        "components": {
            "schemas": {"CompletionRequest": body_schema, "Error": _ERROR, **defs, **_ws_schemas()}
        },
    }
