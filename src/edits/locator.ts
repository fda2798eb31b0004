/**
 * Where a CodeMirror editor lives (its notebook panel and cell, or the main-area widget that
 * holds it) and what an edit-prediction request from it carries (path, language, the cells
 * around it). Kept apart from the plugin so that the edit-prediction feature is built from
 * classes with their options.
 */
import { EditorView } from '@codemirror/view';
import { Cell } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

import { contextCells } from '../context/context';
import { notebookCellInfo } from '../context/widgets';
import { ISettings } from '../settings';
import { EditPredictionController } from './editrequest';

/**
 * A notebook panel and one of its cells.
 */
export interface ICellPlace {
  panel: NotebookPanel;
  cell: Cell;
}

/**
 * The editor's place in the page.
 */
export class EditorLocator {
  constructor(options: EditorLocator.IOptions) {
    this._options = options;
  }

  /**
   * The notebook panel and cell of an editor (cached; checked on each use), or null.
   */
  locate(view: EditorView): ICellPlace | null {
    const known = this._located.get(view);
    if (known && !known.cell.isDisposed && known.cell.node.contains(view.dom)) {
      return known;
    }
    let found: ICellPlace | null = null;
    for (const panel of this._options.panels()) {
      if (panel.node.contains(view.dom)) {
        const cell = panel.content.widgets.find(c => c.node.contains(view.dom));
        if (cell) {
          found = { panel, cell };
          break;
        }
      }
    }
    if (found) {
      this._located.set(view, found);
    }
    return found;
  }

  /**
   * The document an editor belongs to: its notebook panel, else the main-area widget holding it.
   */
  documentOf(view: EditorView): object | null {
    const where = this.locate(view);
    if (where) {
      return where.panel;
    }
    for (const widget of this._options.mainWidgets()) {
      if (widget.node.contains(view.dom)) {
        return widget;
      }
    }
    return null;
  }

  /**
   * The language of a notebook's code cells.
   */
  codeLanguage(panel: NotebookPanel): string | null {
    return this._options.resolveLanguage(panel.content.codeMimetype);
  }

  /**
   * What an edit-prediction request from this editor carries.
   */
  context(view: EditorView): EditPredictionController.IContext {
    const where = this.locate(view);
    if (!where) {
      const doc = this.documentOf(view);
      return {
        path: EditorLocator.pathOf(doc ?? this._options.currentWidget()),
        language: this._options.editorLanguage(),
        document: doc
      };
    }
    const { panel, cell } = where;
    const language = this.codeLanguage(panel);
    return {
      path: panel.context.path,
      language: this._options.editorLanguage() ?? language,
      document: panel,
      cellId: cell.model.id,
      cells: ids => {
        const widgets = panel.content.widgets;
        const infos = widgets.map(c => notebookCellInfo(c.model, language));
        return contextCells(infos, widgets.indexOf(cell), this._options.settings(), ids);
      },
      otherText: () =>
        panel.content.widgets
          .filter(c => c !== cell && c.model.type === 'code')
          .map(c => c.model.sharedModel.getSource())
          .join('\n')
    };
  }

  private _options: EditorLocator.IOptions;
  private _located = new WeakMap<EditorView, ICellPlace>();
}

/**
 * The locator's statics.
 */
export namespace EditorLocator {
  export interface IOptions {
    /**
     * The open notebook panels.
     */
    panels: () => Iterable<NotebookPanel>;
    /**
     * The widgets of the main area (a file editor's document).
     */
    mainWidgets: () => Iterable<{ node: HTMLElement }>;
    /**
     * The main area's current widget.
     */
    currentWidget: () => unknown;
    /**
     * The language of a MIME type (null: unknown).
     */
    resolveLanguage: (mime: string) => string | null;
    /**
     * The language of the editor that has the cursor.
     */
    editorLanguage: () => string | null;
    settings: () => ISettings;
  }

  /**
   * A document widget's path, if it has one.
   */
  export function pathOf(widget: unknown): string | null {
    const path = (widget as { context?: { path?: unknown } } | null)?.context?.path;
    return typeof path === 'string' ? path : null;
  }

  /**
   * A cell's CodeMirror view.
   */
  export function viewOfCell(cell: Cell): EditorView | null {
    const view = (cell.editor as unknown as { editor?: unknown } | null)?.editor;
    return view instanceof EditorView ? view : null;
  }
}
