/**
 * The editor that has the cursor in a notebook, console or file editor, and its state as the
 * typing-through logic sees it (document key, text, cursor offset). Kept apart from the
 * provider so the provider stays testable without widgets.
 */
import { CodeEditor } from '@jupyterlab/codeeditor';
import { ConsolePanel } from '@jupyterlab/console';
import { DocumentWidget } from '@jupyterlab/docregistry';
import { FileEditor } from '@jupyterlab/fileeditor';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { IEditorState } from './typing';

/**
 * The active editor of a widget and the key of the document (and cell) it edits.
 */
export function activeEditor(
  widget: Widget | null | undefined
): { editor: CodeEditor.IEditor; key: string } | null {
  if (!widget) {
    return null;
  }
  if (widget instanceof NotebookPanel) {
    const cell = widget.content.activeCell;
    return cell?.editor
      ? { editor: cell.editor, key: `${widget.context.path}#${cell.model.id}` }
      : null;
  }
  if (widget instanceof ConsolePanel) {
    const prompt = widget.console.promptCell;
    return prompt?.editor
      ? { editor: prompt.editor, key: `${widget.console.sessionContext.path}#${prompt.model.id}` }
      : null;
  }
  if (widget instanceof DocumentWidget && widget.content instanceof FileEditor) {
    return { editor: widget.content.editor, key: widget.context.path };
  }
  return null;
}

/**
 * The state of the editor that has the cursor in a widget, or null (no editor, or a selection).
 */
export function editorState(widget: Widget | null | undefined): IEditorState | null {
  const found = activeEditor(widget);
  if (!found) {
    return null;
  }
  const { editor, key } = found;
  const selection = editor.getSelection();
  if (
    selection.start.line !== selection.end.line ||
    selection.start.column !== selection.end.column
  ) {
    return null;
  }
  return {
    key,
    text: editor.model.sharedModel.getSource(),
    offset: editor.getOffsetAt(editor.getCursorPosition())
  };
}

/**
 * The key of the document and cell a request is for (same key as `editorState`).
 */
export function editorKey(widget: Widget | null | undefined): string | null {
  return activeEditor(widget)?.key ?? null;
}
