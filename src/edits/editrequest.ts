/**
 * When to ask for an edit prediction, what to send, and what to do with the reply.
 *
 * On request (the command) or, with the setting "automatic", after an edit that makes a
 * follow-up likely (a name that still appears elsewhere was renamed on a line, a line was
 * deleted or duplicated), with a debounce, and never while an inline suggestion is shown or a
 * completion is in flight. The reply is shown only when the document is still the one asked
 * about (its version), converted from the server's code points to the editor's offsets.
 *
 * Every change is recorded in the document's edit history (`edithistory.ts`, sent as
 * `recent_edits`). In a notebook, when the server offers `notebook_edits`, the other cells go
 * with their ids (`scope: "notebook"`) and the reply's edits for them are handed on by cell id
 * (`onCellEdits`); the error fix (`trigger: "error"`) asks the same way with the cell's error.
 */
import { Transaction } from '@codemirror/state';
import { EditorView, ViewUpdate } from '@codemirror/view';

import { historyOf, IPredictedEdit, Offsets, showPrediction } from './editprediction';
import { EditHistories, EditHistory, unifiedDiff } from '../context/edithistory';
import { ICellEdits, editorEdits, groupEdits } from './notebookedits';
import {
  EditTrigger,
  ICellError,
  IContextCell,
  IEditPredictionReply,
  IEditRequestBody,
  IKernelCandidates,
  IRecentEdit
} from '../connection/protocol';
import { EditPredictionMode } from '../settings';
import type { ICompletionConnection } from '../tokens';

/**
 * The CSS class JupyterLab's inline completer puts on an editor that shows a suggestion.
 */
const INLINE_ACTIVE = 'jp-mod-inline-completer-active';

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

function identifiers(lines: ReadonlyArray<string>): Set<string> {
  const out = new Set<string>();
  for (const line of lines) {
    for (const m of line.matchAll(IDENTIFIER)) {
      out.add(m[0]);
    }
  }
  return out;
}

/**
 * Whether an edit (`oldLines` → `newLines`) makes a follow-up likely in `text`: an identifier
 * it removed still appears in the document (a rename to carry on), or lines were deleted or
 * duplicated.
 */
/**
 * The lines an edit changed, as they were and as they are (from the unified diff of the texts).
 */
export function changedLines(
  before: string,
  after: string
): { oldLines: string[]; newLines: string[] } {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const line of unifiedDiff(before, after, 0).split('\n')) {
    if (line.startsWith('-')) {
      oldLines.push(line.slice(1));
    } else if (line.startsWith('+')) {
      newLines.push(line.slice(1));
    }
  }
  return { oldLines, newLines };
}

export function followUpLikely(
  oldLines: ReadonlyArray<string>,
  newLines: ReadonlyArray<string>,
  text: string
): boolean {
  if (oldLines.length !== newLines.length) {
    const shorter = oldLines.length < newLines.length ? oldLines : newLines;
    const longer = oldLines.length < newLines.length ? newLines : oldLines;
    // a line deleted, or one duplicated: the longer side holds the shorter's lines and more
    return shorter.every(l => longer.includes(l));
  }
  const before = identifiers(oldLines);
  const after = identifiers(newLines);
  for (const name of before) {
    if (name.length > 1 && !after.has(name) && new RegExp(`\\b${name}\\b`).test(text)) {
      return true;
    }
  }
  return false;
}

/**
 * Asks for edit predictions for editors and shows the answers.
 */
export class EditPredictionController {
  constructor(options: EditPredictionController.IOptions) {
    this._socket = options.socket;
    this._mode = options.mode;
    this._context = options.context ?? (() => ({ path: null, language: null }));
    this._debounce = options.debounce ?? 600;
    this._histories = options.histories ?? new EditHistories();
    this._onCellEdits = options.onCellEdits ?? null;
    this._onShown = options.onShown ?? null;
  }

  /**
   * The edit histories this controller records into (also read by inline completion requests).
   */
  get histories(): EditPredictionController.IHistories {
    return this._histories;
  }

  /**
   * Whether the server's hello lists `feature`.
   */
  offers(feature: string): boolean {
    return (this._socket.hello?.features ?? []).includes(feature);
  }

  /**
   * The recent edits of `view`'s document (a notebook: all its cells), oldest first.
   */
  recentEdits(view: EditorView): IRecentEdit[] {
    return this._histories.peek(this._document(view).key)?.edits() ?? [];
  }

  /**
   * Ask for a prediction for `view` and show it; resolves to whether one is shown (in `view` or,
   * notebook-scope, in other cells).
   */
  async request(view: EditorView, trigger: EditTrigger = 'manual'): Promise<boolean> {
    const answer = await this.ask(view, trigger);
    if (!answer) {
      return false;
    }
    const own = answer.own.length ? showPrediction(view, answer.own) : false;
    const others =
      answer.cells.length && this._onCellEdits ? this._onCellEdits(view, answer.cells) : false;
    if (own || others) {
      this._onShown?.(view, answer, own);
    }
    return own || others;
  }

  /**
   * Ask for a prediction for `view` without showing it: the edits of its own text (editor
   * offsets) and of other cells (by id, code points of their text as sent). Null: nothing
   * asked (the setting is off, not offered), or nothing to show (no edit, the document changed,
   * superseded, cancelled, an error).
   */
  async ask(
    view: EditorView,
    trigger: EditTrigger = 'manual',
    extra: EditPredictionController.IExtra = {}
  ): Promise<EditPredictionController.IAnswer | null> {
    if (this._mode() === 'off' || (trigger === 'error' && !this.offers('error_fix'))) {
      return null;
    }
    if (this._inFlight !== null) {
      this._socket.cancel(this._inFlight);
      this._inFlight = null;
    }
    const h = historyOf(view);
    const version = h.version;
    const text = view.state.doc.toString();
    const cursor = Offsets.toCodePoints(text, view.state.selection.main.head);
    const context = this._context(view);
    const wanted = trigger !== 'error' && !!context.cellId && this.offers('notebook_edits');
    const cells = context.cells?.(wanted) ?? { above: [], below: [] };
    // notebook scope only when another cell can be edited (one sent whole, with its id)
    const notebook = wanted && [...cells.above, ...cells.below].some(c => !!c.cell_id);
    const body: IEditRequestBody = {
      version,
      path: context.path,
      language: context.language,
      mime: null,
      cell_id: context.cellId ?? null,
      text,
      cursor,
      region: null,
      recent_edits: this.recentEdits(view),
      trigger,
      cells_above: cells.above,
      cells_below: cells.below,
      files: [],
      ...(notebook ? { scope: 'notebook' as const } : {}),
      ...(extra.error ? { error: extra.error } : {}),
      ...(extra.kernelCandidates ? { kernel_candidates: extra.kernelCandidates } : {})
    };
    const pending = this._socket.requestEdit(body);
    this._inFlight = pending.number;
    const sentAt = Date.now();
    let reply: IEditPredictionReply;
    try {
      reply = await pending.reply;
    } catch {
      return null; // superseded, cancelled, disconnected, not offered: nothing to show
    } finally {
      if (this._inFlight === pending.number) {
        this._inFlight = null;
      }
    }
    // the document changed while the answer was on its way: no stale edit
    if (reply.version !== historyOf(view).version || !reply.edits.length) {
      return null;
    }
    const sent = new Map<string, string>();
    for (const cell of [...cells.above, ...cells.below]) {
      if (cell.cell_id) {
        sent.set(cell.cell_id, cell.source);
      }
    }
    const grouped = groupEdits(reply.edits, notebook ? sent : new Map(), text, body.cell_id);
    const own = grouped.own.length ? (editorEdits(text, text, grouped.own) ?? []) : [];
    if (!own.length && !grouped.cells.length) {
      return null;
    }
    return {
      number: pending.number,
      own,
      cells: grouped.cells,
      latencyMs: Date.now() - sentAt,
      language: context.language
    };
  }

  /**
   * A change to `view`'s document: recorded in its edit history; with the setting "automatic",
   * ask after the debounce when a follow-up is likely.
   */
  changed(view: EditorView, update: ViewUpdate): void {
    if (update.docChanged) {
      this._record(view, update);
    }
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    if (this._mode() !== 'auto' || !update.docChanged || Private.accepted(view, update)) {
      return;
    }
    this._timer = setTimeout(() => {
      this._timer = null;
      const last = this._histories.peek(this._document(view).key)?.last();
      if (!last) {
        return;
      }
      const { oldLines, newLines } = changedLines(last.before, last.after);
      const context = this._context(view);
      // a rename in a defining cell carries on in the other cells (still using the old name)
      const elsewhere = context.otherText?.() ?? '';
      const text = view.state.doc.toString() + (elsewhere ? '\n' + elsewhere : '');
      if (!followUpLikely(oldLines, newLines, text)) {
        return;
      }
      if (view.dom.closest(`.${INLINE_ACTIVE}`) || this._socket.pendingNumbers.length) {
        return; // an insertion suggestion is shown or on its way
      }
      void this.requestAutomatic(view);
    }, this._debounce);
  }

  /**
   * Restraint for automatic requests: a reason to hold one, or null to ask (null: none).
   */
  set restrain(restrain: (() => string | null) | null) {
    this._restrain = restrain;
  }

  /**
   * An automatic request for `view` (after a likely follow-up edit, or an accepted prediction),
   * unless the setting is not "automatic" or restraint holds it; resolves to whether a
   * prediction is shown.
   */
  async requestAutomatic(view: EditorView): Promise<boolean> {
    if (this._mode() !== 'auto' || this._restrain?.()) {
      return false;
    }
    return this.request(view, 'auto');
  }

  dispose(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private _document(view: EditorView): { key: object } {
    return { key: this._context(view).document ?? view };
  }

  private _record(view: EditorView, update: ViewUpdate): void {
    const before = update.startState.doc;
    const after = update.state.doc;
    if (before.length > Private.MAX_RECORDED_CHARS || after.length > Private.MAX_RECORDED_CHARS) {
      return;
    }
    let from = Infinity;
    let to = -Infinity;
    update.changes.iterChangedRanges((_fromA, _toA, fromB, toB) => {
      from = Math.min(from, fromB);
      to = Math.max(to, toB);
    });
    const context = this._context(view);
    const history: EditHistory = this._histories.of(context.document ?? view, context.path);
    history.record(context.cellId ?? null, {
      before: before.toString(),
      after: after.toString(),
      from,
      to,
      accepted: Private.accepted(view, update)
    });
  }

  private _socket: ICompletionConnection;
  private _mode: () => EditPredictionMode;
  private _context: (view: EditorView) => EditPredictionController.IContext;
  private _debounce: number;
  private _histories: EditPredictionController.IHistories;
  private _onCellEdits: EditPredictionController.IOptions['onCellEdits'] | null;
  private _onShown: EditPredictionController.IOptions['onShown'] | null;
  private _restrain: (() => string | null) | null = null;
  private _inFlight: number | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
}

export namespace EditPredictionController {
  /**
   * Where the edit histories are kept (`EditHistories`, the `IEditHistory` token).
   */
  export type IHistories = Pick<EditHistories, 'of' | 'peek'>;

  /**
   * What a request says about the editor's document.
   */
  export interface IContext {
    path: string | null;
    language: string | null;
    /**
     * The document's identity (a notebook's or file's model): its edit history's key; the
     * editor itself when not given.
     */
    document?: object | null;
    /**
     * The notebook cell the editor belongs to.
     */
    cellId?: string | null;
    /**
     * The other cells, bounded; with `ids` (a notebook-scope request) each cell sent whole
     * carries its id.
     */
    cells?: (ids: boolean) => { above: IContextCell[]; below: IContextCell[] };
    /**
     * The text of the notebook's other code cells (does the old name live on there?).
     */
    otherText?: () => string;
  }

  /**
   * What an error-fix request carries besides the editor's text.
   */
  export interface IExtra {
    error?: ICellError | null;
    kernelCandidates?: IKernelCandidates | null;
  }

  /**
   * A reply's edits, ready to show.
   */
  export interface IAnswer {
    number: number;
    /**
     * The edits of the request's own text, in the editor's offsets.
     */
    own: IPredictedEdit[];
    /**
     * The edits of other cells, by id.
     */
    cells: ICellEdits[];
    latencyMs: number;
    language: string | null;
  }

  export interface IOptions {
    socket: ICompletionConnection;
    /**
     * The setting in force.
     */
    mode: () => EditPredictionMode;
    context?: (view: EditorView) => IContext;
    /**
     * Milliseconds after the last change before an automatic request.
     */
    debounce?: number;
    histories?: IHistories;
    /**
     * The reply's edits of other cells (notebook scope): show them; whether any is shown.
     */
    onCellEdits?: (view: EditorView, cells: ICellEdits[]) => boolean;
    /**
     * A prediction was shown (`own`: in `view` itself).
     */
    onShown?: (view: EditorView, answer: IAnswer, own: boolean) => void;
  }
}

namespace Private {
  /**
   * Documents longer than this are not diffed on every keystroke.
   */
  export const MAX_RECORDED_CHARS = 200000;

  /**
   * Whether the change accepted a suggestion: an edit prediction applied (`input.complete`), or
   * JupyterLab's inline completer inserting its ghost text (a change with no user event while
   * the editor shows a suggestion).
   */
  export function accepted(view: EditorView, update: ViewUpdate): boolean {
    if (update.transactions.some(tr => tr.isUserEvent('input.complete'))) {
      return true;
    }
    return (
      !!view.dom.closest(`.${INLINE_ACTIVE}`) &&
      update.transactions.every(tr => !tr.annotation(Transaction.userEvent))
    );
  }
}
