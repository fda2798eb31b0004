/**
 * The edit prediction view: a CodeMirror extension of our own (JupyterLab's inline completer
 * can only show text inserted at the cursor, not a replacement).
 *
 * A prediction is a list of edits in the editor's document. Removed text is marked in place,
 * inserted text is shown as ghost text where it goes, several hunks at once; a pure insertion
 * at the cursor looks like ordinary ghost text. Tab applies all of it as one transaction (one
 * undo step); Escape dismisses it. A change to the document drops it (it was predicted for
 * the text as it was), except typing that agrees with it: text typed where an edit's inserted
 * text goes, and the start of that text, shrinks the edit and the rest of the prediction stays
 * (as zed keeps its edits as anchors and interpolates them). The extension also keeps a version number of the document and tells of
 * each change (the edit history, `edithistory.ts`, records it).
 */
import { ChangeSet, Extension, StateEffect, StateField, Transaction } from '@codemirror/state';
import {
  Decoration,
  DecorationSet,
  EditorView,
  ViewPlugin,
  ViewUpdate,
  WidgetType
} from '@codemirror/view';

import { diffWordsWithSpace } from 'diff';

import { CaptureKeyListener, editorOfPlainKey } from '../completion/dismiss';

/**
 * One edit of a prediction, in the editor's offsets (UTF-16 code units).
 */
export interface IPredictedEdit {
  from: number;
  to: number;
  insert: string;
}

/**
 * The prediction shown in an editor.
 */
export interface IPrediction {
  edits: ReadonlyArray<IPredictedEdit>;
}

/**
 * The CSS classes of the view.
 */
export namespace EditPredictionClasses {
  export const removed = 'jp-codecomplete-EditRemoved';
  export const inserted = 'jp-codecomplete-EditInserted';
  export const atCursor = 'jp-codecomplete-EditAtCursor';
  /**
   * On the editor while a prediction is shown.
   */
  export const active = 'jp-mod-edit-prediction-active';
}

/**
 * Show a prediction (null: remove it).
 */
export const setPrediction = StateEffect.define<IPrediction | null>();

class InsertedText extends WidgetType {
  constructor(
    readonly text: string,
    readonly atCursor: boolean
  ) {
    super();
  }

  eq(other: InsertedText): boolean {
    return other.text === this.text && other.atCursor === this.atCursor;
  }

  toDOM(): HTMLElement {
    const span = document.createElement('span');
    span.className = this.atCursor
      ? `${EditPredictionClasses.inserted} ${EditPredictionClasses.atCursor}`
      : EditPredictionClasses.inserted;
    span.textContent = this.text;
    return span;
  }

  ignoreEvent(): boolean {
    return true;
  }
}

/**
 * The longest replacement (removed plus inserted characters) split by words, and the most word
 * changes looked for in it: past them an edit is shown as it came (the diff's cost stays small).
 */
const MAX_WORD_DIFF_CHARS = 4000;
const MAX_WORD_DIFF_EDITS = 200;

/**
 * Each replacement split into the words it changes (jsdiff's word diff, whitespace exact):
 * `df["price"], df` → `sales["price"], sales` is two edits, `df` → `sales` twice, not one struck
 * chunk. Unchanged text between changes that is only whitespace stays inside the change (a line
 * rewritten whole is one edit, not a comb). Applying the result is applying `edits`.
 *
 * @param text - the document the edits are in (UTF-16 offsets)
 */
export function wordEdits(text: string, edits: ReadonlyArray<IPredictedEdit>): IPredictedEdit[] {
  const out: IPredictedEdit[] = [];
  for (const e of edits) {
    const removed = text.slice(e.from, e.to);
    if (
      !removed ||
      !e.insert ||
      removed.length + e.insert.length > MAX_WORD_DIFF_CHARS ||
      removed === e.insert
    ) {
      out.push(e);
      continue;
    }
    const changes = diffWordsWithSpace(removed, e.insert, {
      maxEditLength: MAX_WORD_DIFF_EDITS
    });
    if (!changes) {
      out.push(e);
      continue;
    }
    let pos = e.from;
    let piece: IPredictedEdit | null = null;
    // an unchanged run of whitespace between two changes is held here: part of the change if
    // another change follows it
    let held: { from: number; text: string } | null = null;
    const flush = () => {
      if (piece) {
        out.push(piece);
      }
      piece = null;
    };
    for (const c of changes) {
      if (!c.added && !c.removed) {
        if (piece && !/\S/.test(c.value)) {
          held = { from: pos, text: c.value };
        } else {
          flush();
          held = null;
        }
        pos += c.value.length;
        continue;
      }
      if (piece && held) {
        // whitespace kept between two changes: removed and inserted again, inside one edit
        const p: IPredictedEdit = piece;
        piece = { from: p.from, to: held.from + held.text.length, insert: p.insert + held.text };
      }
      held = null;
      piece ??= { from: pos, to: pos, insert: '' };
      if (c.removed) {
        pos += c.value.length;
        piece = { ...piece, to: pos };
      } else {
        piece = { ...piece, insert: piece.insert + c.value };
      }
    }
    flush();
  }
  return out;
}

/**
 * Whether edits are sorted, do not overlap and lie in a document of `length`.
 */
export function validEdits(edits: ReadonlyArray<IPredictedEdit>, length: number): boolean {
  let last = 0;
  for (const e of edits) {
    if (e.from < last || e.to < e.from || e.to > length) {
      return false;
    }
    last = e.to;
  }
  return true;
}

/**
 * `prediction` after the document's `changes`, when they agree with it: each change is text
 * typed where an edit's inserted text goes (at the end of the text it replaces) and is the start
 * of that inserted text; the edit keeps the rest, the other edits move with the document. Null
 * when a change does not agree (a deletion, typing elsewhere or other text) or nothing is left.
 */
export function interpolate(prediction: IPrediction, changes: ChangeSet): IPrediction | null {
  const typed: { at: number; text: string }[] = [];
  let agrees = true;
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    if (fromA !== toA || inserted.length === 0) {
      agrees = false;
    } else {
      typed.push({ at: fromA, text: inserted.toString() });
    }
  });
  if (!agrees || !typed.length) {
    return null;
  }
  const used = new Set<number>();
  const out: IPredictedEdit[] = [];
  for (const e of prediction.edits) {
    const i = typed.findIndex(t => t.at === e.to);
    if (i < 0) {
      if (typed.some(t => t.at >= e.from && t.at <= e.to)) {
        return null; // typed into the text an edit removes, or before it
      }
      out.push({ from: changes.mapPos(e.from, 1), to: changes.mapPos(e.to, -1), insert: e.insert });
      continue;
    }
    const text = typed[i].text;
    if (
      used.has(i) ||
      !e.insert.startsWith(text) ||
      typed.some(t => t.at >= e.from && t.at < e.to)
    ) {
      return null;
    }
    used.add(i);
    const from = changes.mapPos(e.from, 1);
    const to = changes.mapPos(e.to, -1); // before the typed text
    const after = changes.mapPos(e.to, 1); // after it
    const rest = e.insert.slice(text.length);
    if (to > from) {
      out.push({ from, to, insert: '' }); // the text it replaces still goes
    }
    if (rest) {
      out.push({ from: after, to: after, insert: rest });
    }
  }
  if (used.size !== typed.length || !out.length) {
    return null;
  }
  return validEdits(out, changes.newLength) ? { edits: out } : null;
}

function decorate(prediction: IPrediction | null, cursor: number): DecorationSet {
  if (!prediction) {
    return Decoration.none;
  }
  const ranges = [];
  for (const e of prediction.edits) {
    if (e.to > e.from) {
      ranges.push(Decoration.mark({ class: EditPredictionClasses.removed }).range(e.from, e.to));
    }
    if (e.insert) {
      const atCursor = e.from === e.to && e.from === cursor;
      ranges.push(
        Decoration.widget({ widget: new InsertedText(e.insert, atCursor), side: 1 }).range(e.to)
      );
    }
  }
  return Decoration.set(ranges, true);
}

/**
 * The prediction of an editor's state, and its decorations.
 */
export const predictionField = StateField.define<IPrediction | null>({
  create: () => null,
  update(value: IPrediction | null, tr: Transaction): IPrediction | null {
    for (const effect of tr.effects) {
      if (effect.is(setPrediction)) {
        const next = effect.value;
        return next && validEdits(next.edits, tr.state.doc.length) && next.edits.length
          ? next
          : null;
      }
    }
    // predicted for the text as it was: a change drops it, unless it is typing that agrees
    if (!tr.docChanged || !value) {
      return value;
    }
    return interpolate(value, tr.changes);
  },
  provide: field => [
    EditorView.decorations.compute([field, 'selection'], state =>
      decorate(state.field(field), state.selection.main.head)
    ),
    EditorView.editorAttributes.compute([field], state => {
      const attrs: Record<string, string> = {};
      if (state.field(field)) {
        attrs.class = EditPredictionClasses.active;
      }
      return attrs;
    })
  ]
});

/**
 * The prediction shown in `view`, if any.
 */
export function currentPrediction(view: EditorView): IPrediction | null {
  return view.state.field(predictionField, false) ?? null;
}

/**
 * Show `edits` in `view` (nothing when they do not fit the document).
 */
export function showPrediction(view: EditorView, edits: ReadonlyArray<IPredictedEdit>): boolean {
  if (!validEdits(edits, view.state.doc.length) || !edits.length) {
    return false;
  }
  view.dispatch({ effects: setPrediction.of({ edits: [...edits] }) });
  return currentPrediction(view) !== null;
}

/**
 * Apply the prediction shown in `view` as one change (one undo step); false when none is shown.
 */
export function applyPrediction(view: EditorView): boolean {
  const prediction = currentPrediction(view);
  if (!prediction) {
    return false;
  }
  const changes = prediction.edits.map(e => ({ from: e.from, to: e.to, insert: e.insert }));
  const last = prediction.edits[prediction.edits.length - 1];
  const end = view.state.changes(changes).mapPos(last.to, 1);
  view.dispatch({
    changes,
    selection: { anchor: end },
    effects: setPrediction.of(null),
    userEvent: 'input.complete',
    scrollIntoView: true
  });
  return true;
}

/**
 * Where the edits of a prediction applied in `view` put their text (each edit's inserted text at
 * its offset after the edits before it), and a reader of the document while the editor lives: for
 * the usage events' kept windows.
 */
export function keptProbes(
  view: EditorView,
  edits: ReadonlyArray<IPredictedEdit>
): { text: string; anchor: number; read: () => string | null }[] {
  const read = (): string | null => (view.dom.isConnected ? view.state.doc.toString() : null);
  let shift = 0;
  return [...edits]
    .sort((a, b) => a.from - b.from)
    .map(e => {
      const anchor = e.from + shift;
      shift += e.insert.length - (e.to - e.from);
      return { text: e.insert, anchor, read };
    })
    .filter(p => p.text);
}

/**
 * Remove the prediction shown in `view`; false when none is shown.
 */
export function dismissPrediction(view: EditorView): boolean {
  if (!currentPrediction(view)) {
    return false;
  }
  view.dispatch({ effects: setPrediction.of(null) });
  return true;
}

/**
 * What the extension knows about one editor besides its prediction (its recent edits are kept
 * per document, `edithistory.ts`).
 */
export interface IEditorHistory {
  /**
   * Counts the document's changes: a reply for an older version is dropped.
   */
  version: number;
}

const histories = new WeakMap<EditorView, IEditorHistory>();

/**
 * The version and recent edits of `view` (created on first use).
 */
export function historyOf(view: EditorView): IEditorHistory {
  let h = histories.get(view);
  if (!h) {
    h = { version: 0 };
    histories.set(view, h);
  }
  return h;
}

/**
 * The extension; `onChange` is told of every change to the document (for automatic requests).
 */
export function editPredictionExtension(
  onChange?: (view: EditorView, update: ViewUpdate) => void
): Extension {
  const tracker = ViewPlugin.define(view => ({
    update(update: ViewUpdate): void {
      if (!update.docChanged) {
        return;
      }
      historyOf(view).version += 1;
      onChange?.(view, update);
    }
  }));
  return [predictionField, tracker];
}

/**
 * Offsets between JavaScript strings (UTF-16 code units) and the server's (code points).
 */
export namespace Offsets {
  /**
   * The code point offset of UTF-16 offset `utf16` in `text`.
   */
  export function toCodePoints(text: string, utf16: number): number {
    let cp = 0;
    for (let i = 0; i < utf16 && i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        i++;
      }
      cp++;
    }
    return cp;
  }

  /**
   * The UTF-16 offset of code point offset `cp` in `text`.
   */
  export function toUtf16(text: string, cp: number): number {
    let i = 0;
    for (let n = 0; n < cp && i < text.length; n++) {
      const c = text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
    }
    return i;
  }
}

/**
 * Tab and Escape on an editor that shows a prediction: apply it, or dismiss it and stay in the
 * editor. A capture listener on the window, so that it comes before JupyterLab's own shortcuts
 * (Tab: the completer; Escape: command mode); keys anywhere else are left alone.
 */
export class EditPredictionKeys extends CaptureKeyListener {
  constructor(options: EditPredictionKeys.IOptions) {
    super(options.target);
    this._options = options;
  }

  handleEvent(event: Event): void {
    const key = event as KeyboardEvent;
    const dom = editorOfPlainKey(key, ['Tab', 'Escape']);
    const view = dom ? EditorView.findFromDOM(dom) : null;
    if (!view || !this._options.shown(view)) {
      return;
    }
    const done = key.key === 'Tab' ? this._options.apply(view) : this._options.dismiss(view);
    if (done) {
      key.preventDefault();
      key.stopImmediatePropagation();
    }
  }

  private _options: EditPredictionKeys.IOptions;
}

export namespace EditPredictionKeys {
  export interface IOptions {
    apply: (view: EditorView) => boolean;
    dismiss: (view: EditorView) => boolean;
    shown: (view: EditorView) => boolean;
    /**
     * Where to listen (the window by default).
     */
    target?: Window | HTMLElement;
  }
}
