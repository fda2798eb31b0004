import { history, undo } from '@codemirror/commands';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

import {
  applyPrediction,
  currentPrediction,
  dismissPrediction,
  EditPredictionClasses,
  EditPredictionKeys,
  editPredictionExtension,
  historyOf,
  keptProbes,
  Offsets,
  showPrediction
} from '../edits/editprediction';
import { keptChars } from '../usage/usage';
import { EditPredictionController, followUpLikely } from '../edits/editrequest';
import { EditPredictionMode } from '../settings';
import { CompletionSocket } from '../connection/socket';
import { connectedSocket, flush } from './fakes';

const CELL =
  'def total(prices):\n    s = 0\n    for p in items:\n        s += p\n    return s / len(items)\n';
const RENAMED = CELL.replace('in items', 'in prices').replace('len(items)', 'len(prices)');

function rename(text: string): { from: number; to: number; insert: string }[] {
  const a = text.indexOf('items');
  const b = text.indexOf('items', a + 1);
  return [
    { from: a, to: a + 5, insert: 'prices' },
    { from: b, to: b + 5, insert: 'prices' }
  ];
}

function makeView(
  doc = CELL,
  onChange?: Parameters<typeof editPredictionExtension>[0]
): EditorView {
  const parent = document.createElement('div');
  document.body.appendChild(parent);
  return new EditorView({
    state: EditorState.create({ doc, extensions: [history(), editPredictionExtension(onChange)] }),
    parent
  });
}

describe('keptProbes', () => {
  it("finds each edit's text where it landed, and stops reading when the editor is gone", () => {
    const view = makeView();
    const edits = rename(CELL);
    showPrediction(view, edits);
    applyPrediction(view);
    const probes = keptProbes(view, edits);
    const doc = view.state.doc.toString();
    expect(doc).toBe(RENAMED);
    expect(probes.map(p => doc.slice(p.anchor, p.anchor + p.text.length))).toEqual([
      'prices',
      'prices'
    ]);
    expect(probes.reduce((n, p) => n + keptChars(p.text, p.read()!, p.anchor), 0)).toBe(12);
    view.destroy();
    view.dom.remove();
    expect(probes[0].read()).toBeNull();
  });
});

describe('the edit prediction view', () => {
  it('marks removed text and shows inserted text as ghost text, several hunks at once', () => {
    const view = makeView();
    expect(showPrediction(view, rename(CELL))).toBe(true);
    const removed = view.dom.querySelectorAll(`.${EditPredictionClasses.removed}`);
    const inserted = view.dom.querySelectorAll(`.${EditPredictionClasses.inserted}`);
    expect([...removed].map(e => e.textContent)).toEqual(['items', 'items']);
    expect([...inserted].map(e => e.textContent)).toEqual(['prices', 'prices']);
    expect(view.dom.classList.contains(EditPredictionClasses.active)).toBe(true);
    expect(view.state.doc.toString()).toBe(CELL); // shown, not applied
    view.destroy();
  });

  it('applies all edits in one undoable change with Tab', () => {
    const view = makeView();
    showPrediction(view, rename(CELL));
    const keys = new EditPredictionKeys({
      apply: v => applyPrediction(v),
      dismiss: v => dismissPrediction(v),
      shown: v => currentPrediction(v) !== null,
      target: view.dom
    });
    const tab = new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true });
    view.contentDOM.dispatchEvent(tab);
    expect(tab.defaultPrevented).toBe(true);
    expect(view.state.doc.toString()).toBe(RENAMED);
    expect(currentPrediction(view)).toBeNull();
    expect(view.dom.classList.contains(EditPredictionClasses.active)).toBe(false);
    undo(view);
    expect(view.state.doc.toString()).toBe(CELL); // one step back: the whole prediction
    keys.dispose();
    view.destroy();
  });

  it('dismisses with Escape and keeps the key from leaving the editor', () => {
    const view = makeView();
    showPrediction(view, rename(CELL));
    const keys = new EditPredictionKeys({
      apply: v => applyPrediction(v),
      dismiss: v => dismissPrediction(v),
      shown: v => currentPrediction(v) !== null,
      target: view.dom
    });
    const escape = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    view.contentDOM.dispatchEvent(escape);
    expect(escape.defaultPrevented).toBe(true);
    expect(currentPrediction(view)).toBeNull();
    expect(view.state.doc.toString()).toBe(CELL);
    // with nothing shown, Escape is left to JupyterLab (command mode)
    const again = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    view.contentDOM.dispatchEvent(again);
    expect(again.defaultPrevented).toBe(false);
    keys.dispose();
    view.destroy();
  });

  it('drops the prediction when the document changes', () => {
    const view = makeView();
    showPrediction(view, rename(CELL));
    view.dispatch({ changes: { from: 0, insert: '#' } });
    expect(currentPrediction(view)).toBeNull();
    view.destroy();
  });

  it('keeps a prediction while the user types its inserted text, shrinking it', () => {
    const view = makeView();
    const end = CELL.indexOf('len(items)') + 'len(items)'.length;
    view.dispatch({ selection: { anchor: end } });
    showPrediction(view, [{ from: end, to: end, insert: ' + 1' }]);
    // typed one character at a time, as the editor does
    view.dispatch({ changes: { from: end, insert: ' ' }, selection: { anchor: end + 1 } });
    expect(currentPrediction(view)?.edits).toEqual([{ from: end + 1, to: end + 1, insert: '+ 1' }]);
    view.dispatch({ changes: { from: end + 1, insert: '+' }, selection: { anchor: end + 2 } });
    expect(currentPrediction(view)?.edits).toEqual([{ from: end + 2, to: end + 2, insert: ' 1' }]);
    const ghost = view.dom.querySelector(`.${EditPredictionClasses.inserted}`);
    expect(ghost?.textContent).toBe(' 1');
    // Tab applies the rest: the line reads as predicted
    expect(applyPrediction(view)).toBe(true);
    expect(view.state.doc.toString()).toBe(CELL.replace('len(items)', 'len(items) + 1'));
    view.destroy();
  });

  it('keeps the other edits of a replacement typed after the text it removes', () => {
    const view = makeView();
    const edits = rename(CELL);
    showPrediction(view, edits);
    const [first, second] = edits;
    // the user types "pr" where the first edit's "prices" goes (after "items")
    view.dispatch({ changes: { from: first.to, insert: 'pr' } });
    const left = currentPrediction(view)?.edits;
    expect(left).toEqual([
      { from: first.from, to: first.to, insert: '' },
      { from: first.to + 2, to: first.to + 2, insert: 'ices' },
      { from: second.from + 2, to: second.to + 2, insert: 'prices' }
    ]);
    applyPrediction(view);
    expect(view.state.doc.toString()).toBe(RENAMED);
    view.destroy();
  });

  it('drops the prediction when the typing disagrees with it, or when all of it is typed', () => {
    const view = makeView();
    const end = CELL.indexOf('len(items)') + 'len(items)'.length;
    showPrediction(view, [{ from: end, to: end, insert: ' + 1' }]);
    view.dispatch({ changes: { from: end, insert: '-' } }); // not what it predicted
    expect(currentPrediction(view)).toBeNull();
    showPrediction(view, [{ from: end + 1, to: end + 1, insert: 'x' }]);
    view.dispatch({ changes: { from: end + 1, insert: 'x' } }); // typed all of it
    expect(currentPrediction(view)).toBeNull();
    showPrediction(view, [{ from: end, to: end, insert: ' + 1' }]);
    view.dispatch({ changes: { from: end - 1, to: end } }); // a deletion
    expect(currentPrediction(view)).toBeNull();
    view.destroy();
  });

  it('shows a pure insertion at the cursor as ordinary ghost text', () => {
    const view = makeView();
    const end = CELL.indexOf('len(items)') + 'len(items)'.length;
    view.dispatch({ selection: { anchor: end } });
    showPrediction(view, [{ from: end, to: end, insert: ' + 1' }]);
    const ghost = view.dom.querySelector(`.${EditPredictionClasses.atCursor}`);
    expect(ghost?.textContent).toBe(' + 1');
    expect(view.dom.querySelector(`.${EditPredictionClasses.removed}`)).toBeNull();
    view.destroy();
  });

  it('refuses edits that overlap or lie outside the document', () => {
    const view = makeView();
    expect(
      showPrediction(view, [
        { from: 5, to: 10, insert: 'x' },
        { from: 8, to: 9, insert: '' }
      ])
    ).toBe(false);
    expect(showPrediction(view, [{ from: 0, to: CELL.length + 5, insert: '' }])).toBe(false);
    expect(currentPrediction(view)).toBeNull();
    view.destroy();
  });
});

describe('Offsets', () => {
  it('converts between UTF-16 and code points', () => {
    const text = 'a😀b';
    expect(Offsets.toCodePoints(text, 3)).toBe(2);
    expect(Offsets.toUtf16(text, 2)).toBe(3);
    expect(Offsets.toUtf16(text, Offsets.toCodePoints(text, 4))).toBe(4);
  });
});

describe('followUpLikely', () => {
  it('is true after a rename of a name used elsewhere, or a deleted or duplicated line', () => {
    expect(followUpLikely(['def total(items):'], ['def total(prices):'], CELL)).toBe(true);
    expect(followUpLikely(['x = 1'], ['x = 2'], 'x = 2\n')).toBe(false);
    expect(followUpLikely(['a = 1', 'b = 2'], ['a = 1'], 'a = 1\n')).toBe(true);
    expect(followUpLikely(['a = 1'], ['a = 1', 'a = 1'], 'a = 1\na = 1\n')).toBe(true);
  });
});

describe('EditPredictionController', () => {
  const connected = connectedSocket;

  function controller(socket: CompletionSocket, mode: EditPredictionMode = 'manual') {
    return new EditPredictionController({
      socket,
      mode: () => mode,
      context: () => ({ path: 'analysis.ipynb', language: 'python' })
    });
  }

  it('sends the document, the cursor in code points and the version, and shows the reply', async () => {
    const { socket, ws } = connected();
    const text = '# 😀\n' + CELL;
    const view = makeView(text);
    view.dispatch({ selection: { anchor: text.indexOf('prices') } });
    const shown = controller(socket).request(view);
    const sent = ws.sent[0];
    expect(sent.type).toBe('edit_prediction');
    expect(sent.text).toBe(text);
    expect(sent.cursor).toBe(text.indexOf('prices') - 1); // the emoji is one code point
    expect(sent.version).toBe(historyOf(view).version);
    const cp = (i: number) => Offsets.toCodePoints(text, i);
    ws.receive({
      type: 'edit_prediction',
      reply_to: sent.number,
      version: sent.version,
      edits: rename(text).map(e => ({ start: cp(e.from), end: cp(e.to), text: e.insert })),
      region: null,
      model: null,
      notes: [],
      error: null
    });
    expect(await shown).toBe(true);
    applyPrediction(view);
    expect(view.state.doc.toString()).toBe('# 😀\n' + RENAMED);
    view.destroy();
    socket.dispose();
  });

  it('drops a reply to a document that changed meanwhile', async () => {
    const { socket, ws } = connected();
    const view = makeView();
    const shown = controller(socket).request(view);
    const sent = ws.sent[0];
    view.dispatch({ changes: { from: 0, insert: '# edited\n' } });
    ws.receive({
      type: 'edit_prediction',
      reply_to: sent.number,
      version: sent.version,
      edits: [{ start: 0, end: 3, text: 'async def' }],
      region: null,
      model: null,
      notes: [],
      error: null
    });
    expect(await shown).toBe(false);
    expect(currentPrediction(view)).toBeNull();
    view.destroy();
    socket.dispose();
  });

  it('asks nothing when the setting is off or the server does not offer edit predictions', async () => {
    const off = connected();
    const view = makeView();
    expect(await controller(off.socket, 'off').request(view)).toBe(false);
    expect(off.ws.sent).toEqual([]);
    off.socket.dispose();
    const old = connected([]);
    expect(await controller(old.socket).request(view)).toBe(false);
    expect(old.ws.sent).toEqual([]);
    old.socket.dispose();
    view.destroy();
  });

  it('holds an automatic request that restraint holds, never one the user asked for', async () => {
    const { socket, ws } = connected();
    const c = controller(socket, 'auto');
    const view = makeView();
    let why: string | null = 'edits-turned-down';
    c.restrain = () => why;
    expect(await c.requestAutomatic(view)).toBe(false);
    expect(ws.sent).toEqual([]);
    const asked = () => ws.sent.filter(m => m.type === 'edit_prediction');
    void c.request(view, 'manual'); // the user's own: sent
    await flush();
    expect(asked().map(m => m.trigger)).toEqual(['manual']);
    why = null;
    void c.requestAutomatic(view);
    await flush();
    expect(asked().map(m => m.trigger)).toEqual(['manual', 'auto']);
    view.destroy();
    socket.dispose();
  });

  it('asks by itself after a rename when automatic, not when on request', async () => {
    jest.useFakeTimers();
    try {
      for (const mode of ['auto', 'manual'] as EditPredictionMode[]) {
        const { socket, ws } = connected();
        const c = controller(socket, mode);
        const view = makeView(CELL.replace('def total(prices)', 'def total(items)'), (v, u) =>
          c.changed(v, u)
        );
        const start = 'def total('.length;
        view.dispatch({ changes: { from: start, to: start + 5, insert: 'prices' } });
        jest.advanceTimersByTime(1000);
        await flush();
        expect(ws.sent.length).toBe(mode === 'auto' ? 1 : 0);
        view.destroy();
        socket.dispose();
      }
    } finally {
      jest.useRealTimers();
    }
  });
});
