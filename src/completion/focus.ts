/**
 * Which editor the user is editing, remembered across a trip to a menu.
 *
 * "Request Code Completion" runs from the status menu, the Settings menu or the command
 * palette, and each of them takes the focus (and a notebook then leaves edit mode). A suggestion
 * must only go to the editor the user was editing right before: this tracker remembers the
 * last focused editor while the focus is in one of those menus, and forgets it when the focus
 * goes anywhere else (notebook command mode, the file browser, another panel).
 */
import { IDisposable } from '@lumino/disposable';

/**
 * Remembers the last focused CodeMirror editor (`.cm-editor`).
 */
export class EditorFocusTracker implements IDisposable {
  constructor(options: EditorFocusTracker.IOptions = {}) {
    this._keep = options.keep ?? EditorFocusTracker.DEFAULT_KEEP;
    this._root = options.root ?? document;
    this._root.addEventListener('focusin', this, true);
  }

  /**
   * The editor being edited (or edited right before a menu took the focus), or null.
   */
  get editor(): HTMLElement | null {
    if (this._editor && !this._editor.isConnected) {
      this._editor = null;
    }
    return this._editor;
  }

  handleEvent(event: Event): void {
    const target = event.target as Element | null;
    if (!target || typeof target.closest !== 'function') {
      return;
    }
    const editor = target.closest('.cm-editor') as HTMLElement | null;
    if (editor) {
      this._editor = editor;
    } else if (!this._keep.some(selector => target.closest(selector))) {
      this._editor = null;
    }
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._root.removeEventListener('focusin', this, true);
    this._editor = null;
  }

  private _keep: string[];
  private _root: Document | HTMLElement;
  private _editor: HTMLElement | null = null;
  private _disposed = false;
}

/**
 * A namespace for EditorFocusTracker statics.
 */
export namespace EditorFocusTracker {
  /**
   * Where the focus may go without forgetting the editor: menus, the status item, the palette.
   */
  export const DEFAULT_KEEP = [
    '.lm-Menu',
    '.lm-MenuBar',
    '.jp-CodeComplete-status',
    '.lm-CommandPalette',
    '.jp-ModalCommandPalette'
  ];

  export interface IOptions {
    /**
     * Selectors of elements whose focus keeps the remembered editor.
     */
    keep?: string[];
    /**
     * Where to listen (default: the document).
     */
    root?: Document | HTMLElement;
  }
}
