/**
 * Restraint as a feature (the classes are in `restraint.ts`): it follows the provider's
 * suggestions through their signals (started, failed with a busy model, shown, dismissed), the
 * edit predictions' ends, and the keys typed in editors, learns the gate from the server, tells
 * the usage tracker the rhythm and the pauses, and decides for each automatic request (an
 * inline suggestion: skip it or wait; an edit prediction: hold it or ask).
 */
import { busySeconds, isBusyError } from '../connection/protocol';
import type { SuggestionLifecycle } from '../lifecycle/lifecycle';
import { ISettings, RestraintMode } from '../settings';
import { ICodeCompleteProvider, IUsageTracker } from '../tokens';
import { lineKind } from '../usage/usage';
import { CodeCompleteProvider } from './provider';
import { AdaptiveDebounce, IGateModel, Restraint } from './restraint';

/**
 * The gate's level on the server for each setting.
 */
export const GATE_LEVELS: { [mode in RestraintMode]: string } = {
  off: 'off',
  on: 'normal',
  more: 'more',
  less: 'less'
};

type Restrain = NonNullable<CodeCompleteProvider.IOptions['restrain']>;

/**
 * The restraint of one page.
 */
export class RestraintFeature {
  constructor(options: RestraintFeature.IOptions) {
    this._options = options;
  }

  readonly restraint = new Restraint();

  /**
   * Follow the provider's suggestions: the model's time to show (a request to its first ghost
   * text), a shared model's pause, the place of a dismissal.
   */
  follow(provider: Pick<ICodeCompleteProvider, 'activity' | 'lifecycle'>): void {
    const { debounce, gate } = this.restraint;
    const life = provider.lifecycle;
    provider.activity.connect((_, activity) => {
      if (activity.kind === 'failed' && isBusyError(activity.error)) {
        // a shared model asked for a pause: fewer requests for a while after it, too
        debounce.strain(
          this._now() + busySeconds(activity.error!) * 1000 + AdaptiveDebounce.STRAIN_AFTER_MS
        );
      }
    });
    life.asked.connect((_, { id }) => {
      this._started.set(id, this._now());
      if (this._started.size > 64) {
        this._started.delete(this._started.keys().next().value as number);
      }
    });
    life.shown.connect((_, { id, detail: { rest } }) => {
      const t = this._started.get(id);
      if (t !== undefined && rest) {
        this._started.delete(id);
        debounce.latency(this._now() - t);
      }
    });
    life.ended.connect((_, { reason }) => {
      if (reason !== 'dismissed') {
        return;
      }
      const state = this._options.editorState();
      if (state) {
        gate.dismissedAt(state.key, state.text, state.offset);
      }
    });
  }

  /**
   * Follow the edit predictions: how each ended (taken, or turned down), for their back-off.
   */
  followEdits(lifecycle: Pick<SuggestionLifecycle<unknown>, 'ended'>): void {
    lifecycle.ended.connect((_, { reason }) => this.restraint.edits.ended(reason, this._now()));
  }

  /**
   * Restraint for an automatic edit prediction: a reason to hold it, or null to ask.
   */
  readonly decideEdit = (): string | null =>
    this.restraint.decideEdit(this._options.settings().restraint, this._now());

  /**
   * What each usage event carries of restraint, and what the page learns from an accept.
   */
  attach(tracker: IUsageTracker): void {
    const restraint = this.restraint;
    // each usage event carries the typing rhythm its request came after (the gate learns it)
    tracker.rhythm = () => restraint.debounce.rhythm;
    // and whether restraint held it (its pause before an accept is then not the user's own)
    tracker.held = () => this._options.settings().restraint !== 'off' && restraint.held;
    // how long the user pauses before taking a suggestion (held places wait that long): the
    // event carries it for the server to learn, and this page learns it at once
    tracker.pause = () => (this._lastKey ? this._now() - this._lastKey : Number.NaN);
    tracker.onAccept = (kind, pauseMs, held) => {
      if (pauseMs !== null) {
        restraint.accepted(kind, pauseMs, held);
      }
    };
  }

  /**
   * A key went down somewhere in the page: typing in an editor counts.
   */
  keydown(event: KeyboardEvent): void {
    const target = event.target as Element | null;
    if (
      target &&
      typeof target.closest === 'function' &&
      target.closest('.cm-editor') &&
      (event.key.length === 1 || event.key === 'Backspace' || event.key === 'Enter')
    ) {
      this._lastKey = this._now();
      this.restraint.debounce.keystroke(this._lastKey);
    }
  }

  /**
   * Ask the server for the gate's model at the level set (none while restraint or usage
   * recording is off); again only when the level changed, unless `force`.
   */
  async learn(force = true): Promise<void> {
    const { gate, pauses } = this.restraint;
    const current = this._options.settings();
    const mode = current.restraint;
    if (!force && mode === this._asked) {
      return;
    }
    this._asked = mode;
    if (mode === 'off' || !current.recordUsage) {
      gate.model = null;
      pauses.model = null;
      return;
    }
    try {
      gate.model = await this._options.fetchGate(GATE_LEVELS[mode]);
    } catch {
      gate.model = null; // an older server: no gate
    }
    // the pauses the server learned from the stored events (until this page has its own)
    pauses.model = gate.model;
  }

  /**
   * The provider's restraint for an automatic request: a reason to skip it, or null to send it
   * (after waiting the rest of the adaptive debounce, or the hold).
   */
  readonly decide: Restrain = async ({ state, freshLine, language }) => {
    if (this._options.settings().restraint === 'off') {
      return null;
    }
    const { skip, after } = this.restraint.decide({
      key: state.key,
      text: state.text,
      offset: state.offset,
      trigger: freshLine ? 'fresh_line' : 'typing',
      lineKind: lineKind(state.text, state.offset, language),
      typingMs: this.restraint.debounce.rhythm
    });
    if (skip) {
      return skip;
    }
    // JupyterLab's own debounce has passed; wait the rest of the adaptive one (or the hold)
    const extra = after - (this._now() - this._lastKey);
    if (extra > 0) {
      await new Promise(resolve => setTimeout(resolve, extra));
      // the user left the editor while the request waited (command mode, a menu): not wanted
      if (!this._options.inEditor()) {
        return 'left-editor';
      }
    }
    return null;
  };

  private _now(): number {
    return (this._options.now ?? Date.now)();
  }

  private _options: RestraintFeature.IOptions;
  private _lastKey = 0;
  private _asked = '';
  private _started = new Map<number, number>();
}

/**
 * The feature's statics.
 */
export namespace RestraintFeature {
  export interface IOptions {
    settings: () => ISettings;
    /**
     * The gate's model the server learned at a level (null: none).
     */
    fetchGate: (level: string) => Promise<IGateModel | null>;
    /**
     * The editor that has the cursor, as typing-through sees it (null: none).
     */
    editorState: () => { key: string; text: string; offset: number } | null;
    /**
     * Whether the focus is in a code editor.
     */
    inEditor: () => boolean;
    now?: () => number;
  }
}
