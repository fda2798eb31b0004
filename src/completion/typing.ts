/**
 * Typing through a suggestion: the suggestions the provider has seen, and what is left of one
 * once the user has typed some of it (or deleted back into it).
 *
 * A suggestion is kept as an *intent*: the text before the cursor when it was asked for, plus
 * the suggestion. While the text before the cursor is still a prefix of the intent (same text
 * after the cursor), the rest of the intent is what the ghost text should show: typing the
 * suggested characters, Enter with the editor's auto-indent, Backspace and retyping, or coming
 * back to the same position all answer from here, with no model call. The memory is a small
 * most-recently-used list per document, so an older suggestion can still answer when the user
 * backs out of a newer one.
 */

/**
 * Where the cursor is: the document (path and cell) and the text on either side.
 */
export interface IEditorState {
  /**
   * The document and cell (or console prompt) being edited.
   */
  key: string;
  /**
   * The whole text of the editor.
   */
  text: string;
  /**
   * The cursor, as an offset into `text`.
   */
  offset: number;
}

/**
 * One suggestion as the provider knows it.
 */
export class Suggestion {
  constructor(options: Suggestion.IOptions) {
    this.key = options.key;
    this.before = options.before;
    this.after = options.after;
    this.text = options.text ?? '';
    this.done = options.done ?? false;
    this.number = options.number;
  }

  /**
   * The document and cell.
   */
  readonly key: string;
  /**
   * The text before the cursor when the suggestion was asked for.
   */
  readonly before: string;
  /**
   * The text after the cursor then.
   */
  readonly after: string;
  /**
   * The request that made it.
   */
  readonly number: number;
  /**
   * The suggestion so far (it grows while it streams).
   */
  text: string;
  /**
   * Whether it is complete (the stream ended, or it never streamed).
   */
  done: boolean;
  /**
   * The error the stream ended with, if any.
   */
  error: string | null = null;

  /**
   * Incremented each time the text changes or the stream ends; waiters wake up.
   */
  get version(): number {
    return this._version;
  }

  /**
   * Record a new (cumulative) text and whether the stream is over.
   */
  update(text: string, done: boolean, error: string | null = null): void {
    this.text = text;
    this.done = this.done || done;
    this.error = error ?? this.error;
    this._version++;
    const waiters = this._waiters;
    this._waiters = [];
    for (const wake of waiters) {
      wake();
    }
  }

  /**
   * Resolve when the suggestion changes next.
   */
  changed(): Promise<void> {
    if (this.done) {
      return Promise.resolve();
    }
    return new Promise(resolve => this._waiters.push(resolve));
  }

  /**
   * What is left of the suggestion for this editor state, or null when the user left it
   * (typed something else, moved the cursor elsewhere, changed the text after the cursor).
   */
  rest(state: IEditorState): string | null {
    if (state.key !== this.key) {
      return null;
    }
    const text = state.text;
    const offset = state.offset;
    if (text.length - offset !== this.after.length || !text.endsWith(this.after)) {
      return null;
    }
    return restOf(this.before + this.text, this.before, text.slice(0, offset));
  }

  private _version = 0;
  private _waiters: (() => void)[] = [];
}

/**
 * A namespace for Suggestion statics.
 */
export namespace Suggestion {
  export interface IOptions {
    key: string;
    before: string;
    after: string;
    number: number;
    text?: string;
    done?: boolean;
  }
}

/**
 * The rest of `intent` once the text before the cursor is `current`, or null when `current`
 * left it. `anchor` (the text before the cursor at the request) limits how far back the user
 * may delete: not past the start of its line. Whitespace the editor put at the start of a new
 * line (auto-indent) may differ from the suggestion's own indentation.
 */
export function restOf(intent: string, anchor: string, current: string): string | null {
  const lineStart = anchor.lastIndexOf('\n') + 1;
  if (current.length < lineStart) {
    return null;
  }
  if (intent.startsWith(current)) {
    return intent.slice(current.length);
  }
  // Auto-indent: the current line is only whitespace, and the intent goes on past a newline.
  const newline = current.lastIndexOf('\n');
  if (newline < lineStart - 1 || newline < 0) {
    return null;
  }
  const indent = current.slice(newline + 1);
  if (!/^[ \t]*$/.test(indent) || !intent.startsWith(current.slice(0, newline + 1))) {
    return null;
  }
  const line = intent.slice(newline + 1);
  const own = /^[ \t]*/.exec(line)![0];
  if (own.startsWith(indent)) {
    return line.slice(indent.length);
  }
  return line.slice(own.length);
}

/**
 * The suggestions seen lately, most recent first, a few per document.
 */
export class RecentSuggestions {
  constructor(options: { size?: number } = {}) {
    this._size = options.size ?? 16;
  }

  /**
   * Remember a suggestion (the most recent first).
   */
  add(suggestion: Suggestion): void {
    this._items = [suggestion, ...this._items.filter(s => s !== suggestion)].slice(0, this._size);
  }

  /**
   * Forget a suggestion (it came back empty, or failed).
   */
  remove(suggestion: Suggestion): void {
    this._items = this._items.filter(s => s !== suggestion);
  }

  /**
   * Forget everything (settings or model changed).
   */
  clear(): void {
    this._items = [];
  }

  get size(): number {
    return this._items.length;
  }

  /**
   * The most recent suggestion that still has something to show here (or is still streaming
   * and matches so far), with its rest.
   */
  find(state: IEditorState): { suggestion: Suggestion; rest: string } | null {
    for (const suggestion of this._items) {
      const rest = suggestion.rest(state);
      if (rest !== null && (rest.length > 0 || !suggestion.done)) {
        if (suggestion !== this._items[0]) {
          this.add(suggestion);
        }
        return { suggestion, rest };
      }
    }
    return null;
  }

  private _items: Suggestion[] = [];
  private _size: number;
}

/**
 * The next word of a suggestion (with the whitespace before it): what "accept next word" takes.
 */
export function nextWord(rest: string): string {
  const match = /^(\s*[\p{L}\p{N}_]+|\s*[^\p{L}\p{N}_\s]+|\s+)/u.exec(rest);
  return match ? match[0] : rest;
}

/**
 * The next line of a suggestion: up to the end of the line; when the rest starts with a line
 * break, the break and the next line.
 */
export function nextLine(rest: string): string {
  const start = /^\r?\n/.exec(rest)?.[0].length ?? 0;
  const end = rest.indexOf('\n', start);
  return end < 0 ? rest : rest.slice(0, end);
}
