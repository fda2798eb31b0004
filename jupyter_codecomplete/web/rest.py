"""REST endpoints over the same engine as the websocket.

- ``POST api/codecomplete/prompt``: the prompt, stop sequences, style and model a request makes.
- ``POST api/codecomplete/completions``: prompt + completion, OpenAI ``text_completion`` shape
  (server-sent events with ``"stream": true``).
- ``GET api/codecomplete/models``, ``GET api/codecomplete/styles``, ``GET api/codecomplete/openapi.json``.

Thin adapters: the body's ``max_tokens``, ``stop``, ``temperature``, ``model`` and ``mode`` go into
the engine's ``prepare`` as :class:`~..completion.Overrides`, and a completion is driven by the
engine's own ``drive`` (the websocket's first-token and total deadlines, the same bounds). Errors
carry the websocket's envelope (``type``, ``title``, ``message``, ``retry_after``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from http import HTTPStatus
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.extension.handler import ExtensionHandlerMixin
from pydantic import ValidationError
from tornado import web
from tornado.iostream import StreamClosedError

from ..completion import BaseInlineCompletionHandler, DefaultInlineCompletionHandler, Overrides
from ..completion.prepared import Prepared
from ..errors import HTTP_STATUS, validation_message
from ..postprocess import Pipeline
from ..prompting import PromptError
from ..protocol import (
    MAX_DEPTH,
    CompletionRequestBody,
    ErrorInfo,
    InlineCompletionRequest,
    nesting_depth,
)
from .websocket import AUTH_RESOURCE, too_deep_message


def error_status(info: ErrorInfo, *, refused: bool) -> int:
    """The HTTP status of an error: :data:`~jupyter_codecomplete.errors.HTTP_STATUS`, else 400 when the
    request itself was refused (a prompt error), 502 when the model or its server failed."""
    return HTTP_STATUS.get(info.type, 400 if refused else 502)


class _Base(ExtensionHandlerMixin, APIHandler):
    auth_resource = AUTH_RESOURCE

    @property
    def completion_handler(self) -> BaseInlineCompletionHandler:
        return self.extensionapp.completion_handler  # type: ignore[attr-defined,no-any-return]

    def fail(self, status: int, type: str, message: str, title: str | None = None) -> None:
        title = title or HTTPStatus(status).phrase
        self.send_error_info(status, ErrorInfo(type=type, title=title, message=message))

    def send_error_info(self, status: int, info: ErrorInfo) -> None:
        """An error reply with the websocket's error envelope (and ``Retry-After`` when known)."""
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        if info.retry_after is not None:
            self.set_header("Retry-After", f"{info.retry_after:g}")
        self.finish(json.dumps({"error": info.model_dump()}))

    def engine(self) -> DefaultInlineCompletionHandler | None:
        handler = self.completion_handler
        if isinstance(handler, DefaultInlineCompletionHandler):
            return handler
        self.fail(
            501,
            "not_supported",
            f"{type(handler).__name__} does not expose the prompt engine.",
            title="Not supported by this completion handler",
        )
        return None

    def json_object(self) -> dict[str, Any] | None:
        """The one JSON body reader of every REST route: at most ``max_message_bytes`` (the
        websocket's limit, 413 above), UTF-8, JSON, at most :data:`MAX_DEPTH` levels deep, an
        object (400 otherwise, the websocket's messages). None when an error reply was sent."""
        limit = int(getattr(self.extensionapp, "max_message_bytes", 8 * 1024 * 1024))
        raw = self.request.body or b""
        if len(raw) > limit:
            self.fail(
                413,
                "body_too_large",
                f"The body has {len(raw)} bytes; the limit is {limit} bytes "
                "(c.CodeCompleteApp.max_message_bytes).",
                title="Request too large",
            )
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.fail(400, "bad_encoding", f"The body is not valid UTF-8: {exc}", title="Malformed JSON")
            return None
        try:
            data = json.loads(text or "{}")
        except json.JSONDecodeError as exc:
            self.fail(400, "bad_json", f"The body is not valid JSON: {exc}", title="Malformed JSON")
            return None
        except RecursionError:
            self.fail(400, "bad_json", too_deep_message(), title="Malformed JSON")
            return None
        if nesting_depth(data) > MAX_DEPTH:
            self.fail(400, "bad_request", too_deep_message(), title="Invalid request")
            return None
        if not isinstance(data, dict):
            self.fail(400, "bad_request", "The body must be a JSON object.", title="Invalid request")
            return None
        return data

    def body(self) -> CompletionRequestBody | None:
        data = self.json_object()
        if data is None:
            return None
        try:
            return CompletionRequestBody.model_validate(data)
        except ValidationError as exc:
            self.fail(400, "bad_request", validation_message(exc), title="Invalid request")
            return None

    async def prepared(
        self, engine: DefaultInlineCompletionHandler, body: CompletionRequestBody
    ) -> tuple[Prepared, Pipeline] | None:
        """The engine's ``prepare`` for this body (its overrides applied there), or an error reply."""
        if body.mode == "infill" and body.suffix is None:
            self.fail(
                400, "missing_suffix", "mode 'infill' needs a 'suffix'.", title="Cannot build the prompt"
            )
            return None
        request = InlineCompletionRequest(
            number=0,
            prefix=body.prompt,
            suffix=body.suffix or "",
            path=body.file_path,
            language=body.language,
        )
        # the engine's own prompt request (its one repository-name rule), with the body's context
        prompt_request = engine.prompt_request(
            request,
            files=body.files or {},
            repo_name=body.repo_name,
            cells_above=body.cells_above or [],
            cells_below=body.cells_below or [],
            kernel_candidates=body.kernel_candidates,
        )
        overrides = Overrides(
            model=body.model,
            mode=body.mode,
            max_tokens=body.max_tokens,
            stop=tuple(body.stop or ()),
            temperature=body.temperature,
        )
        try:
            return await engine.prepare_async(request, prompt_request, overrides)
        except Exception as exc:
            info = engine.error_info(exc)
            self.send_error_info(error_status(info, refused=isinstance(exc, PromptError)), info)
            return None


    async def start(
        self,
    ) -> tuple[DefaultInlineCompletionHandler, CompletionRequestBody, Prepared, Pipeline] | None:
        """The engine, the body and the prepared request; None when an error reply was sent."""
        engine = self.engine()
        body = self.body() if engine else None
        if engine is None or body is None:
            return None
        found = await self.prepared(engine, body)
        return None if found is None else (engine, body, *found)


class PromptHandler(_Base):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        started = await self.start()
        if started is None:
            return
        prepared = started[2]
        built = prepared.built
        self.finish(
            {
                "prompt": built.prompt,
                "suffix": built.suffix,
                "messages": getattr(built, "messages", None),
                "stop": prepared.stop,
                "style": prepared.style.name,
                "mode": built.mode,
                "heal": built.heal,
                "notes": built.notes,
                "prompt_tokens": built.prompt_tokens,
                "max_tokens": prepared.max_tokens,
                "model": {
                    "name": prepared.backend.name,
                    "backend": prepared.backend.kind,
                    "key": prepared.key,
                },
            }
        )


class CompletionsHandler(_Base):
    """The completion runs as its own task: a client that hangs up cancels it, which closes the
    model's stream at once (not at the model's timeout)."""

    _job: asyncio.Task[None] | None = None

    def on_connection_close(self) -> None:
        super().on_connection_close()
        if self._job is not None and not self._job.done():
            self._job.cancel()

    @web.authenticated
    @authorized
    async def post(self) -> None:
        started = await self.start()
        if started is None:
            return
        self._job = asyncio.ensure_future(self.complete(*started))
        with contextlib.suppress(asyncio.CancelledError):
            await self._job

    async def complete(
        self,
        engine: DefaultInlineCompletionHandler,
        body: CompletionRequestBody,
        prepared: Prepared,
        pipeline: Pipeline,
    ) -> None:
        cid = f"cmpl-{uuid.uuid4().hex[:16]}"
        created = int(time.time())
        model_name = prepared.backend.name

        def chunk(text: str, finish: str | None) -> dict[str, Any]:
            return {
                "id": cid,
                "object": "text_completion",
                "created": created,
                "model": model_name,
                "choices": [{"index": 0, "text": text, "finish_reason": finish, "logprobs": None}],
            }

        if body.stream:
            self.set_header("Content-Type", "text/event-stream")
            self.set_header("Cache-Control", "no-cache")
        parts: list[str] = []
        notes: list[str] = list(prepared.built.notes)
        _, limit = engine.bounds()
        # the engine's own driver: the websocket's deadlines, bounds and cleaning
        deltas = engine.bound(engine.drive(prepared, pipeline, notes), notes, limit)
        try:
            async with contextlib.aclosing(deltas) as stream:
                async for out in stream:
                    parts.append(out)
                    if body.stream:
                        self.write(f"data: {json.dumps(chunk(out, None))}\n\n")
                        await self.flush()
        except StreamClosedError:
            return
        except Exception as exc:
            info = engine.error_info(exc)
            if body.stream:
                self.write(f"data: {json.dumps({'error': info.model_dump()})}\n\n")
                self.finish("data: [DONE]\n\n")
            else:
                self.send_error_info(error_status(info, refused=False), info)
            return
        finish = "length" if limit.reached else "stop"
        if body.stream:
            self.write(f"data: {json.dumps(chunk('', finish))}\n\n")
            self.finish("data: [DONE]\n\n")
            return
        result = chunk("".join(parts), finish)
        result["prompt"] = prepared.built.prompt
        result["style"] = prepared.style.name
        if notes:
            result["notes"] = notes
        self.finish(result)


class ModelsHandler(_Base):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        handler = self.completion_handler
        out: list[dict[str, Any]] = []
        if isinstance(handler, DefaultInlineCompletionHandler):
            for key, cfg in handler.models.items():
                entry: dict[str, Any] = {"name": key, "model": cfg.model, "backend": cfg.backend}
                try:
                    backend = handler.backend(key)
                    style = handler.style_for(backend)
                    entry.update(
                        model=backend.name,
                        style=style.name,
                        demo=backend.demo,
                        capabilities={
                            "infill": style.fim is not None,
                            "repository": style.repo is not None,
                            "streaming": cfg.streaming,
                            "chat": backend.chat,
                        },
                        reported=await handler.reported_model(key),
                    )
                except Exception as exc:
                    entry["error"] = handler.error_info(exc).model_dump()
                out.append(entry)
        default = handler.model_info(None)
        self.finish(
            {
                "default": default.model_dump() if default else None,
                "models": out,
                "routes": getattr(handler, "routes", {}),
            }
        )


class StylesHandler(_Base):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        engine = self.engine()
        if engine is None:
            return
        self.finish({"styles": [s.model_dump() for s in engine.styles.all().values()]})


class OpenAPIHandler(_Base):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        from .openapi import openapi_document

        self.finish(openapi_document())


def handlers() -> list[tuple[str, type[web.RequestHandler]]]:
    return [
        (r"/api/codecomplete/prompt", PromptHandler),
        (r"/api/codecomplete/completions", CompletionsHandler),
        (r"/api/codecomplete/models", ModelsHandler),
        (r"/api/codecomplete/styles", StylesHandler),
        (r"/api/codecomplete/openapi.json", OpenAPIHandler),
    ]
