import { history, undo } from '@codemirror/commands';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

import {
  currentPrediction,
  dismissPrediction,
  editPredictionExtension,
  EditPredictionClasses
} from '../edits/editprediction';
import { EditPredictionController } from '../edits/editrequest';
import {
  editorEdits,
  groupEdits,
  IPendingEdit,
  nextPending,
  PendingEdits
} from '../edits/notebookedits';
import { INotebookCells, NotebookEditNavigator } from '../edits/notebooknav';
import { connectedSocket, flush } from './fakes';

describe('groupEdits', () => {
  const sent = new Map([
    ['b', 'print(df)\n'],
    ['c', 'df.sum() 😀 df\n']
  ]);

  it('maps edits to the cells they name, the rest to the request text', () => {
    const { own, cells } = groupEdits(
      [
        { start: 0, end: 2, text: 'sales', cell_id: null },
        { start: 6, end: 8, text: 'sales', cell_id: 'b' },
        { start: 11, end: 13, text: 'sales', cell_id: 'c' },
        { start: 0, end: 2, text: 'sales', cell_id: 'c' }
      ],
      sent,
      'df = 1\n'
    );
    expect(own).toEqual([{ start: 0, end: 2, text: 'sales', cell_id: null }]);
    expect(cells.map(c => [c.cellId, c.edits.map(e => e.start)])).toEqual([
      ['b', [6]],
      ['c', [0, 11]] // sorted
    ]);
  });

  it('drops unknown ids, and every edit of a cell with an overlapping or outside one', () => {
    const { own, cells } = groupEdits(
      [
        { start: 0, end: 2, text: 'x', cell_id: 'nope' },
        { start: 0, end: 5, text: 'x', cell_id: 'b' },
        { start: 3, end: 6, text: 'y', cell_id: 'b' }, // overlaps
        { start: 0, end: 99, text: 'z', cell_id: 'c' } // past its end
      ],
      sent,
      'df = 1\n'
    );
    expect(own).toEqual([]);
    expect(cells).toEqual([]);
  });

  it('treats an edit naming the request cell itself as an edit of the request text', () => {
    const { own, cells } = groupEdits(
      [{ start: 0, end: 2, text: 'sales', cell_id: 'a' }],
      sent,
      'df = 1\n',
      'a'
    );
    expect(own.length).toBe(1);
    expect(cells).toEqual([]);
  });
});

describe('editorEdits', () => {
  it('converts code points to the editor offsets only while the text is the one sent', () => {
    const sent = '😀 df\n';
    expect(editorEdits(sent, sent, [{ start: 2, end: 4, text: 'sales' }])).toEqual([
      { from: 3, to: 5, insert: 'sales' }
    ]);
    expect(editorEdits(sent, sent + '# moved on', [{ start: 2, end: 4, text: 'x' }])).toBeNull();
  });

  /**
   * The text after applying `edits` to `text` (sorted, not overlapping).
   */
  const apply = (text: string, edits: { from: number; to: number; insert: string }[]) => {
    let out = '';
    let at = 0;
    for (const e of edits) {
      out += text.slice(at, e.from) + e.insert;
      at = e.to;
    }
    return out + text.slice(at);
  };

  it('strikes the two names of a rename inside a changed line, not the chunk between them', () => {
    const sent = 'plot(df["price"], df)\n';
    // the server's edit: one replacement from the first name to the second
    const edits = editorEdits(sent, sent, [{ start: 5, end: 20, text: 'sales["price"], sales' }])!;
    expect(edits).toEqual([
      { from: 5, to: 7, insert: 'sales' },
      { from: 18, to: 20, insert: 'sales' }
    ]);
    expect(edits.map(e => sent.slice(e.from, e.to))).toEqual(['df', 'df']);
    expect(apply(sent, edits)).toBe('plot(sales["price"], sales)\n');
  });

  it('gives the text the edit gives, and never strikes whitespace alone', () => {
    const sent = 'x = compute(a, b)\ny = 2\n';
    const rewrite = editorEdits(sent, sent, [{ start: 0, end: 17, text: 'total = add(c, d)' }])!;
    expect(apply(sent, rewrite)).toBe('total = add(c, d)\ny = 2\n');
    // the unchanged " = " and "(" and ", " and ")" split it; whitespace alone does not
    expect(rewrite.every(e => sent.slice(e.from, e.to).trim() !== '')).toBe(true);
    const cases: [string, string][] = [
      ['a  b c', 'a b  c'],
      ['for i in range(n):', 'for j in range(m):'],
      ['😀 df = 1', '😀 sales = 1'],
      ['f(x)\n  return x\n', 'f(y)\n    return y\n']
    ];
    for (const [from, to] of cases) {
      const text = from + '\n# rest';
      const got = editorEdits(text, text, [{ start: 0, end: [...from].length, text: to }])!;
      expect(apply(text, got)).toBe(to + '\n# rest');
    }
  });
});

describe('nextPending', () => {
  it('goes to the next pending cell in notebook order, wrapping around', () => {
    const order = ['a', 'b', 'c', 'd'];
    expect(nextPending(order, new Set(['b', 'd']), 'a')).toBe('b');
    expect(nextPending(order, new Set(['b', 'd']), 'b')).toBe('d');
    expect(nextPending(order, new Set(['b', 'd']), 'd')).toBe('b');
    expect(nextPending(order, new Set(['b']), 'b')).toBe('b');
    expect(nextPending(order, new Set(['c']), null)).toBe('c');
    expect(nextPending(order, new Set(['gone']), 'a')).toBeNull();
    // cells moved while the answer travelled: the order now is what counts
    expect(nextPending(['d', 'c', 'b', 'a'], new Set(['b', 'd']), 'a')).toBe('d');
  });
});

describe('PendingEdits', () => {
  it('a new answer replaces the pending edits, fixes stay; a changed cell is pruned', () => {
    const p = new PendingEdits();
    const e = (cellId: string, kind: IPendingEdit['kind'] = 'edit'): IPendingEdit => ({
      cellId,
      sent: 'x',
      edits: [],
      kind,
      number: 1
    });
    p.add(e('f', 'fix'));
    p.set([e('a'), e('b')]);
    p.set([e('c')]);
    expect([...p.ids().keys()].sort()).toEqual(['c', 'f']);
    expect(p.prune(id => (id === 'c' ? 'changed' : 'x'))).toEqual(['c']);
    expect([...p.ids().keys()]).toEqual(['f']);
  });
});

/**
 * A notebook of real CodeMirror editors, one per cell, with the markers on a map.
 */
function notebook(sources: Record<string, string>) {
  const order = Object.keys(sources);
  const views = new Map<string, EditorView>();
  const marks = new Map<string, string>();
  let active: string | null = null;
  const navigator: { nav: NotebookEditNavigator | null } = { nav: null };
  for (const id of order) {
    const parent = document.createElement('div');
    document.body.appendChild(parent);
    views.set(
      id,
      new EditorView({
        state: EditorState.create({
          doc: sources[id],
          extensions: [history(), editPredictionExtension(() => navigator.nav?.changed(id))]
        }),
        parent
      })
    );
  }
  const cells: INotebookCells = {
    order: () => order,
    textOf: id => views.get(id)?.state.doc.toString() ?? null,
    viewOf: id => views.get(id) ?? null,
    activate: id => {
      active = id;
      return views.get(id) ?? null;
    },
    mark: (id, kind) => (kind ? marks.set(id, kind) : marks.delete(id))
  };
  const events = { applied: [] as (string | null)[], dropped: [] as string[] };
  const nav = new NotebookEditNavigator(cells, {
    applied: e => events.applied.push(e?.cellId ?? null),
    dropped: (list, why) => events.dropped.push(...list.map(e => `${e.cellId}:${why}`))
  });
  navigator.nav = nav;
  return {
    nav,
    order,
    views,
    marks,
    events,
    get active() {
      return active;
    },
    text: (id: string) => views.get(id)!.state.doc.toString(),
    destroy: () => views.forEach(v => v.destroy())
  };
}

const RENAME = {
  a: 'sales = load()\n',
  b: 'df.head()\n',
  c: '# notes\n',
  d: 'total = df["price"].sum()\n'
};

function renameEdits(nb: ReturnType<typeof notebook>): IPendingEdit[] {
  return ['b', 'd'].map(id => ({
    cellId: id,
    sent: nb.text(id),
    edits: [
      { from: nb.text(id).indexOf('df'), to: nb.text(id).indexOf('df') + 2, insert: 'sales' }
    ],
    kind: 'edit' as const,
    number: 7
  }));
}

describe('NotebookEditNavigator', () => {
  it('marks the cells, shows their diffs; Tab, Tab applies both, one undo step per cell', () => {
    const nb = notebook(RENAME);
    expect(nb.nav.offer(renameEdits(nb))).toBe(true);
    expect([...nb.marks]).toEqual([
      ['b', 'edit'],
      ['d', 'edit']
    ]);
    const b = nb.views.get('b')!;
    const d = nb.views.get('d')!;
    expect(b.dom.querySelector(`.${EditPredictionClasses.removed}`)?.textContent).toBe('df');
    const a = nb.views.get('a')!;
    expect(nb.nav.handles(a)).toBe(true);
    // Tab in the defining cell: the next pending edit (shown on screen) is applied, and the
    // one after it is where the cursor goes
    expect(nb.nav.tab(a, 'a')).toBe(true);
    expect(nb.text('b')).toBe('sales.head()\n');
    expect(nb.active).toBe('d');
    expect(currentPrediction(d)).not.toBeNull();
    expect(nb.nav.tab(d, 'd')).toBe(true);
    expect(nb.text('d')).toBe('total = sales["price"].sum()\n');
    expect(nb.marks.size).toBe(0);
    expect(nb.events.applied).toEqual(['b', 'd']);
    expect(nb.events.dropped).toEqual([]); // applying an edit is not an edit that drops it
    expect(nb.nav.handles(d)).toBe(false); // nothing pending: Tab is JupyterLab's again
    undo(d);
    expect(nb.text('d')).toBe(RENAME.d);
    expect(nb.text('b')).toBe('sales.head()\n'); // each cell its own undo step
    nb.destroy();
  });

  it('Tab goes to a pending cell whose diff is not shown, and shows it there', () => {
    const nb = notebook(RENAME);
    const edits = renameEdits(nb);
    nb.nav.offer(edits);
    // the diff in b is not shown (its editor was re-created); the edit is still pending
    const b = nb.views.get('b')!;
    dismissPrediction(b);
    expect(nb.nav.tab(nb.views.get('a')!, 'a')).toBe(true);
    expect(nb.active).toBe('b');
    expect(nb.text('b')).toBe(RENAME.b); // shown, not applied
    expect(currentPrediction(b)).not.toBeNull();
    nb.destroy();
  });

  it('Escape drops them all', () => {
    const nb = notebook(RENAME);
    nb.nav.offer(renameEdits(nb));
    expect(nb.nav.escape(nb.views.get('a')!, 'a')).toBe(true);
    expect(nb.marks.size).toBe(0);
    expect(currentPrediction(nb.views.get('b')!)).toBeNull();
    expect(currentPrediction(nb.views.get('d')!)).toBeNull();
    expect(nb.events.dropped).toEqual(['b:escape', 'd:escape']);
    expect(nb.nav.tab(nb.views.get('a')!, 'a')).toBe(false);
    nb.destroy();
  });

  it('a cell edited meanwhile gets no edit: its marker goes, Tab skips it', () => {
    const nb = notebook(RENAME);
    const edits = renameEdits(nb);
    // d was edited while the answer travelled: its edit is for text it no longer has
    nb.views.get('d')!.dispatch({ changes: { from: 0, insert: '# x\n' } });
    nb.nav.offer(edits);
    expect([...nb.marks.keys()]).toEqual(['b']);
    expect(currentPrediction(nb.views.get('d')!)).toBeNull();
    // b edited after the answer came: dropped too
    nb.views.get('b')!.dispatch({ changes: { from: 0, insert: ' ' } });
    expect(nb.marks.size).toBe(0);
    expect(nb.nav.tab(nb.views.get('a')!, 'a')).toBe(false);
    expect(nb.text('d')).toBe('# x\n' + RENAME.d);
    nb.destroy();
  });

  it('a moved cell is marked again and its edit still lands in it; a deleted one is dropped', () => {
    const nb = notebook({ ...RENAME, e: 'print(df)\n' });
    const edits = [
      ...renameEdits(nb),
      { cellId: 'e', sent: 'print(df)\n', edits: [{ from: 6, to: 8, insert: 'sales' }] }
    ].map(e => ({ kind: 'edit' as const, number: 7, ...e }));
    nb.nav.offer(edits);
    // e moved above b: a new widget (no marker), the order changed; d deleted
    nb.marks.delete('e');
    nb.order.splice(nb.order.indexOf('e'), 1);
    nb.order.splice(1, 0, 'e');
    nb.views.get('d')!.destroy();
    nb.views.delete('d');
    nb.nav.cellsChanged();
    expect([...nb.marks.keys()].sort()).toEqual(['b', 'e']);
    expect([...nb.nav.pending.ids('edit').keys()].sort()).toEqual(['b', 'e']);
    // Tab from the defining cell: the moved cell first (notebook order), then b; each its own
    dismissPrediction(nb.views.get('e')!);
    dismissPrediction(nb.views.get('b')!);
    expect(nb.nav.tab(nb.views.get('a')!, 'a')).toBe(true);
    expect(nb.active).toBe('e');
    expect(nb.nav.tab(nb.views.get('e')!, 'e')).toBe(true);
    expect(nb.text('e')).toBe('print(sales)\n');
    expect(nb.active).toBe('b');
    expect(nb.nav.tab(nb.views.get('b')!, 'b')).toBe(true);
    expect(nb.text('b')).toBe('sales.head()\n');
    expect(nb.marks.size).toBe(0);
    nb.destroy();
  });

  it('offers a fix when the user returns to the cell; Tab applies it', () => {
    const nb = notebook({ a: 'df = make()\n', b: 'df["prcie"].sum()\n' });
    const sent = nb.text('b');
    const at = sent.indexOf('prcie');
    const fix: IPendingEdit = {
      cellId: 'b',
      sent,
      edits: [{ from: at, to: at + 5, insert: 'price' }],
      kind: 'fix',
      number: 3
    };
    expect(nb.nav.offerFix(fix)).toBe(true);
    expect(nb.marks.get('b')).toBe('fix');
    const b = nb.views.get('b')!;
    expect(currentPrediction(b)).toBeNull(); // not shown until the user is there
    expect(nb.nav.entered('b')).toBe(true);
    expect(nb.nav.tab(b, 'b')).toBe(true);
    expect(nb.text('b')).toBe('df["price"].sum()\n');
    expect(nb.marks.size).toBe(0);
    // a fix for a cell edited while it travelled is not offered
    expect(nb.nav.offerFix({ ...fix, sent: 'old text' })).toBe(false);
    nb.destroy();
  });
});

describe('a notebook-scope request', () => {
  const connected = connectedSocket;

  function editor(doc: string): EditorView {
    const parent = document.createElement('div');
    document.body.appendChild(parent);
    return new EditorView({ state: EditorState.create({ doc }), parent });
  }

  /**
   * A notebook cell `a` whose next cell `b` holds `below` (its id only in notebook scope).
   */
  const inCellA = (below: string) => (): EditPredictionController.IContext => ({
    path: 'nb.ipynb',
    language: 'python',
    cellId: 'a',
    cells: ids => ({
      above: [],
      below: [
        { cell_type: 'code', language: 'python', source: below, ...(ids ? { cell_id: 'b' } : {}) }
      ]
    })
  });

  it('sends the other cells with ids and scope notebook; the reply goes to the cells by id', async () => {
    const { socket, ws } = connected(['edit_prediction', 'notebook_edits']);
    const got: { cellId: string; text: string }[] = [];
    const c = new EditPredictionController({
      socket,
      mode: () => 'manual',
      context: inCellA('df.head()'),
      onCellEdits: (_, cells) => {
        got.push(...cells.map(x => ({ cellId: x.cellId, text: x.edits[0].text })));
        return true;
      }
    });
    const view = editor('sales = 1\n');
    const shown = c.request(view, 'auto');
    const sent = ws.sent[0];
    expect(sent.scope).toBe('notebook');
    expect(sent.cell_id).toBe('a');
    expect(sent.cells_below).toEqual([
      { cell_type: 'code', language: 'python', source: 'df.head()', cell_id: 'b' }
    ]);
    ws.receive({
      type: 'edit_prediction',
      reply_to: sent.number,
      version: sent.version,
      edits: [
        { start: 0, end: 2, text: 'sales', cell_id: 'b' },
        { start: 0, end: 2, text: 'x', cell_id: 'unknown' }
      ],
      error: null
    });
    expect(await shown).toBe(true);
    expect(got).toEqual([{ cellId: 'b', text: 'sales' }]);
    view.destroy();
    socket.dispose();
  });

  it('is a cell-scope request, without ids, when the server does not offer notebook edits', async () => {
    const { socket, ws } = connected(['edit_prediction']);
    const c = new EditPredictionController({
      socket,
      mode: () => 'manual',
      context: inCellA('x')
    });
    const view = editor('y\n');
    void c.request(view);
    expect(ws.sent[0].scope).toBeUndefined();
    expect(ws.sent[0].cells_below[0].cell_id).toBeUndefined();
    view.destroy();
    socket.dispose();
  });

  it('is a cell-scope request in a notebook with no other cell to edit', async () => {
    const { socket, ws } = connected(['edit_prediction', 'notebook_edits']);
    const c = new EditPredictionController({
      socket,
      mode: () => 'manual',
      context: () => ({
        path: 'nb.ipynb',
        language: 'python',
        cellId: 'a',
        cells: () => ({ above: [], below: [] })
      })
    });
    const view = editor('y\n');
    void c.request(view);
    expect(ws.sent[0].scope).toBeUndefined();
    view.destroy();
    socket.dispose();
  });

  it('sends an error fix only when edit predictions are on and the server offers it', async () => {
    const error = {
      ename: 'KeyError',
      evalue: "'prcie'",
      traceback: 'KeyError',
      execution_count: 2
    };
    for (const [mode, features, expected] of [
      ['off', ['edit_prediction', 'error_fix'], 0],
      ['manual', ['edit_prediction'], 0],
      ['manual', ['edit_prediction', 'error_fix'], 1]
    ] as const) {
      const { socket, ws } = connected([...features]);
      const c = new EditPredictionController({ socket, mode: () => mode });
      const view = editor('df["prcie"]\n');
      void c.ask(view, 'error', {
        error,
        kernelCandidates: { expression: 'df["', items: [{ text: 'price' }] }
      });
      await flush();
      expect(ws.sent.length).toBe(expected);
      if (expected) {
        expect(ws.sent[0].trigger).toBe('error');
        expect(ws.sent[0].error).toEqual(error);
        expect(ws.sent[0].kernel_candidates.items).toEqual([{ text: 'price' }]);
        expect(ws.sent[0].scope).toBeUndefined();
      }
      view.destroy();
      socket.dispose();
    }
  });
});
