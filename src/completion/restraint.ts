/**
 * Restraint: fewer automatic requests where they are not wanted (docs/usage.md, "Restraint").
 *
 * - `AdaptiveDebounce`: how long to wait after a keystroke before asking, from the user's typing
 *   rhythm and the model's measured time to show. The rule is Tabby's (tabby-agent's
 *   `CompletionDebouncer`): a base interval, the mean of the last 20–100 intervals between
 *   keystrokes (pauses over 400 ms left out), clamped to 100–400 ms; a rate from 3 down to 1.5 as
 *   the place looks likelier to take a suggestion (after a non-word character: +0.5, at the end
 *   of the line: +0.4, at the end of the document: +0.1); the wait is `rate × base − expected
 *   time to show`, clamped to 100–1000 ms. While a shared model service is strained (it asked for
 *   a pause: a gateway's 429, every replica busy) the wait stretches instead: twice `rate × base`,
 *   nothing taken off for the model's slowness, up to 2 s, so fewer requests join its queue.
 * - `Gate`: the places (trigger × line kind × typing rhythm) where the server learned that this
 *   user's suggestions are mostly wasted and leave little (`GET api/codecomplete/usage/gate`,
 *   `jupyter_codecomplete/usage/gate.py`), and the place of the last dismissal.
 * - `AcceptPauses`: how long this user pauses before taking a suggestion, by line kind: the
 *   page's own pauses once it has enough, else those the server learned from the stored events
 *   (the gate model's `pauses`), so that a reload, a second tab or Notebook 7 starts from them.
 * - `Restraint`: the decision for one automatic request, from the three: skip it, or ask once
 *   the user has paused so long. At a place the gate marks, the server's `hold` says whether to
 *   skip it (level "less") or to ask only after a pause as long as the user's own pauses before
 *   taking a suggestion there (the default level): whoever stops to take a comment's
 *   completion still gets it; mid-typing noise goes.
 */
import { LineKind } from '../connection/protocol';
import type { SuggestionLifecycle } from '../lifecycle/lifecycle';
import type { RestraintMode } from '../settings';

function clamp(min: number, max: number, value: number): number {
  return Math.max(min, Math.min(max, value));
}

/**
 * The adaptive debounce.
 */
export class AdaptiveDebounce {
  /**
   * A keystroke at `now` (ms).
   */
  keystroke(now: number): void {
    const interval = now - this._last;
    this._last = now;
    if (interval > 0 && Number.isFinite(interval)) {
      this._recent.push(Math.min(interval, AdaptiveDebounce.MAX_RECENT));
      if (this._recent.length > AdaptiveDebounce.RHYTHM_SAMPLES) {
        this._recent.shift();
      }
    }
    if (interval <= 0 || interval > AdaptiveDebounce.MAX_INTERVAL) {
      return;
    }
    this._intervals.push(interval);
    if (this._intervals.length > AdaptiveDebounce.MAX_SAMPLES) {
      this._intervals.shift();
    }
  }

  /**
   * The model took `ms` from the request to the first ghost text.
   */
  latency(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) {
      // a moving average: the last ten or so count
      this._latency = this._latency === null ? ms : this._latency * 0.8 + ms * 0.2;
    }
  }

  /**
   * A shared model service asked for a pause: stretch the wait until `until` (ms, Date.now()).
   */
  strain(until: number): void {
    this._strainedUntil = Math.max(this._strainedUntil, until);
  }

  /**
   * Whether the wait is stretched now.
   */
  get strained(): boolean {
    return Date.now() < this._strainedUntil;
  }

  /**
   * The typing interval the wait is based on.
   */
  get base(): number {
    if (this._intervals.length < AdaptiveDebounce.MIN_SAMPLES) {
      return AdaptiveDebounce.BASE;
    }
    const mean = this._intervals.reduce((a, b) => a + b, 0) / this._intervals.length;
    return clamp(100, AdaptiveDebounce.MAX_INTERVAL, mean);
  }

  /**
   * How fast the user was typing just now: the mean of the last few intervals between
   * keystrokes, pauses included (ms; null before there are enough). The gate learns from it
   * whether suggestions shown after a burst of fast typing are ever taken.
   */
  get rhythm(): number | null {
    if (this._recent.length < AdaptiveDebounce.RHYTHM_SAMPLES) {
      return null;
    }
    return Math.round(this._recent.reduce((a, b) => a + b, 0) / this._recent.length);
  }

  /**
   * The model's expected time to show (0 until measured).
   */
  get expectedLatency(): number {
    return this._latency ?? 0;
  }

  /**
   * How long to wait after the last keystroke before asking (ms).
   */
  delay(place: AdaptiveDebounce.IPlace): number {
    const score = clamp(
      0,
      1,
      (place.afterNonWord ? 0.5 : 0) + (place.lineEnd ? 0.4 : 0) + (place.documentEnd ? 0.1 : 0)
    );
    const rate = 3 - 1.5 * score;
    if (this.strained) {
      return clamp(100, AdaptiveDebounce.STRAINED_MAX, 2 * rate * this.base);
    }
    return clamp(100, 1000, rate * this.base - this.expectedLatency);
  }

  private _last = -Infinity;
  private _intervals: number[] = [];
  private _recent: number[] = [];
  private _latency: number | null = null;
  private _strainedUntil = 0;
}

/**
 * A namespace for AdaptiveDebounce statics.
 */
export namespace AdaptiveDebounce {
  export const BASE = 200;
  /**
   * The longest wait while a shared model is strained (ms), and how long after its pause ends
   * the wait stays stretched.
   */
  export const STRAINED_MAX = 2000;
  export const STRAIN_AFTER_MS = 30000;
  export const MIN_SAMPLES = 20;
  export const MAX_SAMPLES = 100;
  export const MAX_INTERVAL = 400;
  /**
   * Intervals in the rhythm (the last few keystrokes), and the most one counts for.
   */
  export const RHYTHM_SAMPLES = 4;
  export const MAX_RECENT = 5000;

  /**
   * Where the cursor is.
   */
  export interface IPlace {
    afterNonWord: boolean;
    lineEnd: boolean;
    documentEnd: boolean;
  }

  /**
   * The place of a cursor in a text.
   */
  export function place(text: string, offset: number): IPlace {
    const end = text.indexOf('\n', offset);
    const rest = end < 0 ? text.slice(offset) : text.slice(offset, end);
    return {
      afterNonWord: offset > 0 && /\W/.test(text[offset - 1]),
      lineEnd: !rest.trim(),
      documentEnd: !text.slice(offset).trim()
    };
  }
}

/**
 * What the server learned (the answer of `GET api/codecomplete/usage/gate`).
 */
export interface IGateModel {
  level: string;
  active: boolean;
  events: number;
  min_events?: number;
  overall?: number;
  useful_rate?: number | null;
  thresholds?: { useful: number; kept: number };
  /**
   * The cells skipped.
   */
  skip: IGateSkip[];
  /**
   * At the places in `skip`: ask only after a long pause (true) instead of skipping (absent:
   * an older server, skip).
   */
  hold?: boolean;
  after_dismissal: boolean;
  /**
   * The rhythm bins: a mean interval below `below_ms` (null: no bound) is in that bin.
   */
  rhythms?: { name: string; below_ms: number | null }[];
  /**
   * The user's pause before taking a suggestion, by line kind (ms), learned from the stored
   * events by the rule of `AcceptPauses` (`pauses` in `gate.py`); a kind with too few pauses
   * is absent (absent altogether: an older server).
   */
  pauses?: Record<string, number>;
  /**
   * What the gate learned at each place and rhythm (for the statistics; the gate itself reads
   * `skip`).
   */
  places?: IGatePlace[];
  cells?: IGateCell[];
}

/**
 * A place and rhythm the gate skips (or holds); `rhythm` absent (an older server): the place
 * whatever the rhythm.
 */
export interface IGateSkip {
  trigger: string;
  line_kind: string;
  rhythm?: string;
}

/**
 * One place (trigger and line kind) as the gate saw it.
 */
export interface IGatePlace {
  trigger: string;
  line_kind: string;
  shown: number;
  wasted: number;
  wasted_share: number;
  kept_chars: number;
  kept_per_suggestion: number;
}

/**
 * One place at one typing rhythm: the predicted share of useful suggestions and whether it is
 * skipped.
 */
export interface IGateCell {
  trigger: string;
  line_kind: string;
  rhythm: string;
  shown: number;
  useful: number;
  kept_per_suggestion: number;
  skip: boolean;
}

/**
 * The server's bins (`RHYTHMS` in `jupyter_codecomplete/usage/gate.py`).
 */
export const DEFAULT_RHYTHMS: NonNullable<IGateModel['rhythms']> = [
  { name: 'burst', below_ms: 110 },
  { name: 'steady', below_ms: 220 },
  { name: 'slow', below_ms: null }
];

/**
 * The rhythm bin of a mean interval between keystrokes (`gate.rhythm` on the server).
 */
export function rhythmBin(
  typingMs: number | null,
  rhythms: IGateModel['rhythms'] = DEFAULT_RHYTHMS
): string {
  if (typingMs === null) {
    return 'unknown';
  }
  return rhythms.find(r => r.below_ms === null || typingMs < r.below_ms)?.name ?? 'unknown';
}

/**
 * The gate: skip an automatic request at a place this user rarely keeps anything at.
 */
export class Gate {
  /**
   * The model learned from the user's events (null: none yet, skip nothing).
   */
  get model(): IGateModel | null {
    return this._model;
  }

  set model(model: IGateModel | null) {
    this._model = model;
  }

  /**
   * The user dismissed a suggestion here.
   */
  dismissedAt(key: string, text: string, offset: number): void {
    this._dismissal = { key, ...Private.lineAt(text, offset) };
  }

  /**
   * Why an automatic request here is skipped, or null to ask.
   */
  skip(request: Gate.IRequest): 'gate' | 'after-dismissal' | null {
    const model = this._model;
    if (!model || !model.active) {
      return null;
    }
    const rhythm = rhythmBin(request.typingMs ?? null, model.rhythms);
    if (
      model.skip.some(
        s =>
          s.trigger === request.trigger &&
          s.line_kind === request.lineKind &&
          (s.rhythm === undefined || s.rhythm === rhythm)
      )
    ) {
      return 'gate';
    }
    const d = this._dismissal;
    if (model.after_dismissal && d && d.key === request.key) {
      const here = Private.lineAt(request.text, request.offset);
      // the same line, and at most one character typed there since
      if (
        here.line === d.line &&
        here.before.startsWith(d.before) &&
        here.before.length - d.before.length < 2
      ) {
        return 'after-dismissal';
      }
    }
    return null;
  }

  private _model: IGateModel | null = null;
  private _dismissal: { key: string; line: number; before: string } | null = null;
}

/**
 * A namespace for Gate statics.
 */
export namespace Gate {
  export interface IRequest {
    key: string;
    text: string;
    offset: number;
    trigger: 'typing' | 'fresh_line';
    lineKind: LineKind;
    /**
     * The typing rhythm before the request (`AdaptiveDebounce.rhythm`).
     */
    typingMs?: number | null;
  }
}

namespace Private {
  export function lineAt(text: string, offset: number): { line: number; before: string } {
    const head = text.slice(0, offset);
    const start = head.lastIndexOf('\n') + 1;
    let line = 0;
    for (let i = head.indexOf('\n'); i >= 0; i = head.indexOf('\n', i + 1)) {
      line++;
    }
    return { line, before: head.slice(start) };
  }
}

/**
 * How long this user pauses before taking a suggestion (from the last keystroke to the accept),
 * by line kind: the last few of each in this page, and those the server learned from the user's
 * stored events (the same rule: `pauses` in `jupyter_codecomplete/usage/gate.py`, whose
 * constants a test compares with these).
 */
export class AcceptPauses {
  /**
   * The gate model the server learned (its `pauses`), or null.
   */
  get model(): IGateModel | null {
    return this._model;
  }

  set model(model: IGateModel | null) {
    this._model = model;
  }

  /**
   * The user took a suggestion at a place of `lineKind` after a pause of `ms`.
   */
  record(lineKind: string, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      return;
    }
    const list = this._pauses.get(lineKind) ?? [];
    list.push(ms);
    if (list.length > AcceptPauses.MAX_SAMPLES) {
      list.shift();
    }
    this._pauses.set(lineKind, list);
  }

  /**
   * The pause to wait for at a held place: the lower quartile of the user's pauses before
   * taking a suggestion there (so that three in four of those are still shown), clamped to
   * `MIN_MS`–`MAX_MS`: this page's own once it has `MIN_SAMPLES` of them, else the one the
   * server learned (the model's `pauses`), else `DEFAULT_MS`.
   */
  hold(lineKind: string): number {
    const list = this._pauses.get(lineKind) ?? [];
    if (list.length >= AcceptPauses.MIN_SAMPLES) {
      const sorted = [...list].sort((a, b) => a - b);
      const q = sorted[Math.floor((sorted.length - 1) * AcceptPauses.QUANTILE)];
      return clamp(AcceptPauses.MIN_MS, AcceptPauses.MAX_MS, q);
    }
    const learned = this._model?.pauses?.[lineKind];
    if (typeof learned === 'number' && Number.isFinite(learned)) {
      return clamp(AcceptPauses.MIN_MS, AcceptPauses.MAX_MS, learned);
    }
    return AcceptPauses.DEFAULT_MS;
  }

  private _pauses = new Map<string, number[]>();
  private _model: IGateModel | null = null;
}

/**
 * A namespace for AcceptPauses statics.
 */
export namespace AcceptPauses {
  /**
   * A pause to think, before this user's own pauses are known.
   */
  export const DEFAULT_MS = 2000;
  export const MIN_SAMPLES = 5;
  export const MAX_SAMPLES = 50;
  export const QUANTILE = 0.25;
  export const MIN_MS = 500;
  export const MAX_MS = 5000;
}

/**
 * Automatic edit predictions the user keeps turning down: after a run of them dismissed or
 * typed over with none taken (`STREAK` at each level), the automatic ones are held for a while
 * that doubles with each further one (`HOLD_MS` up to `MAX_HOLD_MS`); taking one ends the run.
 * Replaced predictions (discarded) do not count; the user's own "Predict Next Edit" is never held.
 */
export class EditBackoff {
  /**
   * An edit prediction ended at `now` (ms).
   */
  ended(reason: SuggestionLifecycle.EndReason, now: number): void {
    if (reason === 'accepted') {
      this._streak = 0;
    } else if (reason === 'dismissed' || reason === 'typed-through') {
      this._streak += 1;
      this._last = now;
    }
  }

  /**
   * The edit predictions turned down in a row.
   */
  get streak(): number {
    return this._streak;
  }

  /**
   * Until when (ms) automatic edit predictions are held at `mode` (0: not held).
   */
  heldUntil(mode: RestraintMode): number {
    const threshold = EditBackoff.STREAK[mode];
    if (threshold === null || this._streak < threshold) {
      return 0;
    }
    const hold = EditBackoff.HOLD_MS * 2 ** (this._streak - threshold);
    return this._last + Math.min(EditBackoff.MAX_HOLD_MS, hold);
  }

  private _streak = 0;
  private _last = 0;
}

/**
 * A namespace for EditBackoff statics.
 */
export namespace EditBackoff {
  /**
   * Predictions turned down in a row before the automatic ones are held, by level (null: never).
   */
  export const STREAK: { [mode in RestraintMode]: number | null } = {
    off: null,
    more: 5,
    on: 3,
    less: 2
  };
  export const HOLD_MS = 30_000;
  export const MAX_HOLD_MS = 10 * 60_000;
}

/**
 * The decision for automatic requests: the gate, the adaptive debounce and the user's pauses
 * before taking a suggestion (used by the restraint plugin; the replay benchmark runs it too).
 */
export class Restraint {
  constructor(options: Restraint.IOptions = {}) {
    this.gate = options.gate ?? new Gate();
    this.debounce = options.debounce ?? new AdaptiveDebounce();
    this.pauses = options.pauses ?? new AcceptPauses();
  }

  readonly gate: Gate;
  readonly debounce: AdaptiveDebounce;
  readonly pauses: AcceptPauses;
  /**
   * The automatic edit predictions' back-off.
   */
  readonly edits = new EditBackoff();

  /**
   * Why an automatic edit prediction at `now` (ms) is held at `mode` (null: ask): a shared
   * model service asked for a pause, or the user turned down the last few.
   */
  decideEdit(mode: RestraintMode, now: number): 'strained' | 'edits-turned-down' | null {
    if (mode === 'off') {
      return null;
    }
    if (this.debounce.strained) {
      return 'strained';
    }
    return now < this.edits.heldUntil(mode) ? 'edits-turned-down' : null;
  }

  /**
   * Skip an automatic request, or ask once the user has paused `after` ms since the last
   * keystroke (JupyterLab's own debounce is part of it).
   */
  decide(request: Gate.IRequest): Restraint.IDecision {
    const why = this.gate.skip(request);
    this._held = false;
    if (why === 'gate' && this.gate.model?.hold) {
      // ask so that the ghost text is there when the pause reaches the user's usual one
      this._held = true;
      const after = this.pauses.hold(request.lineKind) - this.debounce.expectedLatency;
      return { skip: null, after: Math.max(0, after) };
    }
    if (why) {
      return { skip: why, after: 0 };
    }
    if (request.trigger === 'fresh_line') {
      return { skip: null, after: 0 };
    }
    return {
      skip: null,
      after: this.debounce.delay(AdaptiveDebounce.place(request.text, request.offset))
    };
  }

  /**
   * Whether the last automatic request decided on was held (asked only after the pause): the
   * usage tracker marks its event `held`, so that the server does not learn from its pause.
   */
  get held(): boolean {
    return this._held;
  }

  /**
   * The user took a suggestion at a place of `lineKind`, `pauseMs` after the last keystroke.
   * A suggestion asked for after a hold is not counted: it could only be taken after the hold,
   * and counting it would lengthen the hold each time. `held`: whether that suggestion's own
   * request was held (the usage tracker records it per request); without it, the last decision.
   */
  accepted(lineKind: string, pauseMs: number, held: boolean = this._held): void {
    if (!held) {
      this.pauses.record(lineKind, pauseMs);
    }
  }

  private _held = false;
}

/**
 * A namespace for Restraint statics.
 */
export namespace Restraint {
  export interface IOptions {
    gate?: Gate;
    debounce?: AdaptiveDebounce;
    pauses?: AcceptPauses;
  }

  /**
   * `skip`: why the request is skipped (null: ask); `after`: the pause (ms since the last
   * keystroke) to wait for before asking.
   */
  export interface IDecision {
    skip: 'gate' | 'after-dismissal' | null;
    after: number;
  }
}
