/**
 * The user's recent edits, per notebook and per file, as unified diffs with their cell: what
 * edit-prediction requests (and, when the server's hello lists `edit_history`, inline
 * completion requests) send as `recent_edits`.
 *
 * Keystrokes are merged into one edit while they are in the same cell, next to each other and
 * without a pause longer than `pauseMs`; an accepted suggestion is an edit of its own, marked
 * `accepted`. The history is bounded: at most `maxEdits` edits, `maxChars` characters in all
 * (the oldest go first), each diff at most `maxDiffChars` (the wire's limit). Diffs are made by
 * the `diff` library (`structuredPatch`), with `context` lines around each change.
 */
import { structuredPatch } from 'diff';

import { IRecentEdit } from '../connection/protocol';

/**
 * The bounds of a history (the wire allows 16 edits of 20,000 characters).
 */
export namespace EditHistoryLimits {
  export const maxEdits = 16;
  export const maxChars = 6000;
  export const maxDiffChars = 20000;
  export const pauseMs = 1500;
  export const context = 1;
  /**
   * Documents whose history is kept (the least recently edited is forgotten first).
   */
  export const maxDocuments = 64;
}

/**
 * One change the editor reported: the text before and after, and where it happened in the
 * text after it (UTF-16 offsets).
 */
export interface IChange {
  before: string;
  after: string;
  from: number;
  to: number;
  /**
   * The change was an accepted suggestion (inline or edit prediction), not typed.
   */
  accepted?: boolean;
}

/**
 * A unified diff of `before` → `after` (hunks only, no file header); '' when they are equal.
 */
export function unifiedDiff(
  before: string,
  after: string,
  context: number = EditHistoryLimits.context
): string {
  if (before === after) {
    return '';
  }
  const patch = structuredPatch('a', 'b', before, after, '', '', { context });
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    out.push(
      `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
      ...hunk.lines.filter(line => !line.startsWith('\\'))
    );
  }
  return out.length ? out.join('\n') + '\n' : '';
}

/**
 * The recent edits of one document (a notebook: all its cells; a file).
 */
export class EditHistory {
  constructor(options: EditHistory.IOptions) {
    this._path = options.path;
    this._maxEdits = options.maxEdits ?? EditHistoryLimits.maxEdits;
    this._maxChars = options.maxChars ?? EditHistoryLimits.maxChars;
    this._pauseMs = options.pauseMs ?? EditHistoryLimits.pauseMs;
    this._now = options.now ?? (() => Date.now());
  }

  /**
   * The document's path (a renamed document keeps its history).
   */
  get path(): string | null {
    return this._path;
  }
  set path(path: string | null) {
    this._path = path;
  }

  /**
   * Record a change of `cellId` (null: a file).
   */
  record(cellId: string | null, change: IChange): void {
    const now = this._now();
    const accepted = !!change.accepted;
    const p = this._pending;
    if (
      p &&
      !accepted &&
      !p.accepted &&
      p.cellId === cellId &&
      p.after === change.before &&
      now - p.at <= this._pauseMs &&
      change.from <= p.to + 1 &&
      change.to >= p.from - 1
    ) {
      // the same edit goes on: one diff from the text before its first keystroke
      const delta = change.after.length - change.before.length;
      p.after = change.after;
      p.from = Math.min(p.from, change.from);
      p.to = Math.max(p.to + delta, change.to);
      p.at = now;
      return;
    }
    this._flush();
    this._pending = {
      cellId,
      before: change.before,
      after: change.after,
      from: change.from,
      to: change.to,
      at: now,
      accepted
    };
    if (accepted) {
      this._flush(); // an accepted suggestion is one edit, never merged with typing
    }
  }

  /**
   * Forget the edits of a cell that was deleted (its id can no longer be named).
   */
  forgetCell(cellId: string): void {
    this._done = this._done.filter(e => e.cell_id !== cellId);
    if (this._pending?.cellId === cellId) {
      this._pending = null;
    }
  }

  /**
   * The edits, oldest first, within the bounds.
   */
  edits(): IRecentEdit[] {
    const all = [...this._done];
    const pending = this._edit(this._pending);
    if (pending) {
      all.push(pending);
    }
    return bound(all, this._maxEdits, this._maxChars);
  }

  /**
   * The latest edit's cell and its text before and after (for "a follow-up is likely").
   */
  last(): { cellId: string | null; before: string; after: string } | null {
    const p = this._pending ?? this._lastDone;
    return p ? { cellId: p.cellId, before: p.before, after: p.after } : null;
  }

  private _flush(): void {
    const edit = this._edit(this._pending);
    if (this._pending) {
      this._lastDone = this._pending;
    }
    this._pending = null;
    if (edit) {
      this._done.push(edit);
      this._done = bound(this._done, this._maxEdits, this._maxChars);
    }
  }

  private _edit(p: EditHistory.IPending | null): IRecentEdit | null {
    if (!p) {
      return null;
    }
    const diff = unifiedDiff(p.before, p.after).slice(0, EditHistoryLimits.maxDiffChars);
    if (!diff) {
      return null;
    }
    return {
      path: this._path,
      diff,
      cell_id: p.cellId,
      ...(p.accepted ? { accepted: true } : {})
    };
  }

  private _path: string | null;
  private _maxEdits: number;
  private _maxChars: number;
  private _pauseMs: number;
  private _now: () => number;
  private _done: IRecentEdit[] = [];
  private _pending: EditHistory.IPending | null = null;
  private _lastDone: EditHistory.IPending | null = null;
}

/**
 * The newest edits that fit `maxEdits` and `maxChars` (the newest one always, cut to fit).
 */
function bound(edits: IRecentEdit[], maxEdits: number, maxChars: number): IRecentEdit[] {
  const out: IRecentEdit[] = [];
  let chars = 0;
  for (let i = edits.length - 1; i >= 0 && out.length < maxEdits; i--) {
    const e = edits[i];
    if (chars + e.diff.length > maxChars) {
      if (!out.length) {
        out.push({ ...e, diff: e.diff.slice(0, maxChars) });
      }
      break;
    }
    chars += e.diff.length;
    out.push(e);
  }
  return out.reverse();
}

export namespace EditHistory {
  export interface IOptions {
    path: string | null;
    maxEdits?: number;
    maxChars?: number;
    /**
     * Keystrokes further apart than this (ms) are separate edits.
     */
    pauseMs?: number;
    now?: () => number;
  }

  export interface IPending {
    cellId: string | null;
    before: string;
    after: string;
    /**
     * The span the edit covers in `after` (UTF-16 offsets).
     */
    from: number;
    to: number;
    at: number;
    accepted: boolean;
  }
}

/**
 * The histories of the documents open in this tab, by a key of the document (the notebook or
 * file model's identity; its path may change).
 */
export class EditHistories {
  constructor(options: EditHistories.IOptions = {}) {
    this._options = options;
  }

  /**
   * The history of the document `key` (created on first use).
   */
  of(key: object, path: string | null): EditHistory {
    let h = this._histories.get(key);
    if (!h) {
      h = new EditHistory({ ...this._options, path });
      this._histories.set(key, h);
    } else {
      this._histories.delete(key); // most recently used last
      this._histories.set(key, h);
      h.path = path;
    }
    while (this._histories.size > EditHistoryLimits.maxDocuments) {
      this._histories.delete(this._histories.keys().next().value as object);
    }
    return h;
  }

  /**
   * The history of `key` if it has one.
   */
  peek(key: object): EditHistory | null {
    return this._histories.get(key) ?? null;
  }

  private _options: Omit<EditHistory.IOptions, 'path'>;
  private _histories = new Map<object, EditHistory>();
}

export namespace EditHistories {
  export type IOptions = Omit<EditHistory.IOptions, 'path'>;
}
