"""The REST replies, typed: one pydantic model for the body of every ``200`` (and ``202``) answer of
``api/codecomplete/...``, the websocket's messages aside (``protocol.py``).

The producers below the web layer (the model service, the usage store's summaries, the check)
build plain data; each handler passes it through :func:`reply` with the model of its route, which
validates it (a field that is not in the model, or one of the wrong type, fails there: the tests
through a running server catch a drift at once) and serializes it with every field present. The
OpenAPI document (``openapi.py``) is generated from these models, and ``tests/test_wire_types.py``
checks the browser's TypeScript interfaces against them.

"Which model serves" has one shape everywhere: :class:`~jupyter_codecomplete.protocol.ServingModel`
(the websocket's replies, the model list, a switch, the edit model, the prompt preview).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from ..backends import Locality
from ..models_service import ModelEntry
from ..prompting import PromptStyle
from ..protocol import ErrorInfo, ServingModel


class _Reply(BaseModel):
    # every field is always sent (a default too): the schema says so
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


Reply = TypeVar("Reply", bound=BaseModel)


def reply(model: type[Reply], data: Any) -> dict[str, Any]:
    """``data`` (a dict, or a model instance) checked against the route's reply model, as JSON data."""
    found = data if isinstance(data, model) else model.model_validate(data)
    return found.model_dump(mode="json")


# -- errors -------------------------------------------------------------------------------------------


class ErrorBody(_Reply):
    """Every error answer (4xx, 5xx): ``{"error": ErrorInfo}``."""

    error: ErrorInfo


# -- the model service: api/codecomplete/models/... -------------------------------------------------


class DownloadError(_Reply):
    type: str
    message: str


class DownloadProgress(_Reply):
    """One download of a catalogue model (``models/downloads``; each server-sent event of
    ``models/downloads/{id}?stream=1``)."""

    id: str
    state: Literal["running", "verifying", "done", "failed", "cancelled"]
    done: int
    total: int | None
    fraction: float | None
    bytes_per_s: float | None
    # where this pull started: bytes kept from an earlier one
    resumed_from: int
    path: str | None
    error: DownloadError | None
    # said while it runs and after (a 503 resumed by itself; a body cut at its announced size)
    notice: str | None
    # it failed with bytes kept: the next pull resumes from them
    resumable: bool


class DownloadList(_Reply):
    downloads: list[DownloadProgress]


class EngineInstall(_Reply):
    """The background install of the llama.cpp engine (``models/engine``)."""

    state: Literal["idle", "running", "done", "failed", "cancelled"]
    installed: bool
    requirement: str
    cost: str
    seconds: float | None
    progress: float | None
    returncode: int | None
    last_line: str | None
    log: list[str]


class ModelPolicy(_Reply):
    """What the administrator allows the user to choose."""

    allow_user_choice: bool
    allow_downloads: bool
    allowed_backends: list[str]
    allowed_hosts: list[str]
    allowed_catalogue: list[str]


class ModelListing(_Reply):
    """``GET models/choices``: every model one can use, which serves, the policy, the downloads."""

    entries: list[ModelEntry]
    # the entry that serves now (in a running server; the saved choice otherwise)
    active: str | None
    # the saved choice: applies at the next start
    saved: str | None
    serving: ServingModel | None
    # the entry that serves edit predictions (null: the administrator's model serves them)
    edit_active: str | None
    edit_saved: str | None
    # the model that serves edit predictions now, and the format it is asked in
    edit_serving: ServingModel | None
    policy: ModelPolicy
    # the backend kinds the Custom form offers (each kind declares it: ``Backend.custom_form``)
    custom_backends: list[str]
    models_dir: str
    offline_hint: str
    downloads: list[DownloadProgress]
    # what is wrong with the user's saved store (the server's own messages)
    warnings: list[str]


class FimReport(_Reply):
    """How the middle is filled: the style's FIM tokens, the backend's suffix field, or (a chat
    model) the instructions; ``reported``: what the server itself says of its suffix field."""

    style_tokens: bool
    native_suffix: bool
    chat: bool
    reported: bool | None


class ProbeReport(_Reply):
    """The ``jupyter codecomplete check`` report of one model. A field the check did not reach is
    null (a model whose backend could not be built has only its name, backend, URL and error)."""

    name: str
    backend: str
    base_url: str | None = None
    model: str | None = None
    ok: bool
    error: str | None = None
    # it answered, but not well enough to call it OK (it wrote nothing for the sample)
    warning: str | None = None
    locality: Locality | None = None
    shared: bool | None = None
    privacy: str | None = None
    warm: bool | None = None
    reachable: bool | None = None
    # the model the server says it serves
    serves: str | None = None
    style: str | None = None
    fim: FimReport | None = None
    fim_supported: bool | None = None
    first_token_s: float | None = None
    tokens: int | None = None
    tokens_per_s: float | None = None
    sample: str | None = None


class TestReply(_Reply):
    """``POST models/test``."""

    __test__ = False  # not a pytest class

    report: ProbeReport


class UseReply(_Reply):
    """``POST models/use`` with role ``completion``."""

    active: str
    serving: ServingModel
    report: ProbeReport


class EditUseReply(_Reply):
    """``POST models/use`` with role ``edit``."""

    edit_active: str
    edit_serving: ServingModel
    report: ProbeReport


class CustomSaved(_Reply):
    """``PUT models/custom``: the saved endpoint's row."""

    entry: ModelEntry | None


# -- usage: api/codecomplete/usage ------------------------------------------------------------------


class UsageGroup(_Reply):
    """One group of the summary: everything, or one model, trigger, language, line kind, accept
    kind, next-edit format (``style``) or day (with its ``model``): the field that names the group."""

    model: str | None = None
    trigger: str | None = None
    language: str | None = None
    line_kind: str | None = None
    accept_kind: str | None = None
    style: str | None = None
    day: str | None = None
    shown: int
    accepted: int
    typed_through: int
    dismissed: int
    ignored: int
    accept_rate: float | None
    shown_chars: int
    accepted_chars: int
    kept_30s_chars: int
    kept_5m_chars: int
    kept_chars: int
    # kept figures counted when their document closed before the 30 s window: how many, their chars
    kept_at_close: int
    kept_at_close_chars: int
    kept_ratio: float | None
    editing_hours: float
    kept_per_hour: float | None
    latency_p50_ms: float | None
    latency_p90_ms: float | None


class LatencyBin(_Reply):
    """One bar of the time-to-show histogram: a model's suggestions in ``[low_ms, high_ms)``."""

    model: str
    bin: str
    order: int
    low_ms: int
    high_ms: int | None
    count: int


class RestraintPreview(_Reply):
    """One restraint level replayed on the stored suggestions (``usage/preview.py``)."""

    level: str
    verb: Literal["skips", "holds"]
    events: int
    min_events: int
    shown: int
    kept_chars: int
    affected_shown: int
    affected_kept_chars: int
    lost_kept_chars: int
    shown_ratio: float | None
    kept_ratio: float | None


class UsageSummary(_Reply):
    """``GET usage``: where the store is, and what became of the suggestions shown."""

    recording: bool
    path: str | None
    problem: str | None
    generated_at: float
    total: UsageGroup
    first_shown_at: float | None
    last_shown_at: float | None
    by_model: list[UsageGroup]
    by_trigger: list[UsageGroup]
    by_language: list[UsageGroup]
    by_line_kind: list[UsageGroup]
    by_edit_format: list[UsageGroup]
    by_accept_kind: list[UsageGroup]
    latency_histogram: list[LatencyBin]
    per_day: list[UsageGroup]
    # the user's pause before taking a suggestion, by line kind (ms)
    accept_pauses: dict[str, float]
    restraint: list[RestraintPreview]


class GateThresholds(_Reply):
    useful: float
    kept: float


class GateRhythm(_Reply):
    """A rhythm bin: a mean interval between keystrokes below ``below_ms`` (null: no bound)."""

    name: str
    below_ms: float | None


class GateSkip(_Reply):
    trigger: str
    line_kind: str
    rhythm: str


class GatePlace(_Reply):
    trigger: str
    line_kind: str
    shown: int
    wasted: int
    wasted_share: float
    kept_chars: int
    kept_per_suggestion: float


class GateCell(_Reply):
    trigger: str
    line_kind: str
    rhythm: str
    shown: int
    useful: float
    kept_per_suggestion: float
    skip: bool


class GateModel(_Reply):
    """``GET usage/gate``: where automatic requests are held or skipped, learned from the events."""

    level: str
    active: bool
    events: int
    min_events: int
    overall: float
    useful_rate: float | None
    thresholds: GateThresholds
    rhythms: list[GateRhythm]
    skip: list[GateSkip]
    hold: bool
    pauses: dict[str, float]
    after_dismissal: bool
    places: list[GatePlace]
    cells: list[GateCell]


# -- the engine: api/codecomplete/prompt, completions, models, styles ---------------------------


class ExcludedPath(_Reply):
    path: str
    reason: str


class PrivacyReport(_Reply):
    """What the privacy gate did to one request: secrets redacted (count by kind), context left
    out (excluded documents), channels held back."""

    redacted: dict[str, int]
    excluded: list[ExcludedPath]
    held_back: list[str]


class PromptPreview(_Reply):
    """``POST prompt``: the prompt, stops, style and model a request would use (nothing is sent)."""

    prompt: str
    suffix: str | None
    # a chat model's messages (``role``, ``content``), else null
    messages: list[dict[str, str]] | None
    stop: list[str]
    style: str
    mode: Literal["completion", "infill", "repository", "repository_infill", "chat"]
    # the start of the cursor's token, taken back for the model to write again (token healing)
    heal: str
    notes: list[str]
    privacy: PrivacyReport | None
    prompt_tokens: int | None
    max_tokens: int
    model: ServingModel


class TextChoice(_Reply):
    index: int
    text: str
    finish_reason: Literal["stop", "length"] | None
    logprobs: None


class TextCompletion(_Reply):
    """``POST completions``: OpenAI's ``text_completion`` (each server-sent event of a stream is
    one, without ``prompt``, ``style`` and ``notes``)."""

    id: str
    object: Literal["text_completion"]
    created: int
    model: str
    choices: list[TextChoice]
    prompt: str | None = None
    style: str | None = None
    notes: list[str] | None = None


class Capabilities(_Reply):
    infill: bool
    repository: bool
    streaming: bool
    chat: bool


class ConfiguredModel(_Reply):
    """One configured model of ``GET models``: its route key (``name``), what serves it, or the
    error that keeps it from serving."""

    name: str
    model: str | None
    backend: str
    style: str | None = None
    demo: bool | None = None
    capabilities: Capabilities | None = None
    reported: str | None = None
    error: ErrorInfo | None = None


class ModelsReply(_Reply):
    """``GET models``: the configured models, the default one, and the per-language routes."""

    default: ServingModel | None
    models: list[ConfiguredModel]
    routes: dict[str, str]


class StylesReply(_Reply):
    """``GET styles``: the built-in and the user's prompt styles."""

    styles: list[PromptStyle]


class ServerStats(_Reply):
    """``GET stats``: the server process's own health (event-loop lag, collections, memory), for
    benchmarks and diagnosis."""

    tasks: int
    codecomplete_tasks: int
    max_loop_lag_ms: float | None
    p50_loop_lag_ms: float | None
    p99_loop_lag_ms: float | None
    worst_lag_cpu_ms: float | None
    max_gc_pause_ms: float | None
    gc_passes: list[int] | None
    gc_max_pause_ms: list[float] | None
    gc_max_pause_collected: list[int] | None
    gc_tracked_objects: int | None
    lag_samples: int
    deferred_full_collections: dict[str, float] | None
    rss_bytes: int | None
    max_rss_bytes: int
