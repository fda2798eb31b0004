/**
 * When to ask for an edit prediction, what to send, and what to do with the reply.
 *
 * On request (the command) or, with the setting "automatic", after an edit that makes a
 * follow-up likely (a name that still appears elsewhere was renamed on a line, a line was
 * deleted or duplicated), with a debounce, and never while an inline suggestion is shown or a
 * completion is in flight. The reply is shown only when the document is still the one asked
 * about (its version), converted from the server's code points to the editor's offsets.
 */
import { EditorView, ViewUpdate } from '@codemirror/view';

import { historyOf, IPredictedEdit, Offsets, showPrediction } from './editprediction';
import { IEditPredictionReply, IEditRequestBody, Trigger } from './protocol';
import { EditPredictionMode } from './settings';
import { CompletionSocket } from './socket';

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
  }

  /**
   * Ask for a prediction for `view` now; resolves to whether one is shown.
   */
  async request(view: EditorView, trigger: Trigger = 'manual'): Promise<boolean> {
    if (this._mode() === 'off') {
      return false;
    }
    if (this._inFlight !== null) {
      this._socket.cancel(this._inFlight);
      this._inFlight = null;
    }
    const h = historyOf(view);
    const version = h.version;
    const text = view.state.doc.toString();
    const cursor = Offsets.toCodePoints(text, view.state.selection.main.head);
    const { path, language } = this._context(view);
    const body: IEditRequestBody = {
      version,
      path,
      language,
      mime: null,
      cell_id: null,
      text,
      cursor,
      region: null,
      recent_edits: h.recent.diffs().map(diff => ({ path, diff })),
      trigger,
      cells_above: [],
      cells_below: [],
      files: []
    };
    const pending = this._socket.requestEdit(body);
    this._inFlight = pending.number;
    let reply: IEditPredictionReply;
    try {
      reply = await pending.reply;
    } catch {
      return false; // superseded, cancelled, disconnected, not offered: nothing to show
    } finally {
      if (this._inFlight === pending.number) {
        this._inFlight = null;
      }
    }
    // the document changed while the answer was on its way: no stale edit
    if (reply.version !== historyOf(view).version || !reply.edits.length) {
      return false;
    }
    const edits: IPredictedEdit[] = reply.edits.map(e => ({
      from: Offsets.toUtf16(text, e.start),
      to: Offsets.toUtf16(text, e.end),
      insert: e.text
    }));
    return showPrediction(view, edits);
  }

  /**
   * A change to `view`'s document: with the setting "automatic", ask after the debounce when a
   * follow-up is likely.
   */
  changed(view: EditorView, update: ViewUpdate): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    if (this._mode() !== 'auto' || !update.docChanged) {
      return;
    }
    this._timer = setTimeout(() => {
      this._timer = null;
      const last = historyOf(view).recent.last();
      if (!last || !followUpLikely(last.oldLines, last.newLines, view.state.doc.toString())) {
        return;
      }
      if (view.dom.closest(`.${INLINE_ACTIVE}`) || this._socket.pendingNumbers.length) {
        return; // an insertion suggestion is shown or on its way
      }
      void this.request(view, 'auto');
    }, this._debounce);
  }

  dispose(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private _socket: CompletionSocket;
  private _mode: () => EditPredictionMode;
  private _context: (view: EditorView) => EditPredictionController.IContext;
  private _debounce: number;
  private _inFlight: number | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
}

export namespace EditPredictionController {
  /**
   * What a request says about the editor's document.
   */
  export interface IContext {
    path: string | null;
    language: string | null;
  }

  export interface IOptions {
    socket: CompletionSocket;
    /**
     * The setting in force.
     */
    mode: () => EditPredictionMode;
    context?: (view: EditorView) => IContext;
    /**
     * Milliseconds after the last change before an automatic request.
     */
    debounce?: number;
  }
}
