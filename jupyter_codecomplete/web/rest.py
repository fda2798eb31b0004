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
from typing import Any

from tornado.iostream import StreamClosedError

from ..completion import DefaultInlineCompletionHandler, Overrides, Prepared
from ..errors import HTTP_STATUS
from ..postprocess import Pipeline
from ..prompting import PromptError
from ..protocol import CompletionRequestBody, ErrorInfo, InlineCompletionRequest
from .base import CodeCompleteHandler, Refusal, refusal
from .openapi import openapi_document
from .replies import ModelsReply, PromptPreview, StylesReply, TextCompletion, reply


def error_status(info: ErrorInfo, *, refused: bool) -> int:
    """The HTTP status of an error: :data:`~jupyter_codecomplete.errors.HTTP_STATUS`, else 400 when the
    request itself was refused (a prompt error), 502 when the model or its server failed."""
    return HTTP_STATUS.get(info.type, 400 if refused else 502)


class EngineHandler(CodeCompleteHandler):
    """A route of the prompt engine itself (a handler that is not the default one answers 501)."""

    def engine(self) -> DefaultInlineCompletionHandler:
        handler = self.completion_handler
        if isinstance(handler, DefaultInlineCompletionHandler):
            return handler
        message = f"{type(handler).__name__} does not expose the prompt engine."
        raise refusal(501, "not_supported", message, title="Not supported by this completion handler")

    async def start(self) -> tuple[DefaultInlineCompletionHandler, CompletionRequestBody, Prepared, Pipeline]:
        """The engine, the body and the engine's ``prepare`` for it (its overrides applied there)."""
        engine = self.engine()
        body = self.read(CompletionRequestBody)
        if body.mode == "infill" and body.suffix is None:
            message = "mode 'infill' needs a 'suffix'."
            raise refusal(400, "missing_suffix", message, title="Cannot build the prompt")
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
            prepared, pipeline = await engine.prepare_async(request, prompt_request, overrides)
        except Exception as exc:
            info = engine.error_info(exc)
            raise Refusal(error_status(info, refused=isinstance(exc, PromptError)), info) from None
        return engine, body, prepared, pipeline


class PromptHandler(EngineHandler):
    route = "prompt"

    async def post(self) -> None:
        engine, _, prepared, _ = await self.start()
        built = prepared.built
        self.finish(
            reply(
                PromptPreview,
                {
                    "prompt": built.prompt,
                    "suffix": built.suffix,
                    "messages": getattr(built, "messages", None),
                    "stop": prepared.stop,
                    "style": prepared.style.name,
                    "mode": built.mode,
                    "heal": built.heal,
                    "notes": [*built.notes, *(prepared.gate.notes() if prepared.gate else [])],
                    # what the privacy gate did: secrets redacted (by kind), context left out, channels
                    # held back (the prompt shows each secret's placeholder where it was)
                    "privacy": prepared.gate.as_dict() if prepared.gate else None,
                    "prompt_tokens": built.prompt_tokens,
                    "max_tokens": prepared.max_tokens,
                    "model": engine.serving(prepared.key, prepared.backend, prepared.style),
                },
            )
        )


class CompletionsHandler(EngineHandler):
    """The completion runs as its own task: a client that hangs up cancels it, which closes the
    model's stream at once (not at the model's timeout)."""

    route = "completions"

    _job: asyncio.Task[None] | None = None

    def on_connection_close(self) -> None:
        super().on_connection_close()
        if self._job is not None and not self._job.done():
            self._job.cancel()

    async def post(self) -> None:
        self._job = asyncio.ensure_future(self.complete(*await self.start()))
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
        notes: list[str] = [*prepared.built.notes, *(prepared.gate.notes() if prepared.gate else [])]
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
        self.finish(reply(TextCompletion, result))


class ModelsHandler(CodeCompleteHandler):
    route = "models"

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
            reply(ModelsReply, {"default": default, "models": out, "routes": getattr(handler, "routes", {})})
        )


class StylesHandler(EngineHandler):
    route = "styles"

    async def get(self) -> None:
        self.finish(reply(StylesReply, {"styles": list(self.engine().styles.all().values())}))


class OpenAPIHandler(CodeCompleteHandler):
    route = "openapi.json"

    async def get(self) -> None:
        self.finish(openapi_document())
