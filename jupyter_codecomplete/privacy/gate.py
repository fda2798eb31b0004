"""The one gate every request's context passes before a prompt is built: exclusion by path, then
the model's channel policy, then redaction (:class:`Gate`).

The engine calls it for every request kind: completions, warm-ups, REST and ``eval`` through
``prepare`` (:meth:`Gate.prompt_request`), edit predictions and the fix after an error through
:meth:`Gate.edit_request`, whose answer's edits are mapped back to the user's text
(:meth:`GuardedEdit.restore`).

Channels (:data:`CHANNELS`) are the context a request may carry besides the document's own text:
``outputs`` (what code cells printed or returned), ``tracebacks`` (error outputs, and the traceback
of an error fix), ``kernel`` (what the kernel completes at the cursor), ``edit_history`` (the
user's recent edits) and ``files`` (other open documents). Each model allows or holds back each
one (its config's ``context``); an administrator can forbid one for every model
(``c.CodeCompleteApp.forbid_context``). Redaction is on for every model; only a model on this
machine (a fact its backend states) may be configured with ``redact: false``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..prompting import PromptRequest
from ..protocol import (
    CellError,
    CellOutput,
    ContextCell,
    ContextFile,
    EditPredictionReply,
    EditPredictionRequest,
    EditRegion,
    KernelCandidates,
    RecentEdit,
    TextEdit,
)
from .exclude import Excluded, Exclusions
from .redact import OffsetMap, Redaction, Redactor

CHANNELS: tuple[str, ...] = ("outputs", "tracebacks", "kernel", "edit_history", "files")


@dataclass(frozen=True)
class ChannelPolicy:
    """What one model may be sent: ``channels`` allowed, and whether its context is redacted."""

    channels: frozenset[str] = frozenset(CHANNELS)
    redact: bool = True

    def allows(self, channel: str) -> bool:
        return channel in self.channels

    def describe(self) -> str:
        held = [c for c in CHANNELS if c not in self.channels]
        sent = ", ".join(c for c in CHANNELS if c in self.channels) or "none"
        out = f"context sent: {sent}"
        if held:
            out += f"; held back: {', '.join(held)}"
        return out + ("; secrets redacted" if self.redact else "; redaction off (a model on this machine)")


def channel_policy(
    context: Mapping[str, bool] | None, redact: bool | None, local: bool, forbidden: Sequence[str] = ()
) -> ChannelPolicy:
    """A model's policy: its config's ``context`` (channel → allowed; unnamed channels are allowed)
    less what the administrator forbids; ``redact: false`` is honoured only for a ``local`` model."""
    allowed = {c for c in CHANNELS if (context or {}).get(c, True)} - set(forbidden)
    return ChannelPolicy(frozenset(allowed), redact=not (redact is False and local))


@dataclass
class GateReport:
    """What the gate did to one request's context: for the prompt preview and the notes."""

    redacted: dict[str, int] = field(default_factory=dict)
    excluded: list[Excluded] = field(default_factory=list)
    held_back: list[str] = field(default_factory=list)

    def notes(self) -> list[str]:
        out: list[str] = []
        if self.redacted:
            kinds = ", ".join(f"{k} × {n}" if n > 1 else k for k, n in sorted(self.redacted.items()))
            out.append(f"redacted {sum(self.redacted.values())} secret(s): {kinds}")
        for e in self.excluded:
            out.append(f"left out {e.path}: {e.reason}")
        if self.held_back:
            out.append(f"held back for this model: {', '.join(self.held_back)}")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "redacted": dict(self.redacted),
            "excluded": [{"path": e.path, "reason": e.reason} for e in self.excluded],
            "held_back": list(self.held_back),
        }


class _Scope:
    """One request's pass through the gate: its redaction (one placeholder per value) and report."""

    def __init__(self, redaction: Redaction | None, policy: ChannelPolicy, gate: Gate) -> None:
        self.redaction = redaction
        self.policy = policy
        self.gate = gate
        self.report = GateReport()

    def text(self, text: str) -> str:
        return self.redaction.redact(text) if self.redaction is not None and text else text

    def mapped(self, text: str) -> tuple[str, OffsetMap]:
        if self.redaction is None or not text:
            return text, OffsetMap()
        return self.redaction.redact_with_map(text)

    def allow(self, channel: str, present: bool) -> bool:
        if self.policy.allows(channel):
            return True
        if present and channel not in self.report.held_back:
            self.report.held_back.append(channel)
        return False

    def context_path(self, path: str | None) -> bool:
        """May a context item from ``path`` be sent? (Excluded ones are reported.)"""
        found = self.gate.exclusions.check(path, context=True)
        if found is None:
            return True
        if all(e.path != found.path for e in self.report.excluded):
            self.report.excluded.append(found)
        return False

    def outputs(self, outputs: Sequence[CellOutput]) -> list[CellOutput]:
        out: list[CellOutput] = []
        for o in outputs:
            channel = "tracebacks" if o.output_type == "error" else "outputs"
            if self.allow(channel, True):
                out.append(o.model_copy(update={"text": self.text(o.text)}) if o.text else o)
        return out

    def cell(self, cell: ContextCell, source: str | None = None) -> ContextCell:
        return cell.model_copy(
            update={
                "source": self.text(cell.source) if source is None else source,
                "outputs": self.outputs(cell.outputs),
            }
        )

    def kernel(self, candidates: KernelCandidates | None) -> KernelCandidates | None:
        if candidates is None or not self.allow("kernel", True):
            return None
        items = [i.model_copy(update={"text": self.text(i.text)}) for i in candidates.items]
        return candidates.model_copy(update={"expression": self.text(candidates.expression), "items": items})

    def files(self, files: Mapping[str, str]) -> dict[str, str]:
        if not files or not self.allow("files", True):
            return {}
        return {p: self.text(c) for p, c in files.items() if self.context_path(p)}

    def context_files(self, files: Sequence[ContextFile]) -> list[ContextFile]:
        if not files or not self.allow("files", True):
            return []
        return [
            f.model_copy(update={"content": self.text(f.content)}) for f in files if self.context_path(f.path)
        ]

    def edits(self, edits: Sequence[RecentEdit], own_path: str | None) -> list[RecentEdit]:
        if not edits or not self.allow("edit_history", True):
            return []
        return [
            e.model_copy(update={"diff": self.text(e.diff)})
            for e in edits
            if e.path is None or e.path == own_path or self.context_path(e.path)
        ]

    def error(self, error: CellError | None) -> CellError | None:
        if error is None:
            return None
        traceback = self.text(error.traceback) if self.allow("tracebacks", bool(error.traceback)) else ""
        return error.model_copy(update={"evalue": self.text(error.evalue), "traceback": traceback})

    def finish(self) -> GateReport:
        if self.redaction is not None:
            self.report.redacted = dict(self.redaction.counts)
        return self.report


@dataclass
class GuardedEdit:
    """An edit request as the model may see it, and how to map its answer back."""

    request: EditPredictionRequest
    report: GateReport
    redaction: Redaction | None
    # the request's own text (key None) and each context cell with an id: offsets there
    maps: dict[str | None, OffsetMap]

    def restore(self, reply: EditPredictionReply) -> EditPredictionReply:
        """The reply with offsets in the user's text and placeholders given back their values;
        an edit that would cut into a secret, or write a placeholder the user's text never had,
        is dropped."""
        if self.redaction is None or not any(m.spans for m in self.maps.values()):
            return reply
        edits: list[TextEdit] = []
        dropped = 0
        for e in reply.edits:
            m = self.maps.get(e.cell_id, OffsetMap())
            start, end = m.to_original(e.start), m.to_original(e.end)
            text = self.redaction.restore(e.text)
            # an edit over a secret keeps it: its new text holds that secret's placeholder
            kept = all(s.placeholder in e.text for s in m.touched(e.start, e.end))
            if start is None or end is None or text is None or not kept:
                dropped += 1
                continue
            edits.append(e.model_copy(update={"start": start, "end": end, "text": text}))
        region = reply.region
        if region is not None:
            own = self.maps.get(None, OffsetMap())
            start, end = own.to_original(region.start), own.to_original(region.end)
            region = EditRegion(start=start, end=end) if start is not None and end is not None else None
        notes = list(reply.notes)
        if dropped:
            notes.append(f"{dropped} edit(s) dropped: they would change a redacted secret")
        return reply.model_copy(update={"edits": edits, "region": region, "notes": notes})


class Gate:
    """The server's gate: its exclusions, the channels the administrator forbids, and a redactor
    that knows the server's own secrets (``known``: asked per request; the redactor and its cache
    are made again when they change)."""

    def __init__(
        self,
        exclusions: Exclusions | None = None,
        forbidden: Sequence[str] = (),
        known: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        self.exclusions = exclusions or Exclusions()
        self.forbidden = tuple(forbidden)
        self._known = known or (lambda: ())
        self._redactor = Redactor()
        self._lock = threading.Lock()

    def redactor(self) -> Redactor:
        known = tuple(sorted({k for k in self._known() if k}, key=len, reverse=True))
        with self._lock:
            if known != self._redactor.known:
                self._redactor = Redactor(known)
            return self._redactor

    def document(self, path: str | None) -> Excluded | None:
        """Why the document at ``path`` gets no suggestions, or None."""
        return self.exclusions.check(path)

    def _scope(self, policy: ChannelPolicy) -> _Scope:
        return _Scope(self.redactor().request() if policy.redact else None, policy, self)

    def prompt_request(self, preq: PromptRequest, policy: ChannelPolicy) -> tuple[PromptRequest, GateReport]:
        """A completion's prompt request as the model may see it (the document is not excluded:
        the caller checked :meth:`document`)."""
        scope = self._scope(policy)
        text, omap = scope.mapped(preq.prefix + preq.suffix)
        cursor = omap.to_redacted(len(preq.prefix), after=True)
        update: dict[str, Any] = {
            "prefix": text[:cursor],
            "suffix": text[cursor:],
            "files": scope.files(preq.files),
            "cells_above": [scope.cell(c) for c in preq.cells_above],
            "cells_below": [scope.cell(c) for c in preq.cells_below],
            "kernel_candidates": scope.kernel(preq.kernel_candidates),
        }
        return preq.model_copy(update=update), scope.finish()

    def edit_request(self, request: EditPredictionRequest, policy: ChannelPolicy) -> GuardedEdit:
        """An edit request as the model may see it (offsets moved with the redacted text)."""
        scope = self._scope(policy)
        text, own = scope.mapped(request.text)
        maps: dict[str | None, OffsetMap] = {None: own}
        region = request.region
        if region is not None:
            region = EditRegion(
                start=own.to_redacted(region.start), end=own.to_redacted(region.end, after=True)
            )

        def cell(c: ContextCell) -> ContextCell:
            if c.cell_id is None:
                return scope.cell(c)
            source, m = scope.mapped(c.source)
            maps[c.cell_id] = m
            return scope.cell(c, source)

        guarded = request.model_copy(
            update={
                "text": text,
                "cursor": own.to_redacted(request.cursor, after=True),
                "region": region,
                "recent_edits": scope.edits(request.recent_edits, request.path),
                "cells_above": [cell(c) for c in request.cells_above],
                "cells_below": [cell(c) for c in request.cells_below],
                "files": scope.context_files(request.files),
                "error": scope.error(request.error),
                "kernel_candidates": scope.kernel(request.kernel_candidates),
            }
        )
        return GuardedEdit(guarded, scope.finish(), scope.redaction, maps)
