/**
 * The edit prediction plugin: the view in every CodeMirror editor, the "Predict Next Edit"
 * command, automatic requests (the `editPredictions` setting), Tab / Escape on a prediction,
 * the edit history (`IEditHistory`), notebook-scope edits with their cell markers and Tab to the
 * next one, and the fix offered after a cell's run ends with an error.
 */
import { EditorView } from '@codemirror/view';
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Cell } from '@jupyterlab/cells';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, Notebook, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { contextCells } from '../context/context';
import {
  applyPrediction,
  currentPrediction,
  dismissPrediction,
  EditPredictionKeys,
  editPredictionExtension,
  keptProbes,
  predictionField
} from '../edits/editprediction';
import { EditHistories } from '../context/edithistory';
import { EditPredictionController } from '../edits/editrequest';
import {
  candidateCode,
  cellError,
  errorOfOutputs,
  IErrorContent,
  missingNamePrefix
} from '../edits/errorfix';
import { ghostTextShown, INLINE_COMPLETER_ACTIVE_CLASS } from '../completion/freshline';
import { KernelCompleter } from '../context/kernel';
import { editorEdits, IPendingEdit } from '../edits/notebookedits';
import { INotebookCells, NotebookEditNavigator } from '../edits/notebooknav';
import { IKernelCandidates } from '../connection/protocol';
import { runRecord } from '../context/runs';
import {
  CommandIDs,
  ICodeCompleteSettings,
  ICompletionConnection,
  IEditHistory,
  ILanguageResolver,
  IUsageTracker
} from '../tokens';
import { notebookCellInfo, outputsOf } from '../context/widgets';
import { addEditorExtension } from './editorextension';

/**
 * The CSS classes of the cell markers.
 */
export namespace CellMarkerClasses {
  export const marker = 'jp-codecomplete-CellMarker';
  export const pendingEdit = 'jp-codecomplete-mod-pendingEdit';
  export const fixAvailable = 'jp-codecomplete-mod-fixAvailable';
}

/**
 * The editor that has the focus, if it is a CodeMirror editor.
 */
function focusedView(): EditorView | null {
  const active = document.activeElement;
  const dom = active && typeof active.closest === 'function' ? active.closest('.cm-editor') : null;
  return dom ? EditorView.findFromDOM(dom as HTMLElement) : null;
}

function pathOf(widget: unknown): string | null {
  const path = (widget as { context?: { path?: unknown } } | null)?.context?.path;
  return typeof path === 'string' ? path : null;
}

function viewOfCell(cell: Cell): EditorView | null {
  const view = (cell.editor as unknown as { editor?: unknown } | null)?.editor;
  return view instanceof EditorView ? view : null;
}

/**
 * The edit history of the documents open in this tab (its own plugin: the inline completion
 * provider reads it, the edit prediction plugin records into it).
 */
export const editHistoryPlugin: JupyterFrontEndPlugin<IEditHistory> = {
  id: 'jupyter-codecomplete:edit-history',
  description: 'The recent edits of each open notebook and file, sent with requests.',
  autoStart: true,
  provides: IEditHistory,
  activate: (): IEditHistory => new EditHistories()
};

export const editPredictionPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:edit-prediction',
  description:
    'Edit predictions: the next change around the cursor, shown as a diff; Tab applies it.',
  autoStart: true,
  requires: [ICompletionConnection, ICodeCompleteSettings, IEditorExtensionRegistry, IEditHistory],
  optional: [ILanguageResolver, ITranslator, INotebookTracker, IUsageTracker],
  activate: (
    app: JupyterFrontEnd,
    socket: ICompletionConnection,
    settings: ICodeCompleteSettings,
    registry: IEditorExtensionRegistry,
    histories: IEditHistory,
    languages: ILanguageResolver | null,
    translator: ITranslator | null,
    notebooks: INotebookTracker | null,
    usage: IUsageTracker | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');

    // Where an editor lives: its notebook panel and cell (cached; checked on each use).
    const located = new WeakMap<EditorView, { panel: NotebookPanel; cell: Cell }>();
    const locate = (view: EditorView): { panel: NotebookPanel; cell: Cell } | null => {
      const known = located.get(view);
      if (known && !known.cell.isDisposed && known.cell.node.contains(view.dom)) {
        return known;
      }
      let found: { panel: NotebookPanel; cell: Cell } | null = null;
      notebooks?.forEach(panel => {
        if (!found && panel.node.contains(view.dom)) {
          const cell = panel.content.widgets.find(c => c.node.contains(view.dom));
          if (cell) {
            found = { panel, cell };
          }
        }
      });
      if (found) {
        located.set(view, found);
      }
      return found;
    };
    const documentOf = (view: EditorView): object | null => {
      const where = locate(view);
      if (where) {
        return where.panel;
      }
      let widget: object | null = null;
      for (const w of app.shell.widgets('main')) {
        if (w.node.contains(view.dom)) {
          widget = w;
          break;
        }
      }
      return widget;
    };
    const codeLanguage = (panel: NotebookPanel): string | null =>
      languages?.resolve(panel.content.codeMimetype) ?? null;

    const context = (view: EditorView): EditPredictionController.IContext => {
      const where = locate(view);
      if (!where) {
        const doc = documentOf(view);
        return {
          path: pathOf(doc ?? app.shell.currentWidget),
          language: languages?.editorLanguage() ?? null,
          document: doc
        };
      }
      const { panel, cell } = where;
      const language = codeLanguage(panel);
      return {
        path: panel.context.path,
        language: languages?.editorLanguage() ?? language,
        document: panel,
        cellId: cell.model.id,
        cells: ids => {
          const widgets = panel.content.widgets;
          const infos = widgets.map(c => notebookCellInfo(c.model, language));
          return contextCells(infos, widgets.indexOf(cell), settings.current, ids);
        },
        otherText: () =>
          panel.content.widgets
            .filter(c => c !== cell && c.model.type === 'code')
            .map(c => c.model.sharedModel.getSource())
            .join('\n')
      };
    };

    // The pending edits of each notebook, with their markers.
    const navigators = new WeakMap<Notebook, NotebookEditNavigator>();
    let impression: string | null = null;
    const endImpression = (dismissed: boolean): void => {
      usage?.editEnded(impression, dismissed);
      impression = null;
    };
    const navigatorOf = (notebook: Notebook): NotebookEditNavigator => {
      let nav = navigators.get(notebook);
      if (!nav) {
        const cellOf = (id: string): Cell | null =>
          notebook.widgets.find(c => c.model.id === id) ?? null;
        const cells: INotebookCells = {
          order: () => notebook.widgets.map(c => c.model.id),
          textOf: id => cellOf(id)?.model.sharedModel.getSource() ?? null,
          viewOf: id => {
            const cell = cellOf(id);
            return cell ? viewOfCell(cell) : null;
          },
          activate: id => {
            const cell = cellOf(id);
            if (!cell) {
              return null;
            }
            notebook.activeCellIndex = notebook.widgets.indexOf(cell);
            notebook.mode = 'edit';
            void notebook.scrollToCell(cell, 'auto');
            cell.editor?.focus();
            return viewOfCell(cell);
          },
          mark: (id, kind) => {
            const cell = cellOf(id);
            if (cell) {
              Private.mark(
                cell,
                kind,
                trans.__('Suggested edit: Tab applies it, Escape drops it'),
                trans.__('fix available'),
                trans.__('Fix available: Tab applies it')
              );
            }
          }
        };
        const created = new NotebookEditNavigator(cells, {
          applied: (_, inserted, view, edits) => {
            usage?.editAccepted(impression, inserted, keptProbes(view, edits));
            if (!created.pending.ids('edit').size) {
              endImpression(false);
            }
          },
          dropped: (_, why) => {
            if (why === 'escape') {
              endImpression(true);
            } else if (why === 'changed' && !created.pending.ids('edit').size) {
              endImpression(false); // edited away before any of it was applied
            }
          }
        });
        nav = created;
        navigators.set(notebook, nav);
        notebook.activeCellChanged.connect((_, cell) => {
          if (cell) {
            created.entered(cell.model.id);
          }
        });
      }
      return nav;
    };

    const controller = new EditPredictionController({
      socket,
      mode: () => settings.current.editPredictions,
      context,
      histories,
      onCellEdits: (view, cells) => {
        const where = locate(view);
        if (!where) {
          return false;
        }
        const pending: IPendingEdit[] = [];
        for (const c of cells) {
          const edits = editorEdits(c.sent, c.sent, c.edits);
          if (edits) {
            pending.push({ cellId: c.cellId, sent: c.sent, edits, kind: 'edit', number: 0 });
          }
        }
        return navigatorOf(where.panel.content).offer(pending);
      },
      onShown: (_, answer) => {
        endImpression(false);
        const text = [
          ...answer.own.map(e => e.insert),
          ...answer.cells.flatMap(c => c.edits.map(e => e.text))
        ].join('');
        impression =
          usage?.editShown({
            latencyMs: answer.latencyMs,
            language: answer.language,
            text
          }) ?? null;
      }
    });
    addEditorExtension(registry, 'jupyter-codecomplete:edit-prediction', () =>
      editPredictionExtension((view, update) => {
        controller.changed(view, update);
        // a prediction shown here went with an edit of the user's (not an accept), and
        // nothing of it waits in other cells
        const where = locate(view);
        if (
          update.startState.field(predictionField, false) &&
          !currentPrediction(view) &&
          !update.transactions.some(tr => tr.isUserEvent('input.complete')) &&
          !(where && navigators.get(where.panel.content)?.pending.ids('edit').size)
        ) {
          endImpression(false);
        }
        if (where) {
          navigators.get(where.panel.content)?.changed(where.cell.model.id);
        }
      })
    );
    app.commands.addCommand(CommandIDs.predictEdit, {
      label: trans.__('Predict Next Edit'),
      caption: trans.__(
        'Suggest the next change around the cursor (Tab applies it, Escape dismisses it)'
      ),
      isEnabled: () => settings.current.editPredictions !== 'off',
      execute: async () => {
        const view = focusedView();
        return view ? controller.request(view, 'manual') : false;
      }
    });

    // Tab and Escape: the prediction shown in the editor, or the notebook's pending edits.
    const navigatorFor = (view: EditorView) => {
      const where = locate(view);
      const nav = where ? navigators.get(where.panel.content) : undefined;
      return nav ? { nav, cellId: where!.cell.model.id } : null;
    };
    new EditPredictionKeys({
      shown: view => {
        if (currentPrediction(view)) {
          return true;
        }
        // an inline suggestion shown here has the keys first
        const inline =
          !!view.dom.closest(`.${INLINE_COMPLETER_ACTIVE_CLASS}`) && ghostTextShown(view.dom);
        return !inline && !!navigatorFor(view)?.nav.handles(view);
      },
      apply: view => {
        const found = navigatorFor(view);
        if (found) {
          return found.nav.tab(view, found.cellId);
        }
        const prediction = currentPrediction(view);
        const done = applyPrediction(view);
        if (done && prediction) {
          usage?.editAccepted(
            impression,
            prediction.edits.reduce((n, e) => n + e.insert.length, 0),
            keptProbes(view, prediction.edits)
          );
          endImpression(false);
        }
        return done;
      },
      dismiss: view => {
        const found = navigatorFor(view);
        const done = found ? found.nav.escape(view, found.cellId) : dismissPrediction(view);
        if (done) {
          endImpression(true);
        }
        return done;
      }
    });

    // Execution order and the fix after an error; a deleted cell's edits are forgotten (its id
    // can no longer be named).
    if (notebooks) {
      notebooks.widgetAdded.connect((_, panel) => {
        panel.context.ready
          .then(() => {
            panel.model?.cells.changed.connect((__, change) => {
              // once the notebook's widgets follow: the pending cells marked again (a moved
              // cell's widget is a new one), a deleted cell's edit dropped
              setTimeout(() => navigators.get(panel.content)?.cellsChanged(), 0);
              if (change.type !== 'remove') {
                return;
              }
              // a moved cell is removed and added again: only a cell still gone is forgotten
              const ids = change.oldValues.map(cell => cell.id);
              setTimeout(() => {
                const present = new Set(panel.content.widgets.map(c => c.model.id));
                for (const id of ids.filter(i => !present.has(i))) {
                  histories.peek(panel)?.forgetCell(id);
                }
              }, 0);
            });
          })
          .catch(() => undefined);
      });
      NotebookActions.executionScheduled.connect((_, { cell }) => {
        runRecord.ran(cell.model, cell.model.sharedModel.getSource());
      });
      // a fix is not typing: its candidates may take the time a cold kernel completer needs
      // (IPython's first `df[` with pandas loaded takes seconds, kernel.ts)
      const kernels = new KernelCompleter({ timeBudgetMs: 8000 });
      NotebookActions.executed.connect((_, { notebook, cell, success, error }) => {
        if (success || cell.model.type !== 'code') {
          return;
        }
        // nothing is sent when edit predictions are off or the server offers no error fix
        if (settings.current.editPredictions === 'off' || !controller.offers('error_fix')) {
          return;
        }
        const content: IErrorContent | null = error
          ? { ename: error.errorName, evalue: error.errorValue, traceback: error.traceback }
          : errorOfOutputs(outputsOf(cell.model)?.() ?? []);
        const panel = notebooks.find(p => p.content === notebook);
        const view = viewOfCell(cell);
        if (!content || !panel || !view) {
          return;
        }
        void Private.offerFix({
          controller,
          kernels,
          panel,
          cell,
          view,
          content,
          language: codeLanguage(panel),
          candidates: settings.current.kernelCandidates,
          navigator: navigatorOf(notebook),
          shown: (latencyMs, text) => {
            endImpression(false);
            impression =
              usage?.editShown({ latencyMs, language: codeLanguage(panel), text }) ?? null;
          }
        });
      });
    }
  }
};

namespace Private {
  /**
   * Show or remove the marker of a cell: a badge at its top right (an arrow for a pending edit,
   * "fix available" for a fix).
   */
  export function mark(
    cell: Cell,
    kind: IPendingEdit['kind'] | null,
    editTitle: string,
    fixLabel: string,
    fixTitle: string
  ): void {
    cell.node.classList.toggle(CellMarkerClasses.pendingEdit, kind === 'edit');
    cell.node.classList.toggle(CellMarkerClasses.fixAvailable, kind === 'fix');
    let badge = cell.node.querySelector(`:scope > .${CellMarkerClasses.marker}`);
    if (!kind) {
      badge?.remove();
      return;
    }
    if (!badge) {
      badge = document.createElement('div');
      badge.className = CellMarkerClasses.marker;
      cell.node.appendChild(badge);
    }
    badge.textContent = kind === 'edit' ? '→' : `⚑ ${fixLabel}`;
    badge.setAttribute('title', kind === 'edit' ? editTitle : fixTitle);
    badge.setAttribute('data-kind', kind);
  }

  /**
   * Wait (at most `ms`) for the kernel to be idle again after the run.
   */
  async function idle(kernel: { status: string } | null | undefined, ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (kernel && kernel.status !== 'idle' && Date.now() < until) {
      await new Promise(resolve => setTimeout(resolve, 50));
    }
  }

  /**
   * Ask for the fix of a cell's error and offer it on the cell.
   */
  export async function offerFix(options: {
    controller: EditPredictionController;
    kernels: KernelCompleter;
    panel: NotebookPanel;
    cell: Cell;
    view: EditorView;
    content: IErrorContent;
    language: string | null;
    candidates: boolean;
    navigator: NotebookEditNavigator;
    shown: (latencyMs: number, text: string) => void;
  }): Promise<void> {
    const { cell, view, content } = options;
    const source = view.state.doc.toString();
    let kernelCandidates: IKernelCandidates | null = null;
    const code = options.candidates ? candidateCode(content, source) : null;
    const name = options.candidates && !code ? missingNamePrefix(content) : null;
    if (code || name) {
      const kernel = options.panel.sessionContext.session?.kernel;
      await idle(kernel, 2000);
      kernelCandidates =
        (await (code
          ? options.kernels.candidates(kernel, code, options.language)
          : options.kernels.names(kernel, name!, options.language))) ?? null;
    }
    const count = (cell.model as unknown as { executionCount?: number | null }).executionCount;
    const error = cellError(content, typeof count === 'number' ? count : null);
    const answer = await options.controller.ask(view, 'error', { error, kernelCandidates });
    if (!answer || !answer.own.length) {
      return;
    }
    const offered = options.navigator.offerFix({
      cellId: cell.model.id,
      sent: source,
      edits: answer.own,
      kind: 'fix',
      number: answer.number
    });
    if (!offered) {
      return;
    }
    options.shown(answer.latencyMs, answer.own.map(e => e.insert).join(''));
    if (options.panel.content.activeCell === cell) {
      options.navigator.entered(cell.model.id);
    }
  }
}
