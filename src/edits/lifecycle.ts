/**
 * The life of an edit prediction as the user sees it: shown, applied (whole or a cell at a time),
 * ended (dismissed with Escape, or gone: typed over, replaced, its cells edited away). The
 * feature says what happens; who cares about it (the usage tracker) subscribes to the signals
 * instead of being called by each place that shows, applies or drops a prediction.
 *
 * One prediction is open at a time: showing another ends the one before (not dismissed).
 */
import { ISignal, Signal } from '@lumino/signaling';

import type { IUsageTracker } from '../tokens';
import type { IKeptProbe } from '../usage/usage';

/**
 * An edit prediction was shown.
 */
export interface IEditShown {
  /**
   * This prediction, in the signals that follow.
   */
  id: number;
  latencyMs: number;
  language: string | null;
  /**
   * What it would insert, all cells together.
   */
  text: string;
}

/**
 * Part or all of an edit prediction was applied.
 */
export interface IEditApplied {
  id: number;
  /**
   * Characters inserted.
   */
  chars: number;
  /**
   * Where its text went (to count what is still there later).
   */
  kept: ReadonlyArray<IKeptProbe>;
}

/**
 * An edit prediction ended.
 */
export interface IEditEnded {
  id: number;
  /**
   * The user dismissed it (Escape); false: it went otherwise.
   */
  dismissed: boolean;
}

/**
 * The open prediction and its signals.
 */
export class EditLifecycle {
  get shown(): ISignal<this, IEditShown> {
    return this._shown;
  }

  get applied(): ISignal<this, IEditApplied> {
    return this._applied;
  }

  get ended(): ISignal<this, IEditEnded> {
    return this._ended;
  }

  /**
   * Whether a prediction is open.
   */
  get open(): boolean {
    return this._current !== null;
  }

  /**
   * A prediction is shown (the one before ends).
   */
  show(options: Omit<IEditShown, 'id'>): void {
    this.end(false);
    this._current = ++this._count;
    this._shown.emit({ id: this._current, ...options });
  }

  /**
   * Part of the open prediction was applied; it stays open for the rest (see `end`).
   */
  apply(chars: number, kept: ReadonlyArray<IKeptProbe> = []): void {
    if (this._current !== null) {
      this._applied.emit({ id: this._current, chars, kept });
    }
  }

  /**
   * The open prediction ends (nothing when none is open).
   */
  end(dismissed: boolean): void {
    if (this._current === null) {
      return;
    }
    const id = this._current;
    this._current = null;
    this._ended.emit({ id, dismissed });
  }

  private _count = 0;
  private _current: number | null = null;
  private _shown = new Signal<this, IEditShown>(this);
  private _applied = new Signal<this, IEditApplied>(this);
  private _ended = new Signal<this, IEditEnded>(this);
}

/**
 * The usage tracker follows the predictions' lives: each shown prediction is an impression,
 * ended when the prediction ends. Disconnects when `lifecycle` is disposed of (the signals are
 * cleared with it) or with the returned function.
 */
export function recordEdits(
  lifecycle: EditLifecycle,
  usage: Pick<IUsageTracker, 'editShown' | 'editAccepted' | 'editEnded'>
): () => void {
  const impressions = new Map<number, string | null>();
  const shown = (_: EditLifecycle, e: IEditShown) => {
    impressions.set(
      e.id,
      usage.editShown({ latencyMs: e.latencyMs, language: e.language, text: e.text })
    );
  };
  const applied = (_: EditLifecycle, e: IEditApplied) => {
    usage.editAccepted(impressions.get(e.id) ?? null, e.chars, e.kept);
  };
  const ended = (_: EditLifecycle, e: IEditEnded) => {
    usage.editEnded(impressions.get(e.id) ?? null, e.dismissed);
    impressions.delete(e.id);
  };
  lifecycle.shown.connect(shown);
  lifecycle.applied.connect(applied);
  lifecycle.ended.connect(ended);
  return () => {
    lifecycle.shown.disconnect(shown);
    lifecycle.applied.disconnect(applied);
    lifecycle.ended.disconnect(ended);
  };
}
