/**
 * What the edit prediction tests share: the cell, its notebook, the view's CSS classes.
 */
export const UPSTREAM = `http://127.0.0.1:${process.env.CODECOMPLETE_UI_UPSTREAM_PORT ?? '8911'}`;
export const PLUGIN = 'jupyter-codecomplete:plugin';
export const REMOVED = '.jp-codecomplete-EditRemoved';
export const INSERTED = '.jp-codecomplete-EditInserted';

/**
 * A cell that uses `items` on its first line and three more; the tests rename the first.
 */
export const CELL = [
  'def total(items):',
  '    s = 0',
  '    for p in items:',
  '        s += p',
  '    print(len(items))',
  '    return s / len(items)'
].join('\n');

export function notebookWith(source: string): Record<string, unknown> {
  return {
    cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source }],
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' }
    },
    nbformat: 4,
    nbformat_minor: 5
  };
}

/**
 * Issue 27: the cell markers (a pending edit, a fix available).
 */
export const PENDING_MARKER = '.jp-codecomplete-CellMarker[data-kind="edit"]';
export const FIX_MARKER = '.jp-codecomplete-CellMarker[data-kind="fix"]';

/**
 * Issue 27's notebook: a DataFrame defined in one cell, used in the next ones.
 */
export const IMPORT = 'import pandas as pd';
export const DEFINE = 'df = pd.DataFrame({"price": [1.0], "qty": [2]})';

/**
 * The edit prompts (the generic chat format's) the scripted upstream received so far, in order.
 */
export async function editPrompts(request: {
  get(url: string): Promise<{ json(): Promise<unknown> }>;
}): Promise<string[]> {
  const response = await request.get(`${UPSTREAM}/_stats`);
  const data = (await response.json()) as {
    requests: { body: { messages?: { content: string }[] } }[];
  };
  return data.requests
    .map(r => (r.body.messages ?? []).map(m => m.content).join('\n'))
    .filter(p => p.includes('<|editable_region_start|>'));
}

/**
 * A Python notebook of `cells` (not run), for the contents API.
 */
export function notebookOf(cells: string[]): Record<string, unknown> {
  const nb = notebookWith(cells[0]);
  nb.cells = cells.map((source, i) => ({
    cell_type: 'code',
    execution_count: null,
    id: `cell-${i}`,
    metadata: {},
    outputs: [],
    source
  }));
  return nb;
}
