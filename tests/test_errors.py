"""The errors module: one tree, one constructor, one status table, one scrubber; and the one place
``native_suffix`` is decided (a style's ``native_suffix: false`` wins)."""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_codecomplete import errors
from jupyter_codecomplete.backends import BackendError, Description, ModelConfig, make_backend, native_suffix
from jupyter_codecomplete.completion import CompletionError, DefaultInlineCompletionHandler
from jupyter_codecomplete.models_service import ModelServiceError
from jupyter_codecomplete.prompting import PromptError, StyleRegistry
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing import MistralUpstream, UpstreamConfig

KEY = "sk-test-secret-1234"


@pytest.mark.parametrize("cls", [BackendError, PromptError, CompletionError, ModelServiceError])
def test_every_exception_is_in_the_one_tree_with_one_constructor(cls: type[errors.CodeCompleteError]) -> None:
    assert issubclass(cls, errors.CodeCompleteError) and cls.__module__ == "jupyter_codecomplete.errors"
    exc = cls("some_type", "a message", title="A title", retry_after=2.0)
    assert (exc.type, exc.message, str(exc), exc.title, exc.retry_after) == (
        "some_type",
        "a message",
        "a message",
        "A title",
        2.0,
    )


def test_prompt_error_is_a_value_error_and_the_model_service_status_comes_from_its_type() -> None:
    assert isinstance(PromptError("bad_request", "x"), ValueError)
    assert ModelServiceError("not_found", "x").status == 404
    assert ModelServiceError("offline", "x").to_dict() == {"type": "offline", "message": "x"}


# One row per status: the table every backend uses.
@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "backend_error"),
        (401, "backend_error"),
        (403, "backend_error"),
        (404, "backend_error"),
        (408, "timeout"),
        (422, "backend_error"),
        (429, "rate_limited"),
        (500, "backend_error"),
        (502, "backend_unavailable"),
        (503, "backend_unavailable"),
        (504, "backend_unavailable"),
    ],
)
def test_status_table(status: int, kind: str) -> None:
    err = errors.from_status(status, "nope", "5")
    assert isinstance(err, BackendError)
    assert (err.type, err.retry_after, err.status) == (kind, 5.0, status)
    assert err.message == f"HTTP {status}: nope" and err.title == f"The model server answered HTTP {status}"


@pytest.mark.parametrize(
    ("value", "expected"), [(None, None), ("", None), ("7", 7.0), ("1.5", 1.5), ("-3", 0.0), ("soon", None)]
)
def test_retry_after_seconds(value: str | None, expected: float | None) -> None:
    assert errors.parse_retry_after(value) == expected


def test_retry_after_http_date(monkeypatch: pytest.MonkeyPatch) -> None:
    now = 1_800_000_000.0  # a fixed clock: the date is exactly two minutes ahead
    monkeypatch.setattr(errors.time, "time", lambda: now)
    assert errors.parse_retry_after(email.utils.formatdate(now + 120, usegmt=True)) == 120.0
    assert errors.parse_retry_after(email.utils.formatdate(now - 60, usegmt=True)) == 0.0  # past


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": {"message": "m1", "type": "t"}}, "m1"),
        ({"error": "m2"}, "m2"),
        ({"object": "error", "message": "m3"}, "m3"),
        ({"detail": "m4"}, "m4"),
        ({"choices": [{"text": "ok"}]}, None),
    ],
)
def test_error_bodies(body: dict[str, Any], message: str | None) -> None:
    assert errors.error_message(body) == message


def test_scrub_replaces_the_longest_secret_first() -> None:
    header = f"Bearer {KEY}"
    assert errors.scrub(f"sent {header} and {KEY}", [KEY, header]) == "sent *** and ***"


def test_stream_scrubber_catches_a_secret_split_across_deltas() -> None:
    s = errors.StreamScrubber([KEY])
    out = s.feed("key = 'sk-test-") + s.feed("secret-1234' # done") + s.finish()
    assert out == "key = '***' # done"


def test_unknown_exceptions_are_internal_errors_with_secrets_scrubbed() -> None:
    err = errors.as_error(RuntimeError(f"boom {KEY}"), [KEY])
    assert (err.type, err.message) == ("internal_error", "RuntimeError: boom ***")


def test_an_unknown_backend_names_the_known_ones() -> None:
    with pytest.raises(BackendError) as e:
        make_backend(ModelConfig(backend="nope"))
    assert e.value.type == "unknown_backend" and "openai-chat" in e.value.message


# -- native_suffix: decided in one place, style first --------------------------------------------


def _mistral(**extra: Any) -> Any:
    return make_backend(ModelConfig.model_validate({"backend": "mistral", "api_key": KEY, **extra}))


@pytest.mark.parametrize(
    ("config", "style", "described", "expected"),
    [
        ({}, None, None, True),  # the kind's default (Mistral FIM takes `suffix`)
        ({}, {"native_suffix": False}, None, False),  # a style's `false` wins...
        ({"options": {"native_suffix": True}}, {"native_suffix": False}, None, False),  # ...over all
        ({"options": {"native_suffix": False}}, None, None, False),
        ({"quirks": {"native_suffix": False}}, None, None, False),
        ({"quirks": {"unsupported_fields": ["suffix"]}}, None, None, False),
        ({"quirks": {"native_suffix": False}, "options": {"native_suffix": True}}, None, None, False),
        ({"backend": "ollama"}, None, None, False),  # not known before asking the server
        ({"backend": "ollama"}, None, Description(native_suffix=True), True),
        (
            {"backend": "ollama", "options": {"native_suffix": False}},
            None,
            Description(native_suffix=True),
            False,
        ),
        ({"backend": "openai"}, None, None, False),
        ({"backend": "openai", "options": {"native_suffix": True}}, None, None, True),
        (
            {"backend": "openai", "server": "llama-cpp-python", "options": {"native_suffix": True}},
            None,
            None,
            False,
        ),
        ({"backend": "openai-chat", "options": {"native_suffix": True}}, None, None, False),  # chat: never
        ({"backend": "llamacpp"}, {"fim": {"prefix": "<P>", "suffix": "<S>", "middle": "<M>"}}, None, True),
        # llama.cpp's /infill writes prefix-first prompts only: a suffix-first style goes to /completion
        ({"backend": "llamacpp"}, {"extends": "codestral"}, None, False),
    ],
)
def test_native_suffix_decision(
    config: dict[str, Any], style: dict[str, Any] | None, described: Description | None, expected: bool
) -> None:
    backend = _mistral(**config)
    chosen = StyleRegistry({"s": style}).get("s") if style is not None else None
    assert native_suffix(backend, chosen, described) is expected


@pytest.fixture
def mistral_up() -> Iterator[MistralUpstream]:
    up = MistralUpstream(UpstreamConfig(model="codestral-latest"), api_key=KEY)
    up.set_rules([], default="b)\n")
    up.start()
    yield up
    up.stop()


@pytest.mark.parametrize("style_override", [None, {"native_suffix": False}])
async def test_a_styles_native_suffix_false_wins_over_the_backend(
    mistral_up: MistralUpstream, style_override: dict[str, Any] | None
) -> None:
    model = {
        "backend": "mistral",
        "base_url": mistral_up.base_url,
        "model": "codestral-latest",
        "api_key": KEY,
    }
    styles = StyleRegistry({"codestral": style_override} if style_override else None)
    handler = DefaultInlineCompletionHandler(settings={"models": {"completion": model}, "styles": styles})
    request = InlineCompletionRequest(
        number=1,
        path="a.py",
        language="python",
        prefix="def f(a, b):\n    return f(a, ",
        suffix="\n\nprint(f(1, 2))\n",
    )
    reply = await handler.handle_request(request)
    await handler.close()
    assert reply.error is None
    body = mistral_up.last().body
    if style_override is None:  # the endpoint's own suffix field
        assert body["suffix"] == "\n\nprint(f(1, 2))\n" and "[SUFFIX]" not in body["prompt"]
    else:  # the style's FIM tokens in the prompt, no suffix field
        assert "suffix" not in body and body["prompt"].startswith("[SUFFIX]")


def test_secret_filter_scrubs_log_messages_arguments_and_tracebacks() -> None:
    import logging

    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    logger = logging.getLogger("codecomplete-test-secret-filter")
    logger.propagate = False
    logger.addHandler(Keep())
    logger.addFilter(errors.SecretFilter(lambda: [KEY]))
    logger.warning("key %s in an argument", KEY)
    try:
        raise RuntimeError(f"the server said: bad key {KEY}")
    except RuntimeError:
        logger.exception("request failed")
    assert len(records) == 2 and all(KEY not in r for r in records)
    assert "key *** in an argument" in records[0] and "bad key ***" in records[1]
