"""REST endpoints over the same engine as the websocket.

- ``POST api/codecomplete/prompt``: the prompt, stop sequences, style and model a request makes.
- ``POST api/codecomplete/completions``: prompt + completion, OpenAI ``text_completion`` shape
  (server-sent events with ``"stream": true``).
- ``GET api/codecomplete/models``, ``GET api/codecomplete/styles``, ``GET api/codecomplete/openapi.json``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.extension.handler import ExtensionHandlerMixin
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tornado import web
from tornado.iostream import StreamClosedError

from ..completion import BaseInlineCompletionHandler, DefaultInlineCompletionHandler
from ..completion.base import with_deadlines
from ..completion.default import OFF_LOOP_CHARS
from ..postprocess import make_pipeline
from ..prompting import PromptError, PromptRequest
from ..protocol import (
    MAX_DEPTH,
    MAX_TEXT,
    ContextCell,
    InlineCompletionRequest,
    KernelCandidates,
    nesting_depth,
)
from .websocket import AUTH_RESOURCE, too_deep_message, validation_message

if TYPE_CHECKING:  # the app imports the handlers
    from ..extension import CodeCompleteApp

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


class _Base(ExtensionHandlerMixin, APIHandler):
    auth_resource = AUTH_RESOURCE

    @property
    def completion_handler(self) -> BaseInlineCompletionHandler:
        handler = cast("CodeCompleteApp", self.extensionapp).completion_handler
        assert handler is not None  # made when the extension loads, before any request
        return handler

    def fail(self, status: int, type: str, message: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": {"type": type, "message": message}}))

    def engine(self) -> DefaultInlineCompletionHandler | None:
        handler = self.completion_handler
        if isinstance(handler, DefaultInlineCompletionHandler):
            return handler
        self.fail(501, "not_supported", f"{type(handler).__name__} does not expose the prompt engine.")
        return None

    def body(self) -> CompletionRequestBody | None:
        try:
            text = self.request.body.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.fail(400, "bad_encoding", f"The body is not valid UTF-8: {exc}")
            return None
        try:
            data = json.loads(text or "{}")
        except json.JSONDecodeError as exc:
            self.fail(400, "bad_json", f"The body is not valid JSON: {exc}")
            return None
        except RecursionError:
            self.fail(400, "bad_json", too_deep_message())
            return None
        if nesting_depth(data) > MAX_DEPTH:
            self.fail(400, "bad_request", too_deep_message())
            return None
        try:
            return CompletionRequestBody.model_validate(data)
        except ValidationError as exc:
            self.fail(400, "bad_request", validation_message(exc))
            return None

    async def prepared(self, engine: DefaultInlineCompletionHandler, body: CompletionRequestBody) -> Any:
        if body.model is not None and body.model not in engine.models:
            self.fail(
                404, "unknown_model", f"No model named {body.model!r}; configured: {sorted(engine.models)}."
            )
            return None
        if body.mode == "infill" and body.suffix is None:
            self.fail(400, "missing_suffix", "mode 'infill' needs a 'suffix'.")
            return None
        request = InlineCompletionRequest(
            number=0,
            prefix=body.prompt,
            suffix=body.suffix or "",
            path=body.file_path,
            language=body.language,
        )
        prompt_request = PromptRequest(
            mode=body.mode,
            prefix=body.prompt,
            suffix=body.suffix or "",
            files=body.files or {},
            repo_name=body.repo_name or (engine.repo_name if body.files else None),
            file_path=body.file_path,
            language=body.language,
            cells_above=body.cells_above or [],
            cells_below=body.cells_below or [],
            kernel_candidates=body.kernel_candidates,
        )
        size = len(body.prompt) + len(body.suffix or "") + sum(len(v) for v in (body.files or {}).values())
        try:
            if size > OFF_LOOP_CHARS:  # a large request is prepared off the event loop
                prepared = await asyncio.to_thread(engine.prepare, request, prompt_request, body.model)
            else:
                prepared = engine.prepare(request, prompt_request, key=body.model)
        except PromptError as exc:
            status = 413 if exc.type == "prompt_too_long" else 400
            self.fail(status, exc.type, str(exc))
            return None
        except Exception as exc:
            info = engine.error_info(exc)
            self.fail(
                400 if info.type in {"unknown_style", "unknown_backend", "no_model"} else 502,
                info.type,
                info.message,
            )
            return None
        if body.max_tokens is not None:
            prepared.max_tokens = body.max_tokens
        if body.temperature is not None:
            prepared.bind["temperature"] = body.temperature
        if body.stop:
            prepared.stop = list(dict.fromkeys([*prepared.stop, *body.stop]))
            prepared.postprocess.stop = prepared.stop
        return prepared


class PromptHandler(_Base):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        engine = self.engine()
        body = self.body() if engine else None
        if engine is None or body is None:
            return
        prepared = await self.prepared(engine, body)
        if prepared is None:
            return
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
        engine = self.engine()
        body = self.body() if engine else None
        if engine is None or body is None:
            return
        prepared = await self.prepared(engine, body)
        if prepared is None:
            return
        self._job = asyncio.ensure_future(self.complete(engine, body, prepared))
        with contextlib.suppress(asyncio.CancelledError):
            await self._job

    async def complete(
        self, engine: DefaultInlineCompletionHandler, body: CompletionRequestBody, prepared: Any
    ) -> None:
        cid = f"cmpl-{uuid.uuid4().hex[:16]}"
        created = int(time.time())
        model_name = prepared.backend.name
        pipeline = make_pipeline(prepared.postprocess)

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
        notes: list[str] = []
        scrubber, limit = engine.bounds()
        source = with_deadlines(engine.raw_stream(prepared), None, None, max_chars=engine.max_raw_chars)
        try:
            async with contextlib.aclosing(source) as raws:
                async for raw in raws:
                    out = limit.take(scrubber.feed(pipeline.feed(raw)))
                    if out:
                        parts.append(out)
                        if body.stream:
                            self.write(f"data: {json.dumps(chunk(out, None))}\n\n")
                            await self.flush()
                    if pipeline.done or limit.reached:
                        break
        except StreamClosedError:
            return
        except Exception as exc:
            info = engine.error_info(exc)
            if body.stream:
                self.write(f"data: {json.dumps({'error': info.model_dump()})}\n\n")
                self.finish("data: [DONE]\n\n")
            else:
                self.fail(502 if info.type != "timeout" else 504, info.type, info.message)
            return
        tail = "" if limit.reached else limit.take(scrubber.feed(pipeline.finish()) + scrubber.finish())
        if tail:
            parts.append(tail)
        finish = "length" if limit.reached else "stop"
        if limit.reached:
            notes.append(limit.note())
        if body.stream:
            self.write(f"data: {json.dumps(chunk(tail, finish))}\n\n")
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
