/**
 * Reading context from JupyterLab widgets: the notebook cells around the cursor, the
 * editor's MIME type, and other open documents. Kept apart so the provider stays testable.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { IInlineCompletionContext } from '@jupyterlab/completer';
import { ConsolePanel } from '@jupyterlab/console';
import { DocumentWidget, IDocumentWidget } from '@jupyterlab/docregistry';
import { FileEditor } from '@jupyterlab/fileeditor';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { ICellInfo } from './context';
import { languageId } from './languagetable';
import { IRawOutput } from './outputs';
import { IContextFile } from '../connection/protocol';
import { runRecord } from './runs';
import { CodeCompleteProvider } from '../completion/provider';

type ResolveLanguage = (mime: string | null) => string | null;

function cellType(type: string): ICellInfo['cell_type'] {
  return type === 'markdown' || type === 'raw' ? type : 'code';
}

/**
 * A code cell's outputs as nbformat, read when asked (only for the cells that are sent).
 */
export function outputsOf(model: { type: string }): (() => IRawOutput[]) | undefined {
  if (model.type !== 'code') {
    return undefined;
  }
  return () => {
    // ICodeCellModel.outputs, read structurally
    const outputs = (
      model as unknown as {
        outputs?: { length: number; get(index: number): { toJSON(): unknown } };
      }
    ).outputs;
    const raw: IRawOutput[] = [];
    for (let i = 0; outputs && i < outputs.length; i++) {
      raw.push(outputs.get(i).toJSON() as IRawOutput);
    }
    return raw;
  };
}

/**
 * A notebook cell as the context builder sees it: type, language, source, outputs, id and
 * execution order (its count, and whether it changed since it last ran in this tab).
 */
export function notebookCellInfo(
  model: {
    type: string;
    id: string;
    sharedModel: { getSource(): string };
  },
  codeLanguage: string | null
): ICellInfo {
  const type = cellType(model.type);
  const source = model.sharedModel.getSource();
  const info: ICellInfo = {
    cell_type: type,
    language: type === 'code' ? codeLanguage : type === 'markdown' ? 'markdown' : null,
    source,
    outputs: outputsOf(model),
    cell_id: model.id
  };
  if (type === 'code') {
    const count = (model as unknown as { executionCount?: number | null }).executionCount;
    info.execution_count = typeof count === 'number' ? count : null;
    const changed = runRecord.changed(model, source);
    if (changed !== undefined) {
      info.changed = changed;
    }
  }
  return info;
}

/**
 * The cells of a notebook or of a console: sources, types, languages, and a reader of each
 * code cell's outputs.
 */
export function collectCells(
  context: IInlineCompletionContext,
  resolveLanguage: ResolveLanguage
): CodeCompleteProvider.ICells | null {
  const widget = context.widget;
  if (widget instanceof NotebookPanel) {
    const notebook = widget.content;
    const active = notebook.activeCell;
    const codeLanguage = resolveLanguage(notebook.codeMimetype);
    const cells: ICellInfo[] = notebook.widgets.map(cell =>
      notebookCellInfo(cell.model, codeLanguage)
    );
    const activeIndex = active ? notebook.widgets.indexOf(active) : -1;
    return { cells, activeIndex, cellId: active?.model.id ?? null };
  }
  if (widget instanceof ConsolePanel) {
    const console = widget.console;
    const prompt = console.promptCell;
    const language = prompt ? resolveLanguage(prompt.model.mimeType) : null;
    const cells: ICellInfo[] = [];
    for (let i = 0; i < console.cells.length; i++) {
      const cell = console.cells.get(i);
      cells.push({
        cell_type: cellType(cell.model.type),
        language: cell.model.type === 'code' ? language : null,
        source: cell.model.sharedModel.getSource(),
        outputs: outputsOf(cell.model)
      });
    }
    // The prompt is the active cell, after the executed ones.
    cells.push({ cell_type: 'code', language, source: '' });
    return { cells, activeIndex: cells.length - 1, cellId: prompt?.model.id ?? null };
  }
  return null;
}

/**
 * The MIME type of the editor that has the focus in a widget (for the language switch).
 */
export function currentEditorMime(widget: Widget | null): string | null {
  if (!widget) {
    return null;
  }
  if (widget instanceof NotebookPanel) {
    return widget.content.activeCell?.model.mimeType ?? widget.content.codeMimetype;
  }
  if (widget instanceof ConsolePanel) {
    return widget.console.promptCell?.model.mimeType ?? null;
  }
  if (widget instanceof DocumentWidget && widget.content instanceof FileEditor) {
    return widget.content.model.mimeType;
  }
  return null;
}

/**
 * Other open documents in the main area: text files as they are, notebooks as their code.
 */
export function collectOpenDocuments(
  app: JupyterFrontEnd,
  resolveLanguage: ResolveLanguage
): IContextFile[] {
  const files: IContextFile[] = [];
  const shell = app.shell as JupyterFrontEnd.IShell;
  let widgets: Iterable<Widget>;
  try {
    widgets = shell.widgets('main');
  } catch {
    return files;
  }
  for (const widget of widgets) {
    if (widget instanceof NotebookPanel) {
      const language = resolveLanguage(widget.content.codeMimetype);
      const content = widget.content.widgets
        .filter(cell => cell.model.type === 'code')
        .map(cell => cell.model.sharedModel.getSource())
        .join('\n\n');
      files.push({ path: widget.context.path, content, language });
    } else if (widget instanceof DocumentWidget && widget.content instanceof FileEditor) {
      files.push({
        path: widget.context.path,
        content: widget.content.model.sharedModel.getSource(),
        language: resolveLanguage(widget.content.model.mimeType)
      });
    }
  }
  return files;
}

/**
 * The language of the kernel behind a notebook or console, from the notebook metadata or
 * the kernel name ("python3" → "python", "ir" → "r"); used while the editor MIME type is still plain text
 * (before the kernel has told its language).
 */
export function kernelLanguage(context: IInlineCompletionContext): string | null {
  const widget = context.widget;
  if (widget instanceof NotebookPanel && widget.model) {
    const info = widget.model.getMetadata('language_info') as { name?: string } | undefined;
    if (info?.name) {
      return languageId(info.name);
    }
    const spec = widget.model.getMetadata('kernelspec') as { language?: string } | undefined;
    if (spec?.language) {
      return languageId(spec.language);
    }
  }
  const preferred = (
    widget as unknown as {
      sessionContext?: { kernelPreference?: { name?: string | null } };
    }
  ).sessionContext?.kernelPreference?.name;
  const name = context.session?.kernel?.name ?? preferred;
  if (name) {
    const match = /^([a-z+#-]+?)[-_]?[\d.]*$/i.exec(name);
    return languageId(match ? match[1] : name);
  }
  return null;
}

/**
 * The text of an open document by the key the provider uses: `path#cellId` in a notebook (found
 * by cell id, so a moved cell or a renamed notebook is still found; `''` when the notebook is
 * open and the cell is gone), the path of a file editor; null when it is not open.
 */
export function documentText(
  notebooks: Iterable<NotebookPanel>,
  editors: Iterable<IDocumentWidget<FileEditor>>
): (key: string) => string | null {
  return key => {
    const hash = key.lastIndexOf('#');
    if (hash >= 0) {
      const cellId = key.slice(hash + 1);
      let open = false;
      for (const panel of notebooks) {
        open = open || panel.context.path === key.slice(0, hash);
        const cell = panel.content.widgets.find(c => c.model.id === cellId);
        if (cell) {
          return cell.model.sharedModel.getSource();
        }
      }
      return open ? '' : null;
    }
    for (const widget of editors) {
      if (widget.context.path === key) {
        return widget.content.model.sharedModel.getSource();
      }
    }
    return null;
  };
}
