/**
 * The pending edits of a notebook on screen: a marker on each cell that has one, the diff shown
 * in its editor while its text is the one the edit was predicted for, Tab to apply and go on to
 * the next, Escape to drop them all, and the fix of a cell's error offered when the user
 * returns to the cell.
 *
 * Tab where the focused cell shows a diff applies it (one undo step in that cell) and then goes
 * to the next pending edit: the cell is scrolled into view, put in edit mode, its diff shown.
 * Tab in a cell with nothing shown, while edits are pending elsewhere, applies the next one when
 * its diff is already on screen (and goes on from there), else goes there and shows it.
 */
import { EditorView } from '@codemirror/view';

import {
  applyPrediction,
  currentPrediction,
  dismissPrediction,
  IPredictedEdit,
  showPrediction
} from './editprediction';
import { IPendingEdit, nextPending, PendingEdits } from './notebookedits';

/**
 * What the navigator needs of a notebook (JupyterLab's `Notebook`, or a test's stand-in).
 */
export interface INotebookCells {
  /**
   * The cell ids, in notebook order now.
   */
  order(): string[];
  /**
   * A cell's text now; null: no such cell.
   */
  textOf(cellId: string): string | null;
  /**
   * A cell's editor, if it has one on screen.
   */
  viewOf(cellId: string): EditorView | null;
  /**
   * Make the cell active, scroll it into view, enter edit mode, focus its editor; its editor.
   */
  activate(cellId: string): EditorView | null;
  /**
   * Show (kind) or remove (null) the marker of a cell.
   */
  mark(cellId: string, kind: IPendingEdit['kind'] | null): void;
}

/**
 * What became of pending edits (for the usage events).
 */
export interface INavigatorEvents {
  /**
   * `view` and `edits`: where the prediction was applied, and its edits (before they were).
   */
  applied?: (
    edit: IPendingEdit | null,
    inserted: number,
    view: EditorView,
    edits: ReadonlyArray<IPredictedEdit>
  ) => void;
  dropped?: (edits: IPendingEdit[], why: 'escape' | 'changed' | 'superseded') => void;
}

/**
 * The pending edits of one notebook and the keys that act on them.
 */
export class NotebookEditNavigator {
  constructor(cells: INotebookCells, events: INavigatorEvents = {}) {
    this._cells = cells;
    this._events = events;
  }

  get pending(): PendingEdits {
    return this._pending;
  }

  /**
   * A notebook-scope answer's edits of other cells: mark them, show their diffs where the cells
   * have editors; whether any is pending.
   */
  offer(edits: ReadonlyArray<IPendingEdit>): boolean {
    const old = [...this._pending.ids('edit').values()];
    this._pending.set(edits);
    const superseded = old.filter(e => this._pending.get(e.cellId) !== e);
    for (const e of superseded) {
      this._hide(e.cellId);
    }
    if (superseded.length) {
      this._events.dropped?.(superseded, 'superseded');
    }
    this._prune();
    for (const e of this._pending.ids('edit').values()) {
      this._cells.mark(e.cellId, 'edit');
      const view = this._cells.viewOf(e.cellId);
      if (view) {
        this._show(view, e);
      }
    }
    return this._pending.ids('edit').size > 0;
  }

  /**
   * The fix of a cell's error: marked now, its diff shown when the user returns to the cell.
   */
  offerFix(edit: IPendingEdit): boolean {
    if (this._cells.textOf(edit.cellId) !== edit.sent) {
      return false; // edited while the answer travelled
    }
    this._pending.add(edit);
    this._cells.mark(edit.cellId, 'fix');
    return true;
  }

  /**
   * The user is in `cellId` (it became active, its editor got the focus): show its pending edit.
   */
  entered(cellId: string): boolean {
    const e = this._pending.get(cellId);
    const view = e ? this._cells.viewOf(cellId) : null;
    return !!e && !!view && this._show(view, e);
  }

  /**
   * Cells were added, moved or deleted: a deleted cell's edit is dropped; every other pending
   * cell is marked again (JupyterLab moves a cell by removing it and adding it again, a new
   * cell widget without the marker). The edits stay keyed by cell id: a moved cell's still
   * lands in it.
   */
  cellsChanged(): void {
    this._prune();
    for (const e of this._pending.ids().values()) {
      this._cells.mark(e.cellId, e.kind);
    }
  }

  /**
   * A cell's text changed: its pending edit (predicted for the old text) is dropped.
   */
  changed(cellId: string): void {
    const e = this._pending.get(cellId);
    if (e && this._cells.textOf(cellId) !== e.sent) {
      this._pending.delete(cellId);
      this._cells.mark(cellId, null);
      this._events.dropped?.([e], 'changed');
    }
  }

  /**
   * Whether Tab / Escape in `view` (of cell `cellId`) is ours.
   */
  handles(view: EditorView): boolean {
    return currentPrediction(view) !== null || this._pending.ids('edit').size > 0;
  }

  /**
   * Tab in `view` (of cell `cellId`); whether it was ours.
   */
  tab(view: EditorView, cellId: string | null): boolean {
    this._prune();
    if (currentPrediction(view)) {
      const e = cellId ? this._pending.get(cellId) : null;
      const { edits } = currentPrediction(view)!;
      const inserted = insertedChars(edits);
      // no longer pending before it is applied: applying it is not an edit that drops it
      if (cellId && e) {
        this._pending.delete(cellId);
        this._cells.mark(cellId, null);
      }
      applyPrediction(view);
      this._events.applied?.(e, inserted, view, edits);
      this._goToNext(cellId);
      return true;
    }
    const next = nextPending(this._cells.order(), this._pending.ids('edit'), cellId);
    if (!next) {
      return false;
    }
    const target = this._pending.get(next)!;
    const shownThere = this._cells.viewOf(next);
    if (shownThere && currentPrediction(shownThere) && onScreen(shownThere)) {
      // its diff is on screen: apply it, then go on to the one after it
      const { edits } = currentPrediction(shownThere)!;
      const inserted = insertedChars(edits);
      this._pending.delete(next);
      this._cells.mark(next, null);
      applyPrediction(shownThere);
      this._events.applied?.(target, inserted, shownThere, edits);
      if (!this._goToNext(next)) {
        this._cells.activate(next);
      }
      return true;
    }
    const view2 = this._cells.activate(next);
    if (view2) {
      this._show(view2, target);
    }
    return true;
  }

  /**
   * Escape in `view`: drop every pending notebook edit (and the diff shown in `view`); whether
   * anything was dropped.
   */
  escape(view: EditorView | null, cellId: string | null = null): boolean {
    const dropped = [...this._pending.ids('edit').values()];
    const fix = cellId ? this._pending.get(cellId) : null;
    if (fix && fix.kind === 'fix' && view && currentPrediction(view)) {
      dropped.push(fix); // the fix shown here, dismissed
    }
    for (const e of dropped) {
      this._pending.delete(e.cellId);
      this._hide(e.cellId);
    }
    const own = view ? dismissPrediction(view) : false;
    if (dropped.length) {
      this._events.dropped?.(dropped, 'escape');
    }
    return own || dropped.length > 0;
  }

  private _goToNext(from: string | null): boolean {
    const next = nextPending(this._cells.order(), this._pending.ids('edit'), from);
    if (!next) {
      return false;
    }
    const view = this._cells.activate(next);
    if (view) {
      this._show(view, this._pending.get(next)!);
    }
    return true;
  }

  private _show(view: EditorView, e: IPendingEdit): boolean {
    // only while the cell's text is the one the edit was predicted for
    if (view.state.doc.toString() !== e.sent) {
      this.changed(e.cellId);
      return false;
    }
    return showPrediction(view, e.edits);
  }

  private _hide(cellId: string): void {
    this._cells.mark(cellId, null);
    const view = this._cells.viewOf(cellId);
    if (view) {
      dismissPrediction(view);
    }
  }

  private _prune(): void {
    const gone = this._pending.prune(id => this._cells.textOf(id));
    for (const id of gone) {
      this._cells.mark(id, null);
    }
  }

  private _cells: INotebookCells;
  private _events: INavigatorEvents;
  private _pending = new PendingEdits();
}

function insertedChars(edits: ReadonlyArray<IPredictedEdit>): number {
  return edits.reduce((n, e) => n + e.insert.length, 0);
}

/**
 * Whether an editor is (at least partly) in the viewport; true where layout is unknown (tests).
 */
function onScreen(view: EditorView): boolean {
  const rect = view.dom.getBoundingClientRect();
  if (!rect.width && !rect.height) {
    return true;
  }
  return (
    rect.bottom > 0 && rect.top < (window.innerHeight || document.documentElement.clientHeight)
  );
}
