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
