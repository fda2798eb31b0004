/**
 * The life of a suggestion as the user sees it, the same for inline suggestions (ghost text)
 * and edit predictions: asked for, shown (an inline suggestion again each time its stream or the
 * user's typing changes what is left), complete (its whole text known), accepted whole or in
 * part, and ended (accepted, dismissed with Escape, typed through, or discarded: replaced by
 * another, edited away). The features say what happens; whoever cares (the usage tracker,
 * restraint, prefetch) subscribes to the signals instead of being called from each place that
 * shows, accepts or drops a suggestion.
 *
 * One suggestion is open at a time: showing another ends the one before (`discarded`).
 */
import { ISignal, Signal } from '@lumino/signaling';

/**
 * Where accepted text went, to count later what of it is still there.
 */
export interface IKeptProbe {
  /**
   * The text the edit inserted.
   */
  text: string;
  /**
   * Its offset in the document when it was applied.
   */
  anchor: number;
  /**
   * The document's text now; null when it is gone (closed, deleted).
   */
  read: () => string | null;
}

/**
 * A suggestion's life (see the module's comment); `T`: what a shown suggestion carries.
 */
export class SuggestionLifecycle<T> {
  constructor(options: SuggestionLifecycle.IOptions) {
    this.kind = options.kind;
  }

  /**
   * Which kind of suggestion this lifecycle is of.
   */
  readonly kind: SuggestionLifecycle.Kind;

  /**
   * A suggestion was asked of the model (its request started).
   */
  get asked(): ISignal<this, SuggestionLifecycle.IAsked> {
    return this._asked;
  }

  /**
   * A suggestion is shown, or what is shown of it changed.
   */
  get shown(): ISignal<this, SuggestionLifecycle.IShown<T>> {
    return this._shown;
  }

  /**
   * A suggestion's whole text is known (its stream ended), while it is the open one.
   */
  get complete(): ISignal<this, SuggestionLifecycle.IShown<T>> {
    return this._complete;
  }

  /**
   * Part or all of the open suggestion was accepted.
   */
  get accepted(): ISignal<this, SuggestionLifecycle.IAccepted> {
    return this._accepted;
  }

  /**
   * The open suggestion ended.
   */
  get ended(): ISignal<this, SuggestionLifecycle.IEnded> {
    return this._ended;
  }

  /**
   * The open suggestion's id, or null.
   */
  get current(): number | null {
    return this._current;
  }

  /**
   * Whether a suggestion is open.
   */
  get open(): boolean {
    return this._current !== null;
  }

  /**
   * A suggestion (`id`) is asked for; until it is shown, `end` ends it (dismissed while on its
   * way) and `completed` may say its text is known (before the editor shows it).
   */
  ask(id: number): void {
    this._asked.emit({ id });
    this._pending = id;
  }

  /**
   * Suggestion `id` is shown (or what is shown of it changed); another open one is discarded.
   * Without `id`, a new suggestion. Returns its id.
   */
  show(detail: T, id?: number): number {
    const shown = id ?? this._next();
    this._pending = null;
    if (this._current !== shown) {
      this.end('discarded');
      this._current = shown;
    }
    this._shown.emit({ id: shown, detail });
    return shown;
  }

  /**
   * Suggestion `id`'s whole text is known (`detail`: what it carries now). Nothing unless it is
   * the open one or the one asked for last.
   */
  completed(id: number, detail: T): void {
    if (this._current === id || this._pending === id) {
      this._complete.emit({ id, detail });
    }
  }

  /**
   * Part of the open suggestion (or the rest of it: `whole`) was accepted; it stays open until
   * `end`. Nothing when none is open.
   */
  accept(accepted: Omit<SuggestionLifecycle.IAccepted, 'id'>): void {
    if (this._current !== null) {
      this._accepted.emit({ id: this._current, ...accepted });
    }
  }

  /**
   * The open suggestion ends, or, when none is shown, the one asked for last (nothing when
   * there is neither).
   */
  end(reason: SuggestionLifecycle.EndReason): void {
    const id = this._current ?? this._pending;
    if (id === null) {
      return;
    }
    this._current = null;
    this._pending = null;
    this._ended.emit({ id, reason });
  }

  private _next(): number {
    return --this._own; // negative: never one of a request's own numbers
  }

  private _own = 0;
  private _current: number | null = null;
  private _pending: number | null = null;
  private _asked = new Signal<this, SuggestionLifecycle.IAsked>(this);
  private _shown = new Signal<this, SuggestionLifecycle.IShown<T>>(this);
  private _complete = new Signal<this, SuggestionLifecycle.IShown<T>>(this);
  private _accepted = new Signal<this, SuggestionLifecycle.IAccepted>(this);
  private _ended = new Signal<this, SuggestionLifecycle.IEnded>(this);
}

/**
 * The lifecycle's types.
 */
export namespace SuggestionLifecycle {
  /**
   * Ghost text in the editor, or an edit prediction (one cell or several).
   */
  export type Kind = 'inline' | 'edit';

  /**
   * What was accepted: the whole rest, a word or a line of ghost text, or an edit prediction's
   * edits in one cell.
   */
  export type Part = 'whole' | 'word' | 'line' | 'cell';

  /**
   * How a suggestion ended: accepted (to its end), dismissed (Escape), typed through (the user
   * typed what it said, or edited its place), discarded (replaced by another one, or gone).
   */
  export type EndReason = 'accepted' | 'dismissed' | 'typed-through' | 'discarded';

  export interface IOptions {
    kind: Kind;
  }

  export interface IAsked {
    id: number;
  }

  export interface IShown<T> {
    id: number;
    detail: T;
  }

  export interface IAccepted {
    id: number;
    part: Part;
    /**
     * The text accepted (null: the whole rest shown).
     */
    text: string | null;
    /**
     * Characters inserted (edit predictions; 0: the length of `text`).
     */
    chars: number;
    /**
     * Where its text went (edit predictions), to count what is still there later.
     */
    kept: ReadonlyArray<IKeptProbe>;
  }

  export interface IEnded {
    id: number;
    reason: EndReason;
  }
}
