/**
 * Usage events: what became of each suggestion shown, and how much of what was accepted is
 * still in the document 30 s and 5 min later (docs/usage.md).
 *
 * One *impression* per suggestion (per request number): created when its ghost text first
 * shows something, updated while the user types through it or accepts parts of it, ended by a
 * whole accept, a dismissal, another suggestion, or 10 s without news. Then one event goes to
 * the server; an accepted one is sent again with its kept figures when each window ends. One whose
 * document (or browser tab) closes before the 30 s window ends is sent with what was still there
 * at close (`kept_at_close`, the last look while it was open). No code
 * text leaves the tracker unless the user keeps samples: lengths, a hash, a line and column.
 */
import { IServingModel, IUsageEvent, LineKind, UsageTrigger } from '../connection/protocol';
import { IEditorState, Suggestion } from '../completion/typing';
import { textKind } from '../context/syntax';
import type { EditLifecycle, IEditShown } from '../edits/lifecycle';
import type { IKeptProbe, SuggestionLifecycle } from '../lifecycle/lifecycle';
import type { ICodeCompleteProvider } from '../tokens';

/**
 * How long an impression waits for news before it is ended (a rejection counts after 10 s).
 */
export const IDLE_MS = 10000;

/**
 * The kept windows, seconds (a setting can shorten them for tests).
 */
export const DEFAULT_KEPT_WINDOWS: [number, number] = [30, 300];

/**
 * Most events waiting for the socket; older ones are dropped past it.
 */
export const MAX_QUEUED = 500;

/**
 * Most events in one message (the server's limit, `MAX_USAGE_EVENTS`).
 */
export const MAX_BATCH = 64;

/**
 * The longest pause before an accept that an event carries (the server's bound on
 * `accept_pause_ms`); a longer one (no keystroke known yet) is left out.
 */
export const MAX_PAUSE_MS = 600_000;

/**
 * What kind of place the cursor is at (the gate learns from it).
 *
 * `mid_line`: text after the cursor on its line (closing brackets and quotes alone do not
 * count); `comment`, `string`: inside a comment or a string literal (`textKind`: a docstring's
 * lines, blank ones too, are `string`); `empty`: nothing but blanks before the cursor on its
 * line; else `code`.
 */
export function lineKind(text: string, offset: number, language: string | null): LineKind {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  let end = text.indexOf('\n', offset);
  end = end === -1 ? text.length : end;
  const before = text.slice(start, offset);
  const after = text.slice(offset, end);
  if (/[^\s)\]}'"`;,:]/.test(after)) {
    return 'mid_line';
  }
  const kind = textKind(text, offset, language);
  if (kind !== 'code') {
    return kind;
  }
  return before.trim() ? 'code' : 'empty';
}

/**
 * How many characters of `accepted` are still in `current`, near where they were inserted
 * (`anchor`): all of them when the text is still there as it was, else the longest common
 * subsequence with the text around the anchor; for a long text, the accepted lines still present.
 */
export function keptChars(accepted: string, current: string, anchor: number): number {
  if (!accepted) {
    return 0;
  }
  if (current.includes(accepted)) {
    return accepted.length;
  }
  const slack = accepted.length * 2 + 200;
  const from = Math.max(0, Math.min(anchor, current.length) - slack);
  const window = current.slice(from, Math.min(current.length, anchor + accepted.length + slack));
  if (accepted.length * window.length > 4_000_000) {
    const lines = new Set(current.split('\n').map(l => l.trim()));
    return accepted
      .split('\n')
      .filter(l => l.trim() && lines.has(l.trim()))
      .reduce((n, l) => n + l.length, 0);
  }
  // LCS, one row at a time
  let prev = new Uint16Array(window.length + 1);
  let row = new Uint16Array(window.length + 1);
  for (let i = 1; i <= accepted.length; i++) {
    const a = accepted.charCodeAt(i - 1);
    for (let j = 1; j <= window.length; j++) {
      row[j] =
        a === window.charCodeAt(j - 1)
          ? prev[j - 1] + 1
          : row[j - 1] > prev[j]
            ? row[j - 1]
            : prev[j];
    }
    [prev, row] = [row, prev];
  }
  return prev[window.length];
}

/**
 * A short hash of a text (FNV-1a, 32 bits, hex): equal suggestions can be told apart from
 * different ones without storing them.
 */
export function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * Records usage events for the suggestions of one browser tab.
 */
export class UsageTracker {
  constructor(options: UsageTracker.IOptions) {
    this._send = options.send;
    this._readText = options.readText;
    this._settings = options.settings;
    this._model = options.model;
    this._now = options.now ?? (() => Date.now());
    this._setTimeout = options.setTimeout ?? ((f, ms) => setTimeout(f, ms));
    this._clearTimeout = options.clearTimeout ?? (h => clearTimeout(h));
    this._tab = options.tabId ?? Math.random().toString(36).slice(2, 10);
    this._editorState = options.editorState ?? (() => null);
  }

  /**
   * Look at the editor now: typing the last characters of a suggestion leaves nothing to show,
   * so the provider says nothing; the next request (or skip) is the moment to notice it.
   */
  observe(): void {
    this._lookAtKept();
    const current = this._current;
    const live = this._editorState();
    if (!current || !live || !current.rest) {
      return;
    }
    const rest = current.suggestion.rest(live);
    if (rest !== null && rest.length < current.rest.length) {
      current.rest = rest;
      const consumed = current.suggestion.text.length - rest.length;
      current.typed = Math.max(current.typed, consumed - current.accepted);
    }
  }

  /**
   * How fast the user was typing (the mean interval between the last keystrokes, ms; null when
   * unknown): read when a request is sent (the restraint plugin sets it).
   */
  rhythm: (() => number | null) | null = null;

  /**
   * Whether the request being sent was held by restraint (`Restraint.held`): read when a
   * request is sent (the restraint plugin sets it). A held suggestion's pause before its accept
   * is not the user's own (it could only be taken after the hold).
   */
  held: (() => boolean) | null = null;

  /**
   * How long since the user's last keystroke (ms): read once, when the user first takes
   * something of a suggestion (the restraint plugin sets it; its clock is the keystrokes').
   */
  pause: (() => number) | null = null;

  /**
   * Called when the user first takes something of an automatic suggestion (typing, fresh
   * line), with its line kind and the pause before it (`pause`; null when unknown): the
   * restraint plugin learns from it how long the user pauses before taking one, and the event
   * carries it (`accept_pause_ms`) for the server to learn the same.
   */
  onAccept: ((lineKind: LineKind, pauseMs: number | null, held: boolean) => void) | null = null;

  /**
   * A request was sent (its time is the start of "time to show").
   */
  started(number: number): void {
    this._startedAt.set(number, {
      at: this._now(),
      typingMs: this.rhythm?.() ?? null,
      held: this.held?.() ?? false
    });
    if (this._startedAt.size > 64) {
      this._startedAt.delete(this._startedAt.keys().next().value as number);
    }
  }

  /**
   * The provider answered the editor with `rest` of a suggestion.
   */
  shown(
    suggestion: Suggestion,
    rest: string,
    language: string | null,
    trigger: UsageTrigger
  ): void {
    if (!this._settings().recordUsage) {
      return;
    }
    let current = this._current;
    if (current && current.suggestion !== suggestion) {
      this._end(current);
      current = null;
    }
    if (!current) {
      if (!rest || this._ended.has(suggestion)) {
        return; // nothing shown, or a suggestion already reported coming back
      }
      const now = this._now();
      const started = this._startedAt.get(suggestion.number);
      const model = this._model();
      const before = suggestion.before;
      const lines = before.split('\n');
      current = {
        id: `${this._tab}-${++this._count}`,
        suggestion,
        shownAt: now,
        latency: started === undefined ? 0 : Math.max(0, now - started.at),
        typingMs: started?.typingMs ?? null,
        // restraint decides on automatic requests only
        held: trigger !== 'manual' && (started?.held ?? false),
        acceptPause: null,
        trigger,
        language,
        model: model?.reported || model?.name || null,
        style: model?.style ?? null,
        lineKind: lineKind(before + suggestion.after, before.length, language),
        line: lines.length - 1,
        column: lines[lines.length - 1].length,
        rest,
        accepted: 0,
        typed: 0,
        acceptKind: null,
        pieces: [],
        dismissed: false,
        idle: null
      };
      this._current = current;
    }
    current.rest = rest;
    const consumed = Math.max(0, suggestion.text.length - rest.length);
    current.typed = Math.max(current.typed, consumed - current.accepted);
    this._touch(current);
  }

  /**
   * The user accepted what the ghost text shows (Tab).
   */
  acceptedWhole(): void {
    const current = this._current;
    if (!current || !current.rest) {
      return;
    }
    if (current.acceptKind === null) {
      this._firstAccept(current);
    }
    current.accepted += current.rest.length;
    current.pieces.push(current.rest);
    current.acceptKind ??= 'whole';
    current.rest = '';
    this._end(current);
  }

  /**
   * The user accepted a word or a line of it.
   */
  acceptedPart(kind: 'word' | 'line', part: string): void {
    const current = this._current;
    if (!current || !part) {
      return;
    }
    if (current.acceptKind === null) {
      this._firstAccept(current);
    }
    current.accepted += part.length;
    current.pieces.push(part);
    current.acceptKind ??= kind;
    current.rest = current.rest.startsWith(part) ? current.rest.slice(part.length) : current.rest;
    if (!current.rest) {
      this._end(current);
    } else {
      this._touch(current);
    }
  }

  /**
   * The user dismissed the suggestion shown (Escape).
   */
  dismissed(): void {
    const current = this._current;
    if (current) {
      current.dismissed = true;
      this._end(current);
    }
  }

  /**
   * An edit prediction was shown (trigger `edit`): its impression, ended with `editEnded`.
   *
   * @param text - the inserted text of all its edits (its length and hash are recorded)
   */
  editShown(options: { latencyMs: number; language: string | null; text: string }): string | null {
    if (!this._settings().recordUsage) {
      return null;
    }
    const id = `${this._tab}-${++this._count}`;
    const model = this._model();
    this._edits.set(id, {
      shownAt: this._now(),
      latency: Math.max(0, Math.round(options.latencyMs)),
      language: options.language,
      text: options.text,
      model: model?.reported || model?.name || null,
      style: model?.style ?? null,
      accepted: 0,
      kept: []
    });
    if (this._edits.size > 64) {
      this._edits.delete(this._edits.keys().next().value as string);
    }
    return id;
  }

  /**
   * Part of an edit prediction was applied (`chars` inserted); it stays open for the rest.
   * `kept`: where its text went (each edit's inserted text, its offset, and a reader of that
   * document), so that what is still there after the kept windows is counted, as for
   * suggestions.
   */
  editAccepted(id: string | null, chars: number, kept: ReadonlyArray<IKeptProbe> = []): void {
    const e = id ? this._edits.get(id) : undefined;
    if (e) {
      e.accepted += Math.max(1, chars);
      e.kept.push(...kept.filter(k => k.text));
    }
  }

  /**
   * The end of an edit prediction's impression: accepted when any of it was applied, else
   * `dismissed` (Escape) or `ignored` (dropped by a change, superseded).
   */
  editEnded(id: string | null, dismissed: boolean): void {
    const e = id ? this._edits.get(id) : undefined;
    if (!id || !e) {
      return;
    }
    this._edits.delete(id);
    const event: IUsageEvent = {
      id,
      shown_at: e.shownAt,
      model: e.model,
      style: e.style,
      language: e.language,
      trigger: 'edit',
      line_kind: 'code',
      latency_ms: e.latency,
      length: e.text.length,
      outcome: e.accepted > 0 ? 'accepted' : dismissed ? 'dismissed' : 'ignored',
      accept_kind: e.accepted > 0 ? 'whole' : null,
      accepted_chars: e.accepted,
      typed_chars: 0,
      kept_30s: null,
      kept_5m: null,
      text_hash: hashText(e.text),
      line: null,
      column: null
    };
    this._enqueue(event);
    if (e.accepted > 0 && e.kept.length) {
      const [first, second] = this._settings().usageKeptWindows;
      this._setTimeout(() => this._editKept(event, e.kept, 'kept_30s'), first * 1000);
      this._setTimeout(() => this._editKept(event, e.kept, 'kept_5m'), second * 1000);
    }
  }

  /**
   * Send what waits now (also called on a timer).
   */
  flush(): void {
    this._flushTimer = null;
    while (this._queue.length) {
      const batch = this._queue.slice(0, MAX_BATCH);
      if (!this._send(batch)) {
        this._scheduleFlush(2000);
        return;
      }
      this._queue.splice(0, batch.length);
    }
  }

  /**
   * Events waiting for the socket (for tests and the panel).
   */
  get queued(): ReadonlyArray<IUsageEvent> {
    return this._queue;
  }

  /**
   * Follow the inline suggestions through their lifecycle: asked (and the provider's skipped
   * requests), shown, accepted whole or in part, dismissed.
   */
  follow(provider: Pick<ICodeCompleteProvider, 'activity' | 'lifecycle'>): void {
    const life = provider.lifecycle;
    provider.activity.connect((_, activity) => {
      if (activity.kind === 'skipped') {
        this.observe();
      }
    });
    life.asked.connect((_, { id }) => {
      this.observe();
      this.started(id);
    });
    life.shown.connect((_, { detail: { suggestion, rest, language, trigger } }) =>
      this.shown(suggestion, rest, language, trigger)
    );
    life.accepted.connect((_, { part, text }) => {
      if (part === 'whole') {
        this.acceptedWhole();
      } else if ((part === 'word' || part === 'line') && text !== null) {
        this.acceptedPart(part, text);
      }
    });
    life.ended.connect((_, { reason }) => {
      if (reason === 'dismissed') {
        this.dismissed();
      }
    });
  }

  /**
   * Follow the edit predictions through their lifecycle: each shown prediction is an
   * impression, ended when the prediction ends. Disconnects with the returned function (or when
   * the lifecycle's signals are cleared).
   */
  followEdits(lifecycle: EditLifecycle): () => void {
    const impressions = new Map<number, string | null>();
    const shown = (_: EditLifecycle, { id, detail }: SuggestionLifecycle.IShown<IEditShown>) => {
      impressions.set(id, this.editShown(detail));
    };
    const accepted = (_: EditLifecycle, e: SuggestionLifecycle.IAccepted) => {
      this.editAccepted(impressions.get(e.id) ?? null, e.chars, e.kept);
    };
    const ended = (_: EditLifecycle, e: SuggestionLifecycle.IEnded) => {
      this.editEnded(impressions.get(e.id) ?? null, e.reason === 'dismissed');
      impressions.delete(e.id);
    };
    lifecycle.shown.connect(shown);
    lifecycle.accepted.connect(accepted);
    lifecycle.ended.connect(ended);
    return () => {
      lifecycle.shown.disconnect(shown);
      lifecycle.accepted.disconnect(accepted);
      lifecycle.ended.disconnect(ended);
    };
  }

  dispose(): void {
    if (this._current) {
      this._end(this._current);
    }
    for (const id of [...this._edits.keys()]) {
      this.editEnded(id, false);
    }
    this.closing();
    this.flush();
  }

  /**
   * Documents are closing (the page unloads, or one document's tab closes: `readText` reads that
   * document while it still can): each accepted suggestion whose 30 s window has not ended yet is
   * sent with what is still there now, `kept_at_close`.
   */
  closing(readText: (key: string) => string | null = this._readText): void {
    if (!this._settings().recordUsage) {
      return;
    }
    for (const [id, w] of [...this._awaiting]) {
      const text = readText(w.key);
      if (text === null) {
        continue;
      }
      w.event.kept_at_close = keptChars(w.accepted, text, w.anchor);
      this._awaiting.delete(id);
      this._enqueue({ ...w.event });
    }
  }

  /**
   * Look again (at most once a second) at what is still there of the suggestions whose 30 s
   * window runs: the last look is their figure if their document closes unseen.
   */
  private _lookAtKept(): void {
    const now = this._now();
    if (this._awaiting.size === 0 || now - this._lookedAt < 1000) {
      return;
    }
    this._lookedAt = now;
    for (const w of this._awaiting.values()) {
      const text = this._readText(w.key);
      if (text !== null) {
        w.lastKept = keptChars(w.accepted, text, w.anchor);
      }
    }
  }

  /**
   * The user takes something of this suggestion for the first time: the pause before it.
   */
  private _firstAccept(current: Private.IImpression): void {
    const pause = this.pause?.() ?? null;
    current.acceptPause =
      pause !== null && Number.isFinite(pause) && pause >= 0 && pause <= MAX_PAUSE_MS
        ? Math.round(pause)
        : null;
    if (current.trigger === 'typing' || current.trigger === 'fresh_line') {
      this.onAccept?.(current.lineKind, current.acceptPause, current.held);
    }
  }

  private _touch(current: Private.IImpression): void {
    if (current.idle !== null) {
      this._clearTimeout(current.idle);
    }
    current.idle = this._setTimeout(() => {
      current.idle = null;
      if (this._current === current) {
        this._end(current);
      }
    }, IDLE_MS);
  }

  private _end(current: Private.IImpression): void {
    if (this._current === current) {
      // typed to its end just now (the next suggestion may already be on its way)
      this.observe();
    }
    if (current.idle !== null) {
      this._clearTimeout(current.idle);
      current.idle = null;
    }
    if (this._current === current) {
      this._current = null;
    }
    this._ended.add(current.suggestion);
    const outcome: IUsageEvent['outcome'] =
      current.accepted > 0
        ? 'accepted'
        : !current.rest && current.typed > 0
          ? 'typed_through'
          : current.dismissed
            ? 'dismissed'
            : 'ignored';
    const s = current.suggestion;
    const settings = this._settings();
    const event: IUsageEvent = {
      id: current.id,
      shown_at: current.shownAt,
      model: current.model,
      style: current.style,
      language: current.language,
      trigger: current.trigger,
      line_kind: current.lineKind,
      typing_ms: current.typingMs,
      latency_ms: Math.round(current.latency),
      length: s.text.length,
      outcome,
      accept_kind: current.acceptKind,
      accepted_chars: current.accepted,
      typed_chars: current.typed,
      accept_pause_ms: current.acceptPause,
      held: current.held,
      kept_30s: null,
      kept_5m: null,
      text_hash: hashText(s.text),
      line: current.line,
      column: current.column,
      ...(settings.usageSamples
        ? {
            sample: JSON.stringify({
              before: s.before.slice(-1000),
              after: s.after.slice(0, 500),
              suggestion: s.text.slice(0, 4000),
              accepted: current.pieces.join('').slice(0, 4000)
            }).slice(0, 20000)
          }
        : {})
    };
    this._enqueue(event);
    if (current.accepted > 0) {
      const accepted = current.pieces.join('');
      const anchor = s.before.length;
      const [first, second] = settings.usageKeptWindows;
      this._awaiting.set(event.id, {
        event,
        key: s.key,
        accepted,
        anchor,
        lastKept: accepted.length // just accepted: all of it is there
      });
      this._setTimeout(() => this._kept(event, s.key, accepted, anchor, 'kept_30s'), first * 1000);
      this._setTimeout(() => this._kept(event, s.key, accepted, anchor, 'kept_5m'), second * 1000);
    }
  }

  private _kept(
    event: IUsageEvent,
    key: string,
    accepted: string,
    anchor: number,
    field: 'kept_30s' | 'kept_5m'
  ): void {
    const waiting = field === 'kept_30s' ? this._awaiting.get(event.id) : undefined;
    if (field === 'kept_30s') {
      this._awaiting.delete(event.id);
    }
    if (!this._settings().recordUsage) {
      return;
    }
    const text = this._readText(key);
    if (text === null) {
      // the document closed unseen: what was there at the last look (else unknown, not zero)
      if (waiting !== undefined && (event.kept_at_close ?? null) === null) {
        event.kept_at_close = waiting.lastKept;
        this._enqueue({ ...event });
      }
      return;
    }
    event[field] = keptChars(accepted, text, anchor);
    this._enqueue({ ...event });
  }

  /**
   * What of an applied edit prediction is still in its documents (unknown when none of them is
   * open here any more).
   */
  private _editKept(
    event: IUsageEvent,
    probes: ReadonlyArray<IKeptProbe>,
    field: 'kept_30s' | 'kept_5m'
  ): void {
    if (!this._settings().recordUsage) {
      return;
    }
    let kept = 0;
    let known = false;
    for (const probe of probes) {
      const text = probe.read();
      if (text !== null) {
        known = true;
        kept += keptChars(probe.text, text, probe.anchor);
      }
    }
    if (known) {
      event[field] = Math.min(kept, event.accepted_chars);
      this._enqueue({ ...event });
    }
  }

  private _enqueue(event: IUsageEvent): void {
    const i = this._queue.findIndex(e => e.id === event.id);
    if (i >= 0) {
      this._queue[i] = event;
    } else {
      this._queue.push(event);
      if (this._queue.length > MAX_QUEUED) {
        this._queue.shift();
      }
    }
    this._scheduleFlush(500);
  }

  private _scheduleFlush(ms: number): void {
    if (this._flushTimer === null) {
      this._flushTimer = this._setTimeout(() => this.flush(), ms);
    }
  }

  private _send: UsageTracker.IOptions['send'];
  private _readText: UsageTracker.IOptions['readText'];
  private _settings: UsageTracker.IOptions['settings'];
  private _model: () => IServingModel | null;
  private _now: () => number;
  private _setTimeout: (f: () => void, ms: number) => any;
  private _clearTimeout: (handle: any) => void;
  private _tab: string;
  private _editorState: () => IEditorState | null;
  private _count = 0;
  private _current: Private.IImpression | null = null;
  private _ended = new WeakSet<Suggestion>();
  private _startedAt = new Map<number, { at: number; typingMs: number | null; held: boolean }>();
  private _queue: IUsageEvent[] = [];
  private _flushTimer: any = null;
  private _edits = new Map<string, Private.IEditImpression>();
  private _awaiting = new Map<string, Private.IAwaitingKept>();
  private _lookedAt = -Infinity;
}

/**
 * A namespace for UsageTracker statics.
 */
export namespace UsageTracker {
  /**
   * The settings the tracker reads.
   */
  export type ISettings = Pick<
    import('../settings').ISettings,
    'recordUsage' | 'usageSamples' | 'usageKeptWindows'
  >;

  export interface IOptions {
    /**
     * Send events to the server; false when they could not be sent (they wait).
     */
    send: (events: IUsageEvent[]) => boolean;
    /**
     * The text of the document (and cell) with this key now; null when it is not open.
     */
    readText: (key: string) => string | null;
    settings: () => ISettings;
    /**
     * The model that serves now.
     */
    model: () => IServingModel | null;
    now?: () => number;
    setTimeout?: (f: () => void, ms: number) => any;
    clearTimeout?: (handle: any) => void;
    /**
     * The editor's state now (to notice a suggestion typed to its end).
     */
    editorState?: () => IEditorState | null;
    /**
     * The prefix of event ids (default: random per tab).
     */
    tabId?: string;
  }
}

namespace Private {
  /**
   * An accepted suggestion whose 30 s window has not ended.
   */
  export interface IAwaitingKept {
    event: IUsageEvent;
    key: string;
    accepted: string;
    anchor: number;
    /**
     * What was still there at the last look.
     */
    lastKept: number;
  }

  export interface IEditImpression {
    shownAt: number;
    latency: number;
    language: string | null;
    text: string;
    model: string | null;
    style: string | null;
    accepted: number;
    kept: IKeptProbe[];
  }

  export interface IImpression {
    id: string;
    suggestion: Suggestion;
    shownAt: number;
    latency: number;
    typingMs: number | null;
    held: boolean;
    /**
     * From the last keystroke to the first accept (ms), within the server's bound; null: none.
     */
    acceptPause: number | null;
    trigger: UsageTrigger;
    language: string | null;
    model: string | null;
    style: string | null;
    lineKind: LineKind;
    line: number;
    column: number;
    rest: string;
    accepted: number;
    typed: number;
    acceptKind: IUsageEvent['accept_kind'];
    pieces: string[];
    dismissed: boolean;
    idle: any;
  }
}
