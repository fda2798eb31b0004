/**
 * Escape dismisses a visible suggestion and keeps the editor in edit mode.
 *
 * JupyterLab 4.6 has no "dismiss" action for inline completions: in a file editor Escape
 * leaves the ghost text, in a notebook it dismisses it only by leaving edit mode, in a console
 * the console's own key handler moves the focus away. `EscapeListener` handles Escape before
 * any of them, and only while a suggestion is shown; with none shown, Escape does what
 * JupyterLab does.
 */
import { CompletionHandler, ICompletionProviderManager } from '@jupyterlab/completer';
import { IDisposable } from '@lumino/disposable';

import { ghostTextShown, INLINE_COMPLETER_ACTIVE_CLASS } from './freshline';

/**
 * The completion handler JupyterLab's manager keeps for a notebook, console or editor widget.
 *
 * The manager has no public accessor for it (4.6); its private map is read defensively and
 * `null` is returned when its shape changes.
 */
export function inlineCompleterOf(
  manager: ICompletionProviderManager,
  widgetId: string
): CompletionHandler['inlineCompleter'] | null {
  const handlers = (manager as unknown as { _panelHandlers?: unknown })._panelHandlers;
  if (!(handlers instanceof Map)) {
    return null;
  }
  const handler = handlers.get(widgetId) as CompletionHandler | undefined;
  return handler?.inlineCompleter ?? null;
}

/**
 * Dismiss the suggestion shown in a widget; true when one was shown.
 */
export function dismissSuggestion(manager: ICompletionProviderManager, widgetId: string): boolean {
  const inline = inlineCompleterOf(manager, widgetId);
  if (!inline || !inline.isActive || !inline.model) {
    return false;
  }
  // Clears the ghost text and the "active" class (the model emits its `clear` event).
  inline.model.reset();
  if (!inline.isHidden) {
    inline.hide();
  }
  return true;
}

/**
 * The code editor (`.cm-editor`) a plain keydown of one of `keys` happened in (no modifier, not
 * handled yet), or null.
 */
export function editorOfPlainKey(
  key: KeyboardEvent,
  keys: ReadonlyArray<string>
): HTMLElement | null {
  if (
    key.type !== 'keydown' ||
    !keys.includes(key.key) ||
    key.defaultPrevented ||
    key.shiftKey ||
    key.altKey ||
    key.ctrlKey ||
    key.metaKey
  ) {
    return null;
  }
  const target = key.target as Element | null;
  return target && typeof target.closest === 'function'
    ? (target.closest('.cm-editor') as HTMLElement | null)
    : null;
}

/**
 * A keydown listener on the window (or `target`) in the capture phase, removed on dispose.
 */
export abstract class CaptureKeyListener implements IDisposable {
  constructor(target?: Window | HTMLElement) {
    this._target = target ?? window;
    this._target.addEventListener('keydown', this, true);
  }

  abstract handleEvent(event: Event): void;

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (!this._disposed) {
      this._disposed = true;
      this._target.removeEventListener('keydown', this, true);
    }
  }

  private _target: Window | HTMLElement;
  private _disposed = false;
}

/**
 * Escape while a suggestion is shown: dismiss it, and the key goes no further.
 *
 * The listener sits on the window in the capture phase, so it runs before everything that
 * handles Escape in an editor: Lumino's keybindings (Notebook 7 listens in the capture phase on
 * the document), the console's own capture-phase handler, CodeMirror. With no suggestion shown
 * in the focused editor it does nothing.
 */
export class EscapeListener extends CaptureKeyListener {
  constructor(options: EscapeListener.IOptions) {
    super(options.target);
    this._dismiss = options.dismiss;
  }

  handleEvent(event: Event): void {
    const key = event as KeyboardEvent;
    const editor = editorOfPlainKey(key, ['Escape']);
    // the "active" class alone is no suggestion: JupyterLab leaves it behind after Tab
    if (
      !editor ||
      !editor.closest(`.${INLINE_COMPLETER_ACTIVE_CLASS}`) ||
      !ghostTextShown(editor)
    ) {
      return;
    }
    if (this._dismiss(editor)) {
      key.preventDefault();
      key.stopImmediatePropagation();
    }
  }

  private _dismiss: (editor: HTMLElement) => boolean;
}

/**
 * A namespace for EscapeListener statics.
 */
export namespace EscapeListener {
  export interface IOptions {
    /**
     * Dismiss the suggestion shown in the editor (`.cm-editor` node); true when one was.
     */
    dismiss: (editor: HTMLElement) => boolean;
    /**
     * Where to listen (default: the window).
     */
    target?: Window | HTMLElement;
  }
}
