"""Provider quirks as data: what a server gets wrong, declared per backend kind and per server.

A :class:`Quirks` record is resolved for each model from three layers: the defaults of its backend
kind (its class's ``quirk_defaults``, :class:`~.base.Backend`), the server software named by
``ModelConfig.server`` (:data:`SERVER_QUIRKS`), and the model's own ``ModelConfig.quirks``
overrides. The backends read the record; none of them branches on a server's name.

:class:`QuirkFilter` repairs the text stream (literal ``\\n``, an echoed prompt, a stray leading
space); the fields a server rejects are learned at runtime (:class:`FieldMemory`).
"""

from __future__ import annotations

import threading
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from .kinds import kind_attribute


class Quirks(BaseModel):
    """What to work around for one model endpoint."""

    model_config = ConfigDict(extra="forbid")

    # The server sends the two characters ``\\`` ``n`` where the model meant a newline (seen with
    # Ollama). "auto": unescape outside string literals until the first real newline shows up.
    literal_newlines: bool | Literal["auto"] = False
    # The model repeats the prompt before its completion: drop it.
    strip_echo: bool = True
    # The server adds one space before the completion (SentencePiece detokenizers): drop it when
    # the text before the cursor already ends with whitespace.
    leading_space: bool = False
    # False: the endpoint's native ``suffix`` field is broken or missing, so fill-in-the-middle goes
    # through the prompt style's tokens. None: the backend's own default.
    native_suffix: bool | None = None
    # Request fields never to send (the server rejects them); more are learned from 400 replies.
    unsupported_fields: list[str] = Field(default_factory=list)
    # Learn rejected optional fields from a 400 reply and retry once without them.
    retry_without_rejected: bool = True
    # Optional fields that may be dropped on a rejection (never the prompt or the model).
    optional_fields: list[str] = Field(
        default_factory=lambda: [
            "suffix",
            "stop",
            "top_p",
            "keep_alive",
            "n_indent",
            "t_max_predict_ms",
            "cache_prompt",
            "input_extra",
            "max_completion_tokens",
            "stream_options",
        ]
    )
    notes: str = ""


# Declared quirks by server software (``ModelConfig.server``).
SERVER_QUIRKS: dict[str, dict[str, Any]] = {
    "llama-cpp-python": {
        "native_suffix": False,
        "notes": "llama-cpp-python 0.3.x: the /v1/completions `suffix` field builds the FIM prompt with "
        "token ids hard-coded to 0, so infill goes through the prompt style's FIM tokens instead.",
    },
    "ollama": {"literal_newlines": "auto"},
    "tgi": {"leading_space": True, "notes": "TGI's OpenAI route may start the text with a space."},
    "llama.cpp": {},
    "vllm": {},
    "lmstudio": {"unsupported_fields": ["suffix"]},
    "litellm": {},
}


def resolve_quirks(kind: str, server: str | None, overrides: dict[str, Any] | None = None) -> Quirks:
    """The quirks of a model of backend ``kind`` on ``server`` software, with the config's overrides."""
    data: dict[str, Any] = {}
    data.update(kind_attribute(kind, "quirk_defaults", None) or {})
    if server:
        data.update(SERVER_QUIRKS.get(server.lower(), {}))
    data.update(overrides or {})
    return Quirks.model_validate(data)


class FieldMemory:
    """Request fields a server rejected: dropped from every later request to it (thread-safe)."""

    def __init__(self, quirks: Quirks) -> None:
        self._lock = threading.Lock()
        self._dropped: set[str] = set(quirks.unsupported_fields)
        self._quirks = quirks

    @property
    def dropped(self) -> set[str]:
        with self._lock:
            return set(self._dropped)

    def apply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            return {k: v for k, v in body.items() if k not in self._dropped}

    def learn(self, body: dict[str, Any], message: str) -> str | None:
        """The optional field of ``body`` that ``message`` (a 400 reply) rejects, remembered; or None."""
        if not self._quirks.retry_without_rejected:
            return None
        text = message.lower()
        for name in self._quirks.optional_fields:
            if name in body and _mentions(text, name):
                with self._lock:
                    self._dropped.add(name)
                return name
        return None


def _mentions(text: str, name: str) -> bool:
    import re

    return re.search(r"(?<![a-z0-9_])" + re.escape(name.lower()) + r"(?![a-z0-9_])", text) is not None


_QUOTES = "\"'`"


class QuirkFilter:
    """Repairs a streamed completion: ``feed(chunk) -> text``, then ``finish() -> text``.

    ``prompt`` is what the model was given; ``before_cursor`` the text right before the cursor
    when known (the prompt itself for plain and native-suffix prompts).
    """

    def __init__(self, quirks: Quirks, prompt: str = "", before_cursor: str | None = None) -> None:
        self.q = quirks
        self.prompt = prompt
        self.before_cursor = before_cursor
        self._echo_pending = bool(quirks.strip_echo and len(prompt) >= 8)
        self._echo_buf = ""
        self._started = False
        self._newlines = quirks.literal_newlines
        self._quote: str | None = None  # the open string literal on the current line
        self._escape = False
        self._held = ""  # a trailing backslash waiting for its next character

    # -- stages
    def _strip_echo(self, text: str) -> str:
        if not self._echo_pending:
            return text
        self._echo_buf += text
        buf = self._echo_buf
        if len(buf) < len(self.prompt):
            if self.prompt.startswith(buf):
                return ""  # could still be an echo: hold
            self._echo_pending = False
            self._echo_buf = ""
            return buf
        self._echo_pending = False
        self._echo_buf = ""
        return buf[len(self.prompt) :] if buf.startswith(self.prompt) else buf

    def _strip_leading_space(self, text: str) -> str:
        if self._started or not text:
            return text
        self._started = True
        if self.q.leading_space and text.startswith(" ") and self.before_cursor is not None:
            if self.before_cursor[-1:] in (" ", "\t", "\n"):
                return text[1:]
        return text

    def _unescape(self, text: str) -> str:
        if not self._newlines:
            return text
        text = self._held + text
        self._held = ""
        out: list[str] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\n":
                self._quote, self._escape = None, False
                if self._newlines == "auto":  # the model writes real newlines: nothing to repair
                    self._newlines = False
                    out.append(text[i:])
                    return "".join(out)
                out.append(ch)
            elif self._quote is not None:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == self._quote:
                    self._quote = None
                out.append(ch)
            elif ch in _QUOTES:
                self._quote = ch
                out.append(ch)
            elif ch == "\\":
                if i + 1 >= len(text):
                    self._held = ch
                    break
                nxt = text[i + 1]
                if nxt == "n":
                    out.append("\n")
                    i += 1
                elif nxt == "t":
                    out.append("\t")
                    i += 1
                else:
                    out.append(ch)
            else:
                out.append(ch)
            i += 1
        return "".join(out)

    # -- interface
    def feed(self, text: str) -> str:
        text = self._strip_echo(text)
        if not text:
            return ""
        return self._unescape(self._strip_leading_space(text))

    def finish(self) -> str:
        tail = ""
        if self._echo_pending and self._echo_buf:
            tail = self._echo_buf if self._echo_buf != self.prompt else ""
            self._echo_pending = False
            self._echo_buf = ""
            tail = self._unescape(self._strip_leading_space(tail)) if tail else ""
        held, self._held = self._held, ""
        return tail + held


class QuirkState(BaseModel):
    """What a backend's LangChain model carries about its server (a mixin of those models): the
    declared quirks, the secrets to scrub from errors, the fields the server was seen to reject,
    and the model name it reported in its last answer."""

    quirks: Quirks = Field(default_factory=Quirks)
    secrets: list[str] = Field(default_factory=list, exclude=True, repr=False)
    _memory: FieldMemory | None = PrivateAttr(default=None)
    _answered: str | None = PrivateAttr(default=None)

    @property
    def memory(self) -> FieldMemory:
        if self._memory is None:
            self._memory = FieldMemory(self.quirks)
        return self._memory

    @property
    def answered_model(self) -> str | None:
        """The model name the server put in its last answer."""
        return self._answered
