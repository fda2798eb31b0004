import { history } from '@codemirror/commands';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

import { applyPrediction, editPredictionExtension, showPrediction } from '../edits/editprediction';
import { EditHistories, EditHistory, unifiedDiff } from '../context/edithistory';
import { changedLines, EditPredictionController } from '../edits/editrequest';
import { connectedSocket } from './fakes';

const CELL = 'def total(items):\n    s = 0\n    for p in items:\n        s += p\n    return s\n';

/**
 * A history with a clock the test moves.
 */
function clocked(options: Partial<EditHistory.IOptions> = {}) {
  const clock = { now: 0 };
  const h = new EditHistory({ path: 'nb.ipynb', now: () => clock.now, ...options });
  return { clock, h };
}

/**
 * Type `text` into `doc` at `at`, one keystroke every `gap` ms.
 */
function typeInto(
  h: EditHistory,
  clock: { now: number },
  cellId: string | null,
  doc: string,
  at: number,
  text: string,
  gap = 100
): string {
  for (const ch of text) {
    const after = doc.slice(0, at) + ch + doc.slice(at);
    h.record(cellId, { before: doc, after, from: at, to: at + 1 });
    doc = after;
    at += 1;
    clock.now += gap;
  }
  return doc;
}

describe('unifiedDiff', () => {
  it('is the hunks of the diff library, one context line, no file header', () => {
    expect(unifiedDiff('a\nb\nc\nd\n', 'a\nB\nc\nd\n')).toBe('@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
    expect(unifiedDiff('same', 'same')).toBe('');
    // a last line without newline: no "\ No newline" marker in the history
    expect(unifiedDiff('x = 1', 'x = 2')).toBe('@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n');
  });
});

describe('EditHistory', () => {
  it('merges keystrokes in one cell, next to each other, without a pause, into one edit', () => {
    const { clock, h } = clocked();
    const start = 'def total('.length;
    const doc = CELL.slice(0, start) + CELL.slice(start + 'items'.length);
    h.record('c1', { before: CELL, after: doc, from: start, to: start });
    typeInto(h, clock, 'c1', doc, start, 'prices');
    const edits = h.edits();
    expect(edits).toEqual([
      {
        path: 'nb.ipynb',
        cell_id: 'c1',
        diff: '@@ -1,2 +1,2 @@\n-def total(items):\n+def total(prices):\n     s = 0\n'
      }
    ]);
  });

  it('starts a new edit after a pause, in another cell, or at another place', () => {
    const { clock, h } = clocked({ pauseMs: 1000 });
    let doc = 'a = 1\nb = 2\n';
    doc = typeInto(h, clock, 'c1', doc, 5, '0'); // a = 10
    clock.now += 5000;
    doc = typeInto(h, clock, 'c1', doc, 6, '5'); // after the pause: a = 105
    typeInto(h, clock, 'c2', 'x\n', 1, 'y'); // another cell
    typeInto(h, clock, 'c1', doc, doc.length - 1, '9'); // far from the last edit
    const edits = h.edits();
    expect(edits.map(e => e.cell_id)).toEqual(['c1', 'c1', 'c2', 'c1']);
    expect(edits[0].diff).toContain('+a = 10');
    expect(edits[1].diff).toContain('-a = 10\n+a = 105');
    expect(edits[3].diff).toContain('+b = 29');
  });

  it('marks an accepted suggestion, never merged with the typing around it', () => {
    const { clock, h } = clocked();
    const doc = typeInto(h, clock, 'c1', 'print()', 6, 'x');
    const after = doc.replace('x)', 'x, sep="")');
    h.record('c1', { before: doc, after, from: 7, to: 15, accepted: true });
    typeInto(h, clock, 'c1', after, after.length, '\n');
    const edits = h.edits();
    expect(edits.map(e => !!e.accepted)).toEqual([false, true, false]);
    expect(edits[1].diff).toBe('@@ -1,1 +1,1 @@\n-print(x)\n+print(x, sep="")\n');
  });

  it('keeps the newest edits within the count and the characters', () => {
    const { clock, h } = clocked({ maxEdits: 3, maxChars: 10_000 });
    for (let i = 0; i < 10; i++) {
      typeInto(h, clock, `c${i}`, 'x\n', 1, String(i));
    }
    expect(h.edits().map(e => e.cell_id)).toEqual(['c7', 'c8', 'c9']);

    const small = clocked({ maxChars: 200 });
    for (let i = 0; i < 10; i++) {
      typeInto(small.h, small.clock, `c${i}`, 'y'.repeat(60) + '\n', 0, 'z');
    }
    const kept = small.h.edits();
    expect(kept.reduce((n, e) => n + e.diff.length, 0)).toBeLessThanOrEqual(200);
    expect(kept[kept.length - 1].cell_id).toBe('c9');
    // one huge edit is cut to the budget, not dropped
    const huge = clocked({ maxChars: 500 });
    huge.h.record(null, { before: '', after: 'q'.repeat(100_000), from: 0, to: 100_000 });
    expect(huge.h.edits()[0].diff.length).toBe(500);
  });

  it('forgets a deleted cell', () => {
    const { clock, h } = clocked();
    typeInto(h, clock, 'gone', 'a\n', 1, 'b');
    typeInto(h, clock, 'kept', 'a\n', 1, 'c');
    h.forgetCell('gone');
    expect(h.edits().map(e => e.cell_id)).toEqual(['kept']);
  });
});

describe('EditHistories', () => {
  it('keeps one history per document, following its path', () => {
    const histories = new EditHistories();
    const doc = {};
    const a = histories.of(doc, 'a.ipynb');
    expect(histories.of(doc, 'renamed.ipynb')).toBe(a);
    expect(a.path).toBe('renamed.ipynb');
    expect(histories.of({}, 'b.py')).not.toBe(a);
    expect(histories.peek({})).toBeNull();
  });
});

describe('changedLines', () => {
  it('gives the lines an edit changed, as they were and are', () => {
    expect(changedLines(CELL, CELL.replace('total(items)', 'total(prices)'))).toEqual({
      oldLines: ['def total(items):'],
      newLines: ['def total(prices):']
    });
  });
});

describe('the controller records the edits of its editors', () => {
  function setup() {
    const { socket, ws } = connectedSocket(['edit_prediction', 'edit_history']);
    const notebook = {};
    const cellOf = new Map<EditorView, string>();
    const controller: EditPredictionController = new EditPredictionController({
      socket,
      mode: () => 'manual',
      context: view => ({
        path: 'nb.ipynb',
        language: 'python',
        document: notebook,
        cellId: cellOf.get(view) ?? null
      })
    });
    const view = (id: string, doc: string): EditorView => {
      const parent = document.createElement('div');
      document.body.appendChild(parent);
      const v = new EditorView({
        state: EditorState.create({
          doc,
          extensions: [history(), editPredictionExtension((vv, u) => controller.changed(vv, u))]
        }),
        parent
      });
      cellOf.set(v, id);
      return v;
    };
    return { socket, ws, controller, view, notebook };
  }

  it('keeps one history for all cells of a notebook, each edit with its cell, accepted marked', () => {
    const { socket, ws, controller, view, notebook } = setup();
    const a = view('a', 'df = 1\n');
    const b = view('b', 'print(df)\n');
    a.dispatch({ changes: { from: 0, to: 2, insert: 'sales' }, userEvent: 'input.type' });
    showPrediction(b, [{ from: 6, to: 8, insert: 'sales' }]);
    applyPrediction(b);
    const edits = controller.histories.peek(notebook)!.edits();
    expect(edits.map(e => [e.cell_id, !!e.accepted])).toEqual([
      ['a', false],
      ['b', true]
    ]);
    expect(edits[1].diff).toBe('@@ -1,1 +1,1 @@\n-print(df)\n+print(sales)\n');
    // and an edit prediction request sends them
    void controller.request(a);
    const sent = ws.sent.find(m => m.type === 'edit_prediction');
    expect(sent.recent_edits).toEqual(edits);
    a.destroy();
    b.destroy();
    socket.dispose();
  });
});
