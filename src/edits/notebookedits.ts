/**
 * Notebook-scope edit predictions: the reply's edits mapped to their cells by id (never by
 * position: cells move and change while the answer travels), the cells with a pending edit,
 * and the order Tab visits them in.
 *
 * An edit for another cell is kept with the text that cell had when the request was sent; it is
 * shown and applied only while the cell's text is still that text.
 */
import { IPredictedEdit, Offsets, validEdits, wordEdits } from './editprediction';
import { ITextEdit } from '../connection/protocol';

/**
 * The edits of one cell, in code points of `sent` (the cell's source as sent).
 */
export interface ICellEdits {
  cellId: string;
  sent: string;
  edits: ITextEdit[];
}

/**
 * A reply's edits by cell: `own` (no `cell_id`: the request's own text) and the other cells'.
 *
 * Edits naming a cell that was not sent with an id are dropped; so are all edits of a cell when
 * any of them lies outside its text or overlaps another (the answer is not trusted there).
 *
 * @param edits - the reply's edits
 * @param sent - the source of each cell sent with an id
 * @param ownText - the request's own text (its edits are checked the same way)
 */
export function groupEdits(
  edits: ReadonlyArray<ITextEdit>,
  sent: ReadonlyMap<string, string>,
  ownText: string,
  ownCellId: string | null = null
): { own: ITextEdit[]; cells: ICellEdits[] } {
  const byCell = new Map<string | null, ITextEdit[]>();
  for (const e of edits) {
    // an edit naming the request's own cell is an edit of the request's text
    const id = e.cell_id && e.cell_id !== ownCellId ? e.cell_id : null;
    if (id !== null && !sent.has(id)) {
      continue;
    }
    const list = byCell.get(id) ?? [];
    list.push(e);
    byCell.set(id, list);
  }
  const check = (list: ITextEdit[], text: string): ITextEdit[] => {
    const sorted = [...list].sort((a, b) => a.start - b.start || a.end - b.end);
    const length = [...text].length;
    let last = 0;
    for (const e of sorted) {
      if (e.start < last || e.end < e.start || e.end > length) {
        return [];
      }
      last = e.end;
    }
    return sorted;
  };
  const own = check(byCell.get(null) ?? [], ownText);
  const cells: ICellEdits[] = [];
  for (const [id, list] of byCell) {
    if (id === null) {
      continue;
    }
    const text = sent.get(id)!;
    const checked = check(list, text);
    if (checked.length) {
      cells.push({ cellId: id, sent: text, edits: checked });
    }
  }
  return { own, cells };
}

/**
 * The edits in an editor's offsets (UTF-16), or null when the text is no longer the one sent.
 */
export function editorEdits(
  sent: string,
  current: string,
  edits: ReadonlyArray<ITextEdit>
): IPredictedEdit[] | null {
  if (current !== sent) {
    return null;
  }
  const out = edits.map(e => ({
    from: Offsets.toUtf16(sent, e.start),
    to: Offsets.toUtf16(sent, e.end),
    insert: e.text
  }));
  // shown by the words they change (a rename's two names, not the chunk between them)
  return validEdits(out, current.length) && out.length ? wordEdits(current, out) : null;
}

/**
 * The pending edit Tab goes to next: the first after `fromId` in notebook `order`, wrapping
 * around; `fromId` itself only when it is the only one. Null when none is pending.
 */
export function nextPending(
  order: ReadonlyArray<string>,
  pending: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  fromId: string | null
): string | null {
  const present = order.filter(id => pending.has(id));
  if (!present.length) {
    return null;
  }
  const at = fromId === null ? -1 : order.indexOf(fromId);
  if (at < 0) {
    return present[0];
  }
  for (let k = 1; k <= order.length; k++) {
    const id = order[(at + k) % order.length];
    if (pending.has(id)) {
      return id;
    }
  }
  return null;
}

/**
 * An edit waiting in a cell: an edit of a notebook-scope answer, or the fix of the cell's error.
 */
export interface IPendingEdit {
  cellId: string;
  /**
   * The cell's text the edits were predicted for.
   */
  sent: string;
  /**
   * The edits in the editor's offsets (UTF-16) of `sent`.
   */
  edits: IPredictedEdit[];
  kind: 'edit' | 'fix';
  /**
   * The answer (request number) it came with.
   */
  number: number;
}

/**
 * The pending edits of one notebook, by cell id.
 */
export class PendingEdits {
  /**
   * Replace the pending notebook-scope edits by `edits` (a newer answer supersedes an older
   * one); fixes stay.
   */
  set(edits: ReadonlyArray<IPendingEdit>): void {
    for (const [id, e] of [...this._cells]) {
      if (e.kind === 'edit') {
        this._cells.delete(id);
      }
    }
    for (const e of edits) {
      this._cells.set(e.cellId, e);
    }
  }

  add(edit: IPendingEdit): void {
    this._cells.set(edit.cellId, edit);
  }

  get(cellId: string): IPendingEdit | null {
    return this._cells.get(cellId) ?? null;
  }

  delete(cellId: string): boolean {
    return this._cells.delete(cellId);
  }

  /**
   * Drop the edits of `kind` (all: every kind); the ids dropped.
   */
  clear(kind?: IPendingEdit['kind']): string[] {
    const dropped: string[] = [];
    for (const [id, e] of [...this._cells]) {
      if (!kind || e.kind === kind) {
        this._cells.delete(id);
        dropped.push(id);
      }
    }
    return dropped;
  }

  /**
   * The pending edits of `kind` (all: every kind), by cell id.
   */
  ids(kind?: IPendingEdit['kind']): ReadonlyMap<string, IPendingEdit> {
    return kind ? new Map([...this._cells].filter(([, e]) => e.kind === kind)) : this._cells;
  }

  get size(): number {
    return this._cells.size;
  }

  /**
   * Drop the cells whose text is no longer the one sent (`textOf` null: the cell is gone); the
   * ids dropped.
   */
  prune(textOf: (cellId: string) => string | null): string[] {
    const dropped: string[] = [];
    for (const [id, c] of [...this._cells]) {
      if (textOf(id) !== c.sent) {
        this._cells.delete(id);
        dropped.push(id);
      }
    }
    return dropped;
  }

  private _cells = new Map<string, IPendingEdit>();
}
