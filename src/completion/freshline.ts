/**
 * Fresh-line suggestions: JupyterLab's inline completer never asks by itself when only
 * indentation precedes the cursor, yet the line after `def f():` + Enter is where a suggestion
 * is wanted most. This watches every CodeMirror editor (a CodeMirror extension), and when a
 * user's Enter (or Backspace back to the indentation) leaves the cursor on a line with only
 * indentation, it asks for a suggestion after the same debounce as automatic requests; any
 * keystroke in between cancels it. The request is marked automatic (see `shouldTrigger` for
 * the rules, which the unit tests cover).
 */
import { Extension } from '@codemirror/state';
import { EditorView, ViewUpdate } from '@codemirror/view';

import { isLanguageEnabled, ISettings } from '../settings';

/**
 * Host classes JupyterLab puts on an editor while its Tab completer is open, or while inline
 * ghost text is shown.
 */
export const TAB_COMPLETER_ACTIVE_CLASS = 'jp-mod-completer-active';
export const INLINE_COMPLETER_ACTIVE_CLASS = 'jp-mod-inline-completer-active';

/**
 * What the trigger rules look at.
 */
export interface IFreshLineState {
  /**
   * The cursor's line up to the cursor.
   */
  before: string;
  /**
   * The cursor's line after the cursor.
   */
  after: string;
  /**
   * The user's edit: a line break typed (Enter), a deletion, or something else.
   */
  edit: 'newline' | 'delete' | 'other';
  /**
   * The editor's language, as the provider resolves it.
   */
  language: string | null;
  tabCompleterOpen: boolean;
  suggestionShown: boolean;
  hasSelection: boolean;
}

/**
 * Whether a fresh-line suggestion should be requested.
 */
export function shouldTrigger(state: IFreshLineState, settings: ISettings): boolean {
  if (!settings.enabled || !settings.freshLineSuggestions || settings.trigger !== 'auto') {
    return false;
  }
  if (!isLanguageEnabled(settings, state.language)) {
    return false;
  }
  if (state.tabCompleterOpen || state.suggestionShown || state.hasSelection) {
    return false;
  }
  if (state.edit === 'other') {
    return false;
  }
  // Only indentation before the cursor; after it nothing, or only closing brackets (Enter
  // between `{}` or `()` leaves the closer on the next line, not on this one, but an editor
  // may keep it here).
  return /^[ \t]*$/.test(state.before) && /^\s*[)\]}]*\s*$/.test(state.after);
}

/**
 * Whether ghost text with something in it is shown in this editor. Neither the host's
 * `jp-mod-inline-completer-active` class nor an empty `.jp-GhostText` node counts: JupyterLab
 * leaves both behind after Tab accepts a suggestion (and its spacer nodes are always empty).
 */
export function ghostTextShown(editor: Element): boolean {
  for (const node of Array.from(editor.querySelectorAll('.jp-GhostText'))) {
    if ((node.textContent ?? '').length > 0) {
      return true;
    }
  }
  return false;
}

/**
 * Watches editors and asks for fresh-line suggestions.
 */
export class FreshLineTrigger {
  constructor(options: FreshLineTrigger.IOptions) {
    this._options = options;
  }

  /**
   * The CodeMirror extension that feeds this trigger (add it to every editor).
   */
  extension(): Extension {
    return EditorView.updateListener.of(update => this.onUpdate(update));
  }

  /**
   * Cancel a pending request.
   */
  cancel(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  /**
   * One editor update: schedule, reschedule or cancel the fresh-line request.
   */
  onUpdate(update: ViewUpdate): void {
    if (!update.docChanged && !update.selectionSet) {
      return;
    }
    // Any edit or cursor move supersedes a pending request (like the debounce of typing).
    this.cancel();
    if (!update.docChanged || !update.view.hasFocus) {
      return;
    }
    const user = update.transactions.some(
      tr => tr.isUserEvent('input') || tr.isUserEvent('delete')
    );
    if (!user) {
      return;
    }
    let edit: IFreshLineState['edit'] = 'other';
    update.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
      const text = inserted.toString();
      if (text.includes('\n')) {
        edit = 'newline';
      } else if (toA > fromA && text.length === 0 && edit !== 'newline') {
        edit = 'delete';
      }
    });
    const view = update.view;
    // Whether a suggestion is shown is judged when the timer fires, not now: the ghost text of
    // the line just left is still on screen during the Enter's own update (JupyterLab removes
    // it after this listener runs), and must not stop the fresh line's request.
    const state = this._read(view, edit, false);
    if (!state || !shouldTrigger(state, this._options.settings())) {
      return;
    }
    const doc = view.state.doc;
    const head = view.state.selection.main.head;
    this._timer = setTimeout(
      () => {
        this._timer = null;
        // Still the same text and cursor, still focused, still nothing shown or open.
        if (view.state.doc !== doc || view.state.selection.main.head !== head || !view.hasFocus) {
          return;
        }
        const again = this._read(view, edit, ghostTextShown(view.dom));
        if (!again || !shouldTrigger(again, this._options.settings())) {
          return;
        }
        this._options.request(view);
      },
      Math.max(0, this._options.delay())
    );
  }

  private _read(
    view: EditorView,
    edit: IFreshLineState['edit'],
    suggestionShown: boolean
  ): IFreshLineState | null {
    const selection = view.state.selection.main;
    const line = view.state.doc.lineAt(selection.head);
    const host = view.dom.parentElement ?? view.dom;
    return {
      before: line.text.slice(0, selection.head - line.from),
      after: line.text.slice(selection.head - line.from),
      edit,
      language: this._options.language(view),
      tabCompleterOpen: !!host.closest(`.${TAB_COMPLETER_ACTIVE_CLASS}`),
      suggestionShown,
      hasSelection:
        view.state.selection.ranges.some(r => !r.empty) || view.state.selection.ranges.length > 1
    };
  }

  private _options: FreshLineTrigger.IOptions;
  private _timer: ReturnType<typeof setTimeout> | null = null;
}

/**
 * A namespace for FreshLineTrigger statics.
 */
export namespace FreshLineTrigger {
  export interface IOptions {
    /**
     * The current settings.
     */
    settings: () => ISettings;
    /**
     * The debounce (ms): the same as automatic requests.
     */
    delay: () => number;
    /**
     * The language of the editor behind a view (null: unknown).
     */
    language: (view: EditorView) => string | null;
    /**
     * Ask for a suggestion in the editor behind the view.
     */
    request: (view: EditorView) => void;
  }
}
