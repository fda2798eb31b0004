/**
 * A warm model server (issue 29): when an editor gets the focus (a notebook or file opened, a
 * cell entered) or the user pauses, the context the next suggestion will be asked for is sent
 * ahead (`warm`, protocol 3) so that the model server has its prompt cached when the request
 * comes: on a CPU model, evaluating the prompt is most of the wait.
 *
 * Bounded here (the server bounds it too: one in flight, never beside a suggestion, a request
 * cancels it): one warm-up per focus and per pause, none for a document and cursor just warmed.
 */
import { Extension } from '@codemirror/state';
import { EditorView, ViewUpdate } from '@codemirror/view';

/**
 * How long (ms) the user must pause after an edit before the context is sent ahead.
 */
export const WARM_PAUSE_MS = 1500;

/**
 * How long (ms) after the focus comes the context is sent (a quick trip through cells sends one).
 */
export const WARM_FOCUS_MS = 100;

/**
 * Watches editors; asks for a warm-up after the focus arrives or the user pauses.
 */
export class WarmTrigger {
  constructor(options: WarmTrigger.IOptions) {
    this._options = options;
  }

  /**
   * The CodeMirror extension that feeds this trigger (add it to every editor).
   */
  extension(): Extension {
    return EditorView.updateListener.of(update => this.onUpdate(update));
  }

  /**
   * One editor update: the focus came (soon), or an edit (after a pause).
   */
  onUpdate(update: ViewUpdate): void {
    if (update.focusChanged && update.view.hasFocus) {
      this.schedule(update.view, this._options.focusDelay?.() ?? WARM_FOCUS_MS);
    } else if (update.docChanged && update.view.hasFocus) {
      this.schedule(update.view, this._options.pause?.() ?? WARM_PAUSE_MS);
    } else if (update.focusChanged) {
      this.cancel();
    }
  }

  /**
   * Send the warm-up for `view` after `delay` ms, unless something else happens first.
   */
  schedule(view: EditorView, delay: number): void {
    this.cancel();
    const doc = view.state.doc;
    const head = view.state.selection.main.head;
    this._timer = setTimeout(() => {
      this._timer = null;
      if (!view.hasFocus || view.state.doc !== doc || view.state.selection.main.head !== head) {
        return;
      }
      if (this._last?.doc === doc && this._last.head === head) {
        return; // just warmed, nothing changed
      }
      if (this._options.warm(view)) {
        this._last = { doc, head };
      }
    }, delay);
  }

  /**
   * Drop a pending warm-up.
   */
  cancel(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private _options: WarmTrigger.IOptions;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _last: { doc: unknown; head: number } | null = null;
}

/**
 * A namespace for WarmTrigger statics.
 */
export namespace WarmTrigger {
  export interface IOptions {
    /**
     * Send the warm-up for the editor behind the view; whether it was sent.
     */
    warm: (view: EditorView) => boolean;
    /**
     * The pause after an edit (ms; default `WARM_PAUSE_MS`).
     */
    pause?: () => number;
    /**
     * The delay after the focus arrives (ms; default `WARM_FOCUS_MS`).
     */
    focusDelay?: () => number;
  }
}
