"""``check``: contact each model of an engine and report on it (``jupyter codecomplete check``, the
model dialog's Test and Use, ``jupyter codecomplete models use``).

For each model: whether it is reachable (and why not), the model it serves, the prompt style
chosen, its fill-in-the-middle support, and the time to first token and tokens per second of one
short completion, prepared as every request is (:meth:`DefaultInlineCompletionHandler.prepare`)
and read from the model's raw stream. :func:`check_models` builds the engine with the one
constructor (:func:`~.engine.make_engine`) from the settings the caller's configuration gives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from ..backends import BackendError, Description, native_suffix
from ..protocol import InlineCompletionRequest
from .base import error_info_from
from .default import DefaultInlineCompletionHandler
from .engine import make_engine
from .settings import EngineSettings, Overrides

SAMPLE_PREFIX = "def fibonacci(n):\n    "
SAMPLE_SUFFIX = "\n\nprint(fibonacci(10))\n"
# How many samples `check` takes before it reports that a model writes nothing.
EMPTY_SAMPLE_TRIES = 2


async def check_models(
    settings: EngineSettings, timeout: float, sample: bool = True, log: logging.Logger | None = None
) -> list[dict[str, Any]]:
    """Build the engine of ``settings`` and check each of its models in turn (then close it)."""
    handler = make_engine(settings, log=log, handler_class=DefaultInlineCompletionHandler)
    try:
        return [await check_model(key, handler, timeout, sample) for key in handler.models]
    finally:
        with contextlib.suppress(Exception):
            await handler.close()


async def check_model(
    key: str, handler: DefaultInlineCompletionHandler, timeout: float, sample: bool = True
) -> dict[str, Any]:
    """Contact one configured model through the completion engine; a report dict (``ok`` says it passed)."""
    cfg = handler.models[key]
    report: dict[str, Any] = {
        "name": key,
        "backend": cfg.backend,
        "base_url": cfg.base_url,
        "model": cfg.api_model or cfg.model,
        "ok": False,
    }
    secrets = cfg.secrets()
    try:
        backend = handler.backend(key)
    except Exception as exc:
        report["error"] = error_info_from(exc, secrets).message
        return report
    # what this model is sent: where it runs, its context channels, redaction, warm-ups
    report["locality"] = backend.locality
    report["shared"] = backend.shared
    report["privacy"] = handler.policy(backend).describe()
    report["warm"] = handler.warms_backend(backend)
    reported = None
    described: Description | None = None
    if backend.describe is not None:
        try:
            got: Description = await asyncio.wait_for(backend.describe(), timeout)
            described, reported = got, got.model
            report["reachable"] = True
        except Exception as exc:
            info = error_info_from(
                exc if not isinstance(exc, asyncio.TimeoutError) else TimeoutError(), secrets
            )
            report["reachable"] = False
            report["error"] = (
                info.message if not isinstance(exc, asyncio.TimeoutError) else f"no answer in {timeout:g} s"
            )
            if isinstance(exc, BackendError) and exc.type not in ("backend_unreachable", "timeout"):
                report["reachable"] = True  # it answered, with an error
            if not report["reachable"]:
                return report
    report["serves"] = reported
    handler.remember_described(key, described, reported)  # for the style choice and the reply
    try:
        style = handler.style_for(backend)
    except Exception as exc:  # an unknown prompt style: the report names it
        report["error"] = error_info_from(exc, secrets).message
        return report
    native = native_suffix(backend, style, described)
    report["style"] = style.name
    report["fim"] = {
        "style_tokens": style.fim is not None,
        "native_suffix": native,
        "chat": backend.chat,
        "reported": described.native_suffix if described is not None else None,
    }
    report["fim_supported"] = bool(style.supports_infill or native)
    if not sample:
        report["ok"] = report.get("reachable", True)
        return report
    request = InlineCompletionRequest(
        number=0, path="check.py", language="python", prefix=SAMPLE_PREFIX, suffix=SAMPLE_SUFFIX
    )
    chunks = 0
    text = ""
    first = last = None
    try:
        # a short sample: the budget is set before the prompt is sized, as for every request;
        # greedy, so that a run says the same as the one before (a sampled run of the demo model
        # ended at once one time in two)
        budget = Overrides(max_tokens=min(32, cfg.max_tokens), temperature=0.0)
        prepared = handler.prepare(request, key=key, overrides=budget)

        async def consume() -> None:
            nonlocal chunks, text, first, last
            stream = handler.raw_stream(prepared)
            try:
                async for piece in stream:
                    now = time.perf_counter()
                    if piece:
                        chunks += 1
                        text += piece
                        first = first if first is not None else now
                        last = now
            finally:
                await stream.aclose()  # type: ignore[attr-defined]  # an async generator has aclose

        # A sampling model may end at once (an end-of-text first): one more try before the
        # empty sample is reported.
        for _attempt in range(EMPTY_SAMPLE_TRIES):
            start = time.perf_counter()
            await asyncio.wait_for(consume(), timeout)
            if text:
                break
    except Exception as exc:
        report["reachable"] = report.get("reachable", not isinstance(exc, OSError))
        report["error"] = error_info_from(
            exc
            if not isinstance(exc, asyncio.TimeoutError)
            else TimeoutError(f"the completion did not finish in {timeout:g} s"),
            secrets,
        ).message
        return report
    report["reachable"] = True
    report["first_token_s"] = None if first is None else first - start
    report["tokens"] = chunks
    if first is not None and last is not None and chunks > 1 and last > first:
        report["tokens_per_s"] = (chunks - 1) / (last - first)
    else:
        report["tokens_per_s"] = None
    report["sample"] = text
    report["serves"] = report["serves"] or getattr(backend.llm, "answered_model", None)
    report["ok"] = True
    if not text:
        # it answers, but a suggestion from it would be empty: not a pass
        report["warning"] = (
            f"the model wrote nothing for the sample ({EMPTY_SAMPLE_TRIES} tries): it ended at once; "
            "its suggestions will often be empty (check its prompt style and stop sequences)"
        )
    return report
