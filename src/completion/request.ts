/**
 * "Request Code Completion" (Alt+\): a suggestion at the cursor of the editor being edited now.
 * A menu or the palette took the focus: the editor is remembered (`EditorFocusTracker`), given
 * the focus back (and a notebook its edit mode), then asked.
 */
import { EditorView } from '@codemirror/view';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { EditorFocusTracker } from './focus';

/**
 * Asks for a suggestion where the user edits.
 */
export class CompletionRequester {
  constructor(options: CompletionRequester.IOptions) {
    this._options = options;
  }

  /**
   * Whether a request can go: an editor is being edited, or the focus is in one.
   */
  get enabled(): boolean {
    return this._editing() !== null || CompletionRequester.inEditor();
  }

  /**
   * Ask. Only an editor the user is editing gets a suggestion: never a notebook cell in command
   * mode. Elsewhere in an editor, JupyterLab's own request runs.
   */
  request(): unknown {
    const target = this._editing();
    if (!target) {
      return CompletionRequester.inEditor() ? this._options.fallback() : undefined;
    }
    const { widget, editor } = target;
    if (widget instanceof NotebookPanel) {
      const notebook = widget.content;
      const index = notebook.widgets.findIndex(cell => cell.node.contains(editor));
      if (index < 0) {
        return;
      }
      notebook.activeCellIndex = index;
      notebook.mode = 'edit';
    }
    EditorView.findFromDOM(editor)?.focus();
    return this._options.invoke(widget.id) ? undefined : this._options.fallback();
  }

  private _editing(): { widget: Widget; editor: HTMLElement } | null {
    const editor = this._focus.editor;
    const widget = this._options.currentWidget();
    if (!editor || !widget || !widget.node.contains(editor)) {
      return null;
    }
    return { widget, editor };
  }

  private _options: CompletionRequester.IOptions;
  private _focus = new EditorFocusTracker();
}

/**
 * The requester's statics.
 */
export namespace CompletionRequester {
  export interface IOptions {
    /**
     * The main area's current widget.
     */
    currentWidget: () => Widget | null;
    /**
     * Ask JupyterLab's inline completer of a widget; false: there is none.
     */
    invoke: (widgetId: string) => boolean;
    /**
     * JupyterLab's own request (`inline-completer:invoke`), where ours cannot ask.
     */
    fallback: () => unknown;
  }

  /**
   * Whether the focus is in a code editor.
   */
  export function inEditor(): boolean {
    const active = document.activeElement;
    return !!active && typeof active.closest === 'function' && !!active.closest('.cm-editor');
  }
}
