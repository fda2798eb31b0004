"""Every exception of jupyter_codecomplete, the one status → error mapping, the one secret scrubber.

Like httpx's ``_exceptions.py``, the whole tree lives here and every class has the same
constructor, ``Error(type, message, *, title=None, retry_after=None, status=None)``::

    CodeCompleteError              type (a stable machine name), message, title, retry_after, status
    ├── PromptError                the request cannot make a prompt (also a ValueError)
    ├── BackendError               a model server failed, or a backend cannot be built
    ├── CompletionError            a completion handler refused the request (e.g. ``no_model``)
    └── ModelServiceError          a model listing, download, test or switch failed

``type`` is what the client sees (``ErrorInfo.type``) and what code branches on; the class says
where the failure comes from. :data:`TITLES` gives each type its default title and
:data:`HTTP_STATUS` the status a REST reply carries for it.

The model server's failures are decided in one place, the same for every backend kind:

* :func:`from_status`: an HTTP status (plus the server's error message and ``Retry-After``):
  ``429`` → ``rate_limited``, ``502``/``503``/``504`` → ``backend_unavailable``, ``408`` →
  ``timeout``, any other ``>= 400`` → ``backend_error``;
* :func:`unreachable` (refused, reset, DNS: ``backend_unreachable``) and :func:`timed_out`, with the
  same message on every backend;
* :func:`as_error`: any exception (httpx, the OpenAI SDK, ``TimeoutError``, ``OSError``...) as a
  :class:`CodeCompleteError`; the error envelope the client gets is made from it.

:func:`scrub` removes secrets (API keys, authorization headers) from error messages,
:class:`StreamScrubber` from suggestions as they stream, :class:`SecretFilter` from log records.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar
from urllib.parse import urlsplit

# Default titles by type (what the client shows in bold; the message says the rest).
TITLES: dict[str, str] = {
    "backend_unreachable": "The model server cannot be reached",
    "backend_unavailable": "The model server is unavailable",
    "rate_limited": "The model server is rate limiting",
    "model_busy": "Model busy",
    "timeout": "The model took too long",
    "backend_error": "The model server reported an error",
    "bad_config": "The model is not configured correctly",
    "unknown_backend": "Unknown backend",
    "no_model": "No model configured",
    "excluded": "Excluded from code suggestions",
    "internal_error": "Completion failed",
}

# The HTTP status a REST reply carries for each type (every REST handler reads it). A type not
# listed: 400 when the request itself was refused, 502 when the model server failed, else 500.
HTTP_STATUS: dict[str, int] = {
    # requests
    "bad_request": 400,
    # the document is excluded (.codecompleteignore, the administrator's or the default exclusions)
    "excluded": 403,
    "bad_url": 400,
    "not_gguf": 400,
    "unknown_style": 400,
    "bad_style": 400,
    "unknown_mode": 400,
    "bad_files": 400,
    "no_infill": 400,
    "missing_suffix": 400,
    "prompt_too_long": 413,
    "bad_budget": 400,
    "unknown_backend": 400,
    "bad_config": 400,
    "locked": 403,
    "unknown_model": 404,
    "not_found": 404,
    "already_downloading": 409,
    "not_downloaded": 409,
    "cancelled": 499,
    "not_supported": 501,
    "not_enough_disk": 507,
    "store_failed": 500,
    "body_too_large": 413,
    # model servers
    "backend_error": 502,
    "backend_unreachable": 502,
    "hub_unreachable": 502,
    "network": 502,
    "checksum_mismatch": 502,
    "no_checksum": 502,
    "oversized": 502,
    "probe_failed": 502,
    "backend_unavailable": 503,
    "offline": 503,
    "no_model": 400,
    "rate_limited": 429,
    "model_busy": 429,
    "timeout": 504,
}


class CodeCompleteError(Exception):
    """The root of the tree: a stable ``type``, a message for people, an optional title.

    ``retry_after``: seconds the client should wait (from ``Retry-After``); ``status``: the HTTP
    status that caused it, when a server answered one (for :class:`BackendError`, the model
    server's)."""

    default_title: ClassVar[str] = "Completion failed"

    def __init__(
        self,
        type: str,
        message: str,
        *,
        title: str | None = None,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.type = type
        self.message = message
        self.title = title or self.title_for(type)
        self.retry_after = retry_after
        self.status = status

    @classmethod
    def title_for(cls, type: str) -> str:
        """The title of an error of this type when none is given."""
        return TITLES.get(type) or cls.default_title

    @property
    def http_status(self) -> int:
        """The status a REST reply carries for this error."""
        return HTTP_STATUS.get(self.type, 500)

    def to_dict(self) -> dict[str, str]:
        return {"type": self.type, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.type!r}, {self.message!r})"


class PromptError(CodeCompleteError, ValueError):
    """A request that cannot make a prompt.

    Types: ``unknown_style``, ``bad_style``, ``unknown_mode``, ``bad_request``, ``bad_files``,
    ``no_infill``, ``missing_suffix``, ``prompt_too_long``, ``bad_budget``."""

    default_title = "Cannot build the prompt"

    @classmethod
    def title_for(cls, type: str) -> str:
        return cls.default_title  # the prompt's own title for every type (TITLES is the model server's)


class BackendError(CodeCompleteError):
    """A model server that failed or cannot be reached, or a backend that cannot be built.

    Types: ``backend_unreachable``, ``backend_unavailable``, ``rate_limited``, ``timeout``,
    ``backend_error``, ``bad_config``, ``unknown_backend``."""

    default_title = "Model backend error"


class CompletionError(CodeCompleteError):
    """A completion handler's own refusal (``no_model``...)."""


class ModelServiceError(CodeCompleteError):
    """Why a model listing, download, test or switch was refused or failed.

    Types: ``unknown_model``, ``bad_request``, ``bad_url``, ``locked``, ``offline``,
    ``hub_unreachable``, ``not_found``, ``not_enough_disk``, ``already_downloading``, ``cancelled``,
    ``network``, ``checksum_mismatch``, ``not_gguf``, ``not_downloaded``, ``probe_failed``,
    ``not_supported``. :attr:`status` is the HTTP status of the REST reply."""

    default_title = "The model service failed"

    @property  # a computed status here: the REST reply's, by type
    def status(self) -> int:
        return self.http_status

    @status.setter
    def status(self, value: int | None) -> None:
        pass  # decided by the type


# -- the model server's answers ------------------------------------------------------------------


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    with contextlib.suppress(TypeError, ValueError, IndexError):
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    return None


def error_message(data: Any) -> str | None:
    """The error message of a provider's error body, or None when ``data`` is not an error."""
    if not isinstance(data, dict):
        return None
    err = data.get("error")
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or json.dumps(err))
    if isinstance(err, str) and err:
        return err
    if data.get("object") == "error" or ("detail" in data and "choices" not in data):
        detail = data.get("message") or data.get("detail")
        return detail if isinstance(detail, str) else json.dumps(detail)
    return None


def body_message(raw: bytes | str, reason: str = "") -> str:
    """The message of an error response's body: the provider's error field, else its text."""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    with contextlib.suppress(ValueError):
        found = error_message(json.loads(text))
        if found is not None:
            return found
    return text[:500] or reason


def status_type(status: int) -> str:
    """The error type of a model server's HTTP status (the one table every backend uses)."""
    if status == 429:
        return "rate_limited"
    if status in (502, 503, 504):
        return "backend_unavailable"
    if status == 408:
        return "timeout"
    return "backend_error"


def _no_such_route(message: str) -> bool:
    """Does a 404's message say the route is missing (a web framework's page), not the model?"""
    text = message.strip().lower()
    return "model" not in text and (not text or text.startswith("<") or "not found" in text)


def not_found_hint(url: str) -> str:
    """What to try when a model server answers 404 for ``url`` (a route it does not have)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    root = f"{parts.scheme}://{parts.netloc}"
    if path.endswith(("/infill", "/props", "/completion")):
        return (
            f"this server has no {path.rsplit('/', 1)[-1]!r} route: it is not a llama.cpp server (or its "
            "model has no FIM tokens); choose the OpenAI-compatible backend (openai) with its /v1 URL"
        )
    for route in ("/chat/completions", "/completions", "/models"):
        if path.endswith(route):
            base = path[: -len(route)]
            if not base.endswith("/v1"):
                return f"no {route} at {root}{base or ''}; did you mean {root}{base}/v1?"
            return f"no {route} at {root}{base}: is this an OpenAI-compatible server?"
    return f"nothing at {url}: check the base URL"


def from_status(
    status: int,
    message: str,
    retry_after: float | str | None = None,
    secrets: Sequence[str] = (),
    url: str | None = None,
) -> BackendError:
    """A model server's error answer (HTTP ``status``, its error message, ``Retry-After``);
    ``url``: what was asked for, so that a 404 says what to try instead."""
    if isinstance(retry_after, str):
        retry_after = parse_retry_after(retry_after)
    if status == 404 and url and _no_such_route(message):
        # the server has no such route (not: it has no such model): say what to try instead
        message = f"{'Not Found' if message.lstrip().startswith('<') else message} ({not_found_hint(url)})"
    return BackendError(
        status_type(status),
        clip(scrub(f"HTTP {status}: {message}", secrets)),
        title=f"The model server answered HTTP {status}",
        retry_after=retry_after,
        status=status,
    )


def busy(seconds: float, status: int | None = None) -> BackendError:
    """A request not sent: the model server asked for a pause (``backends/pressure.py``) that has
    ``seconds`` left. Quiet and typed (``model_busy``): the client says it once, not per keystroke."""
    wait = max(1, round(seconds))
    return BackendError(
        "model_busy",
        f"model busy, retrying in {wait} s",
        retry_after=round(seconds, 3),
        status=status,
    )


def from_response(
    status: int,
    headers: Mapping[str, str],
    body: bytes | str,
    secrets: Sequence[str] = (),
    url: str | None = None,
) -> BackendError:
    """:func:`from_status` for a whole response: message from the body, ``Retry-After`` from the headers."""
    return from_status(status, body_message(body), headers.get("retry-after"), secrets, url)


def redirected(status: int, location: str | None, secrets: Sequence[str] = ()) -> BackendError:
    """A model server that answered a redirect instead of an answer (redirects are not followed: a
    key must not travel to another address): ``backend_error``."""
    where = f" to {location[:300]}" if location else ""
    return BackendError(
        "backend_error",
        clip(
            scrub(
                f"HTTP {status}: the model server answered a redirect{where}, not a completion; "
                "redirects are not followed: set the base URL to the address that answers.",
                secrets,
            )
        ),
        title=f"The model server answered HTTP {status}",
        status=status,
    )


def unreachable(url: str | None, cause: BaseException | str, secrets: Sequence[str] = ()) -> BackendError:
    """The model server cannot be reached (connection refused, reset, unknown host)."""
    where = f" at {url}" if url else ""
    detail = cause if isinstance(cause, str) else _describe(cause)
    return BackendError(
        "backend_unreachable", clip(scrub(f"Cannot reach the model server{where}: {detail}", secrets))
    )


def timed_out(
    url: str | None, cause: BaseException | str | None = None, secrets: Sequence[str] = ()
) -> BackendError:
    """The model server did not answer in time (connect, read or the whole request)."""
    where = f" at {url}" if url else ""
    detail = f" ({cause if isinstance(cause, str) else type(cause).__name__})" if cause else ""
    return BackendError("timeout", clip(scrub(f"The model server{where} timed out{detail}.", secrets)))


def bad_answer(
    what: str = "an answer of an unexpected shape", cause: BaseException | None = None
) -> BackendError:
    """An answer that cannot be read (not JSON, or JSON of an unexpected shape): ``backend_error``."""
    detail = (
        f" ({type(cause).__name__})"
        if cause is not None and not isinstance(cause, json.JSONDecodeError)
        else ""
    )
    return BackendError(
        "backend_error",
        f"The model server sent {what}{detail}.",
        title="The model server sent an invalid answer",
    )


def reported(message: str, secrets: Sequence[str] = ()) -> BackendError:
    """An error the model server reported in a body (a 200 with an error body, an error event)."""
    return BackendError(
        "backend_error", clip(scrub(f"The model server reported an error: {message}", secrets))
    )


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    cause = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    if cause is not None and str(cause) and str(cause) not in text:
        text = f"{text} ({type(cause).__name__}: {cause})"
    return text


def _url_of(exc: BaseException) -> str | None:
    with contextlib.suppress(Exception):
        request = exc.request  # type: ignore[attr-defined]  # httpx and openai errors carry it
        return str(request.url) if request is not None else None
    return None


def as_error(exc: BaseException, secrets: Sequence[str] = ()) -> CodeCompleteError:
    """Any exception as a :class:`CodeCompleteError` (the one classifier of every path)."""
    if isinstance(exc, CodeCompleteError):
        return exc
    import httpx  # a dependency; imported here to keep this module light

    try:
        import openai
    except ImportError:  # pragma: no cover - openai is a dependency of langchain-openai
        openai = None  # type: ignore[assignment]  # the SDK branches are skipped

    if openai is not None and isinstance(exc, openai.APIStatusError):
        body: Any = exc.body
        message = error_message(body) or error_message({"error": body}) or exc.message
        return from_status(exc.status_code, str(message), exc.response.headers.get("retry-after"), secrets)
    if isinstance(exc, httpx.HTTPStatusError):
        resp = exc.response
        with contextlib.suppress(httpx.ResponseNotRead):
            return from_response(resp.status_code, resp.headers, resp.content, secrets)
        return from_status(resp.status_code, resp.reason_phrase, resp.headers.get("retry-after"), secrets)
    if openai is not None and isinstance(exc, openai.APITimeoutError):
        return timed_out(_url_of(exc), exc.__cause__ or exc, secrets)
    if isinstance(exc, httpx.TimeoutException):
        return timed_out(_url_of(exc), exc, secrets)
    if isinstance(exc, TimeoutError):
        return BackendError("timeout", str(exc) or "Timed out.")
    if openai is not None and isinstance(exc, openai.APIConnectionError):
        cause: BaseException = exc  # langchain-openai wraps the SDK's error, which wraps httpx's
        while isinstance(cause, openai.APIConnectionError) and (cause.__cause__ or cause.__context__):
            cause = cause.__cause__ or cause.__context__ or cause
        return unreachable(_url_of(exc), cause, secrets)
    if isinstance(exc, httpx.RemoteProtocolError):
        return BackendError(
            "backend_error", clip(scrub(f"The model server closed the stream: {exc}", secrets))
        )
    if isinstance(exc, httpx.TransportError | ConnectionError):
        return unreachable(_url_of(exc), exc, secrets)
    if isinstance(exc, json.JSONDecodeError):
        return bad_answer("an answer that is not JSON")
    if isinstance(exc, ValueError) and "No generation chunks" in str(exc):
        return BackendError(
            "backend_error",
            "The response had no completion text (an empty stream, or an error body with HTTP 200).",
            title="The model server returned no completion",
        )
    if openai is not None and isinstance(exc, openai.APIError):
        return reported(exc.message, secrets)
    if isinstance(exc, OSError):
        return unreachable(None, exc, secrets)
    return CodeCompleteError(
        "internal_error", clip(scrub(f"{type(exc).__name__}: {exc}", secrets)), title="Completion failed"
    )


def validation_message(exc: Any) -> str:
    """A pydantic ``ValidationError`` for people: where and what, never the rejected value (it may
    be a key)."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "message"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


# The texts of a refused message, the same on the websocket and on every REST route (``what``:
# "message" or "body").


def too_large_message(what: str, size: int, limit: int) -> str:
    return f"The {what} has {size} bytes; the limit is {limit} bytes (c.CodeCompleteApp.max_message_bytes)."


def not_json_message(what: str, exc: Exception) -> str:
    return f"The {what} is not valid JSON: {exc}"


def too_deep_message(limit: int) -> str:
    return f"The message is nested too deeply (the limit is {limit} levels of lists and objects)."


# -- secrets -------------------------------------------------------------------------------------

# Messages are cut to this many characters (a model server may answer a whole page).
MAX_MESSAGE_CHARS = 2000


def clip(text: str) -> str:
    return text[:MAX_MESSAGE_CHARS]


def scrub(text: str, secrets: Sequence[str]) -> str:
    """Replace every secret in ``text`` with ``***`` (longest first, so a key inside a header goes too)."""
    for s in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(s, "***")
    return text


class StreamScrubber:
    """:func:`scrub` for a stream of deltas: a secret split across two deltas is still replaced.

    It holds back the end of the text while that end could be the start of a secret (at most the
    longest secret's length minus one characters)."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._held = ""

    def feed(self, text: str) -> str:
        if not self.secrets:
            return text
        buf = scrub(self._held + text, self.secrets)
        hold = 0
        for s in self.secrets:
            start = max(0, len(buf) - len(s) + 1)
            i = buf.find(s[0], start)
            while i != -1:
                if s.startswith(buf[i:]):
                    hold = max(hold, len(buf) - i)
                    break
                i = buf.find(s[0], i + 1)
        self._held = buf[len(buf) - hold :] if hold else ""
        return buf[: len(buf) - hold]

    def finish(self) -> str:
        held, self._held = self._held, ""
        return held


class SecretFilter(logging.Filter):
    """A logging filter that scrubs secrets from every record of a logger: the message, its
    arguments and a formatted traceback (a model server's error text may quote a key).

    ``secrets`` is called for each record, so keys configured or switched later are covered too."""

    def __init__(self, secrets: Callable[[], Sequence[str]]) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            found = [s for s in self.secrets() if s]
        except Exception:  # never lose a log line over this
            return True
        if not found:
            return True
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        clean = scrub(message, found)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_text:
            text = scrub(record.exc_text, found)
            if text != record.exc_text:
                record.exc_text, record.exc_info = text, None
        return True


__all__ = [
    "HTTP_STATUS",
    "TITLES",
    "BackendError",
    "CodeCompleteError",
    "CompletionError",
    "ModelServiceError",
    "PromptError",
    "SecretFilter",
    "StreamScrubber",
    "as_error",
    "bad_answer",
    "body_message",
    "busy",
    "error_message",
    "from_response",
    "from_status",
    "not_found_hint",
    "parse_retry_after",
    "reported",
    "scrub",
    "status_type",
    "timed_out",
    "unreachable",
    "validation_message",
]
