/**
 * The edit-prediction feature, apart from JupyterLab's plugin wiring: the requests (the
 * controller), what a prediction's keys do (Tab, Escape), the pending edits of each notebook
 * with their cell markers and Tab to the next, the fix offered after a cell's run ends with an
 * error, and the life of each prediction (`lifecycle`: the usage tracker and restraint follow
 * it, and a prediction taken asks for the next at once).
 */
import { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { Cell } from '@jupyterlab/cells';
import { Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { TranslationBundle } from '@jupyterlab/translation';

import { ghostTextShown, INLINE_COMPLETER_ACTIVE_CLASS } from '../completion/freshline';
import { IKernelCandidates } from '../connection/protocol';
import { KernelCompleter } from '../context/kernel';
import { outputsOf } from '../context/widgets';
import { ISettings } from '../settings';
import { ICompletionConnection, IEditHistory } from '../tokens';
import {
  applyPrediction,
  currentPrediction,
  dismissPrediction,
  EditPredictionKeys,
  editPredictionExtension,
  keptProbes,
  predictionField
} from './editprediction';
import { EditPredictionController } from './editrequest';
import {
  candidateCode,
  cellError,
  errorOfOutputs,
  IErrorContent,
  missingNamePrefix
} from './errorfix';
import { EditLifecycle } from './lifecycle';
import { EditorLocator } from './locator';
import { editorEdits, IPendingEdit } from './notebookedits';
import { INotebookCells, NotebookEditNavigator } from './notebooknav';

/**
 * The CSS classes of the cell markers.
 */
export namespace CellMarkerClasses {
  export const marker = 'jp-codecomplete-CellMarker';
  export const pendingEdit = 'jp-codecomplete-mod-pendingEdit';
  export const fixAvailable = 'jp-codecomplete-mod-fixAvailable';
}

/**
 * A cell's run ended (JupyterLab's `NotebookActions.executed`).
 */
export interface ICellRun {
  notebook: Notebook;
  cell: Cell;
  success: boolean;
  error?: { errorName: string; errorValue: string; traceback: string[] } | null;
}

/**
 * Edit predictions in the editors of this page.
 */
export class EditPredictionFeature {
  constructor(options: EditPredictionFeature.IOptions) {
    this._options = options;
    this._locator = new EditorLocator(options.locator);
    this.controller = new EditPredictionController({
      socket: options.socket,
      mode: () => options.settings().editPredictions,
      context: view => this._locator.context(view),
      histories: options.histories,
      onCellEdits: (view, cells) => {
        const where = this._locator.locate(view);
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
        return this._navigatorOf(where.panel.content).offer(pending);
      },
      onShown: (_, answer) => {
        const text = [
          ...answer.own.map(e => e.insert),
          ...answer.cells.flatMap(c => c.edits.map(e => e.text))
        ].join('');
        this.lifecycle.showWhole({ latencyMs: answer.latencyMs, language: answer.language, text });
      }
    });
    // a prediction taken: the next one asked for at once (a rename carries on), as after Tab
    // on ghost text; an automatic request, so restraint may hold it
    this.lifecycle.ended.connect((_, { reason }) => {
      if (reason === 'accepted' && options.settings().suggestAfterAccept) {
        setTimeout(() => {
          const view = EditPredictionFeature.focusedView();
          if (view) {
            void this.controller.requestAutomatic(view);
          }
        }, 0);
      }
    });
  }

  /**
   * Restraint for the automatic predictions: a reason to hold one, or null to ask (null: none).
   */
  setRestraint(restrain: (() => string | null) | null): void {
    this.controller.restrain = restrain;
  }

  /**
   * The requests: when to ask, what to send.
   */
  readonly controller: EditPredictionController;

  /**
   * Each prediction's life (shown, applied, ended).
   */
  readonly lifecycle = new EditLifecycle();

  /**
   * The CodeMirror extension every editor gets: the prediction's view, and the feature told
   * of each change.
   */
  extension(): Extension {
    return editPredictionExtension((view, update) => {
      this.controller.changed(view, update);
      // a prediction shown here went with an edit of the user's (not an accept), and nothing
      // of it waits in other cells
      const where = this._locator.locate(view);
      const pending = where ? this._navigators.get(where.panel.content) : undefined;
      if (
        update.startState.field(predictionField, false) &&
        !currentPrediction(view) &&
        !update.transactions.some(tr => tr.isUserEvent('input.complete')) &&
        !pending?.pending.ids('edit').size
      ) {
        this.lifecycle.end('typed-through');
      }
      if (where) {
        pending?.changed(where.cell.model.id);
      }
    });
  }

  /**
   * Ask for a prediction in the editor that has the focus ("Predict Next Edit").
   */
  async predictAtFocus(): Promise<boolean> {
    const view = EditPredictionFeature.focusedView();
    return view ? this.controller.request(view, 'manual') : false;
  }

  /**
   * Tab and Escape: the prediction shown in the editor, or the notebook's pending edits.
   */
  keys(): EditPredictionKeys {
    return new EditPredictionKeys({
      shown: view => {
        if (currentPrediction(view)) {
          return true;
        }
        // an inline suggestion shown here has the keys first
        const inline =
          !!view.dom.closest(`.${INLINE_COMPLETER_ACTIVE_CLASS}`) && ghostTextShown(view.dom);
        return !inline && !!this._navigatorFor(view)?.nav.handles(view);
      },
      apply: view => {
        const found = this._navigatorFor(view);
        if (found) {
          return found.nav.tab(view, found.cellId);
        }
        const prediction = currentPrediction(view);
        const done = applyPrediction(view);
        if (done && prediction) {
          this.lifecycle.accept({
            part: 'whole',
            text: null,
            chars: prediction.edits.reduce((n, e) => n + e.insert.length, 0),
            kept: keptProbes(view, prediction.edits)
          });
          this.lifecycle.end('accepted');
        }
        return done;
      },
      dismiss: view => {
        const found = this._navigatorFor(view);
        const done = found ? found.nav.escape(view, found.cellId) : dismissPrediction(view);
        if (done) {
          this.lifecycle.end('dismissed');
        }
        return done;
      }
    });
  }

  /**
   * The notebook's cells changed: the pending cells marked again once the widgets follow (a
   * moved cell's widget is a new one), a deleted cell's edit dropped and its history forgotten
   * (its id can no longer be named; a moved cell is removed and added again: only a cell still
   * gone is forgotten).
   */
  cellsChanged(panel: NotebookPanel, removedIds: ReadonlyArray<string>): void {
    setTimeout(() => this._navigators.get(panel.content)?.cellsChanged(), 0);
    if (!removedIds.length) {
      return;
    }
    setTimeout(() => {
      const present = new Set(panel.content.widgets.map(c => c.model.id));
      for (const id of removedIds.filter(i => !present.has(i))) {
        this._options.histories.peek(panel)?.forgetCell(id);
      }
    }, 0);
  }

  /**
   * A cell's run ended: after an error, ask for its fix and offer it on the cell (nothing is sent
   * when edit predictions are off or the server offers no error fix).
   */
  cellRan(run: ICellRun, panel: NotebookPanel | undefined): void {
    const { cell, success, error } = run;
    if (success || cell.model.type !== 'code') {
      return;
    }
    if (
      this._options.settings().editPredictions === 'off' ||
      !this.controller.offers('error_fix')
    ) {
      return;
    }
    const content: IErrorContent | null = error
      ? { ename: error.errorName, evalue: error.errorValue, traceback: error.traceback }
      : errorOfOutputs(outputsOf(cell.model)?.() ?? []);
    const view = EditorLocator.viewOfCell(cell);
    if (!content || !panel || !view) {
      return;
    }
    void this._offerFix(panel, cell, view, content);
  }

  private _navigatorFor(view: EditorView): { nav: NotebookEditNavigator; cellId: string } | null {
    const where = this._locator.locate(view);
    const nav = where ? this._navigators.get(where.panel.content) : undefined;
    return nav && where ? { nav, cellId: where.cell.model.id } : null;
  }

  /**
   * The pending edits of a notebook, with their markers.
   */
  private _navigatorOf(notebook: Notebook): NotebookEditNavigator {
    const known = this._navigators.get(notebook);
    if (known) {
      return known;
    }
    const trans = this._options.trans;
    const cellOf = (id: string): Cell | null =>
      notebook.widgets.find(c => c.model.id === id) ?? null;
    const cells: INotebookCells = {
      order: () => notebook.widgets.map(c => c.model.id),
      textOf: id => cellOf(id)?.model.sharedModel.getSource() ?? null,
      viewOf: id => {
        const cell = cellOf(id);
        return cell ? EditorLocator.viewOfCell(cell) : null;
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
        return EditorLocator.viewOfCell(cell);
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
    const nav: NotebookEditNavigator = new NotebookEditNavigator(cells, {
      applied: (_, inserted, view, edits) => {
        this.lifecycle.accept({
          part: 'cell',
          text: null,
          chars: inserted,
          kept: keptProbes(view, edits)
        });
        if (!nav.pending.ids('edit').size) {
          this.lifecycle.end('accepted');
        }
      },
      dropped: (_, why) => {
        if (why === 'escape') {
          this.lifecycle.end('dismissed');
        } else if (why === 'changed' && !nav.pending.ids('edit').size) {
          this.lifecycle.end('discarded'); // edited away before any of it was applied
        }
      }
    });
    this._navigators.set(notebook, nav);
    notebook.activeCellChanged.connect((_, cell) => {
      if (cell) {
        nav.entered(cell.model.id);
      }
    });
    return nav;
  }

  /**
   * Ask for the fix of a cell's error and offer it on the cell.
   */
  private async _offerFix(
    panel: NotebookPanel,
    cell: Cell,
    view: EditorView,
    content: IErrorContent
  ): Promise<void> {
    const language = this._locator.codeLanguage(panel);
    const candidates = this._options.settings().kernelCandidates;
    const source = view.state.doc.toString();
    let kernelCandidates: IKernelCandidates | null = null;
    const code = candidates ? candidateCode(content, source) : null;
    const name = candidates && !code ? missingNamePrefix(content) : null;
    if (code || name) {
      const kernel = panel.sessionContext.session?.kernel;
      await Private.idle(kernel, 2000);
      kernelCandidates =
        (await (code
          ? this._kernels.candidates(kernel, code, language)
          : this._kernels.names(kernel, name!, language))) ?? null;
    }
    const count = (cell.model as unknown as { executionCount?: number | null }).executionCount;
    const error = cellError(content, typeof count === 'number' ? count : null);
    const answer = await this.controller.ask(view, 'error', { error, kernelCandidates });
    if (!answer || !answer.own.length) {
      return;
    }
    const navigator = this._navigatorOf(panel.content);
    const offered = navigator.offerFix({
      cellId: cell.model.id,
      sent: source,
      edits: answer.own,
      kind: 'fix',
      number: answer.number
    });
    if (!offered) {
      return;
    }
    this.lifecycle.showWhole({
      latencyMs: answer.latencyMs,
      language,
      text: answer.own.map(e => e.insert).join('')
    });
    if (panel.content.activeCell === cell) {
      navigator.entered(cell.model.id);
    }
  }

  private _options: EditPredictionFeature.IOptions;
  private _locator: EditorLocator;
  private _navigators = new WeakMap<Notebook, NotebookEditNavigator>();
  // a fix is not typing: its candidates may take the time a cold kernel completer needs
  // (IPython's first `df[` with pandas loaded takes seconds, kernel.ts)
  private _kernels = new KernelCompleter({ timeBudgetMs: 8000 });
}

/**
 * The feature's statics.
 */
export namespace EditPredictionFeature {
  export interface IOptions {
    socket: ICompletionConnection;
    settings: () => ISettings;
    histories: IEditHistory;
    locator: EditorLocator.IOptions;
    trans: TranslationBundle;
  }

  /**
   * The editor that has the focus, if it is a CodeMirror editor.
   */
  export function focusedView(): EditorView | null {
    const active = document.activeElement;
    const dom =
      active && typeof active.closest === 'function' ? active.closest('.cm-editor') : null;
    return dom ? EditorView.findFromDOM(dom as HTMLElement) : null;
  }
}

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
  export async function idle(
    kernel: { status: string } | null | undefined,
    ms: number
  ): Promise<void> {
    const until = Date.now() + ms;
    while (kernel && kernel.status !== 'idle' && Date.now() < until) {
      await new Promise(resolve => setTimeout(resolve, 50));
    }
  }
}
