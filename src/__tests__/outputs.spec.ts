import { contextCells, fitToLimit, ICellInfo, utf8Length } from '../context/context';
import {
  contextOutputs,
  cleanOutputText,
  htmlTableText,
  IRawOutput,
  OutputLimits,
  outputToContext
} from '../context/outputs';
import { IRequestBody } from '../connection/protocol';
import { DEFAULT_SETTINGS } from '../settings';

const result = (text: string | string[], extra: Record<string, unknown> = {}): IRawOutput => ({
  output_type: 'execute_result',
  data: { 'text/plain': text, ...extra }
});

const cell = (source: string, outputs: IRawOutput[]): ICellInfo => ({
  cell_type: 'code',
  language: 'python',
  source,
  outputs: () => outputs
});

describe('outputToContext', () => {
  it('keeps text results, streams and the name and message of errors', () => {
    expect(outputToContext(result('   price  qty\n0    1.0    2'))).toEqual({
      output_type: 'execute_result',
      text: '   price  qty\n0    1.0    2'
    });
    expect(
      outputToContext({ output_type: 'stream', name: 'stdout', text: ['a\n', 'b\n'] })
    ).toEqual({
      output_type: 'stream',
      text: 'a\nb'
    });
    expect(
      outputToContext({
        output_type: 'error',
        ename: 'KeyError',
        evalue: "'prize'",
        traceback: ['\x1b[0;31m---------\x1b[0m', "\x1b[0;31mKeyError\x1b[0m: 'prize'"]
      })
    ).toEqual({ output_type: 'error', text: "KeyError: 'prize'" });
  });

  it('never sends images or widgets', () => {
    expect(
      outputToContext({ output_type: 'display_data', data: { 'image/png': 'iVBORw0KGgo=' } })
    ).toBeNull();
    expect(
      outputToContext({
        output_type: 'display_data',
        data: {
          'application/vnd.jupyter.widget-view+json': { model_id: 'abc' },
          'text/plain': 'IntSlider(value=3)'
        }
      })?.text
    ).toBe('IntSlider(value=3)');
    expect(
      outputToContext({
        output_type: 'display_data',
        data: { 'image/png': 'x', 'text/plain': '<Figure size 640x480 with 1 Axes>' }
      })
    ).toBeNull();
  });

  it('removes ANSI escape codes and keeps a progress bar’s last state', () => {
    expect(cleanOutputText('\x1b[1;32mok\x1b[0m')).toBe('ok');
    expect(cleanOutputText('10%\r50%\r100%\ndone')).toBe('100%\ndone');
  });

  it('drops binary-looking text', () => {
    expect(
      outputToContext({ output_type: 'stream', text: '\x00\x01\x02\x03PK\x03\x04' })
    ).toBeNull();
    expect(outputToContext(result('\ufffd'.repeat(40) + 'JFIF'))).toBeNull();
  });

  it('cuts megabytes of output to a few lines without reading it all', () => {
    const huge = 'x'.repeat(80) + '\n';
    const text = huge.repeat(60000); // about 5 MB
    const out = outputToContext({ output_type: 'stream', text })!;
    expect(out.text.length).toBeLessThanOrEqual(OutputLimits.outputChars + 2);
    expect(out.text.split('\n').length).toBeLessThanOrEqual(OutputLimits.outputLines + 1);
    expect(out.text.endsWith('\n…')).toBe(true);
  });

  it('renders an HTML table as plain rows when there is no plain text', () => {
    const html =
      '<table class="dataframe"><thead><tr><th></th><th>price</th><th>qty</th></tr></thead>' +
      '<tbody><tr><th>0</th><td>1.0</td><td>2</td></tr><tr><th>1</th><td>&lt;3&gt;</td><td>4</td></tr></tbody></table>';
    expect(htmlTableText(html)).toBe('price  qty\n0  1.0  2\n1  <3>  4');
    expect(
      outputToContext({ output_type: 'display_data', data: { 'text/html': html } })?.text
    ).toBe('price  qty\n0  1.0  2\n1  <3>  4');
    expect(htmlTableText('<p>no table</p>')).toBeNull();
  });

  it('reads only the first rows of a 10,000-row table', () => {
    const rows = Array.from({ length: 10000 }, (_, i) => `<tr><td>${i}</td><td>${i * 2}</td></tr>`);
    const html = `<table><tr><th>a</th><th>b</th></tr>${rows.join('')}</table>`;
    const text = htmlTableText(html)!;
    const lines = text.split('\n');
    expect(lines[0]).toBe('a  b');
    expect(lines.length).toBe(OutputLimits.tableRows + 1);
    expect(lines[lines.length - 1]).toBe('…');
  });
});

describe('outputs in the request', () => {
  const opts = {
    cellContext: 'above-and-below' as const,
    maxContextCells: 20,
    maxContextChars: 12000,
    cellOutputs: true
  };

  it('go with the code cells above, only when the setting is on', () => {
    const cells = [
      cell('df.head()', [result('   price  qty')]),
      cell('CURSOR', []),
      cell('below()', [result('not sent')])
    ];
    const { above, below } = contextCells(cells, 1, opts);
    expect(above[0].outputs).toEqual([{ output_type: 'execute_result', text: '   price  qty' }]);
    expect(below[0].outputs).toBeUndefined();
    const off = contextCells(cells, 1, { ...opts, cellOutputs: false });
    expect(off.above[0]).toEqual({ cell_type: 'code', language: 'python', source: 'df.head()' });
  });

  it('leave out the key when a cell has no text output (older servers)', () => {
    const { above } = contextCells(
      [cell('plot()', [{ output_type: 'display_data', data: { 'image/png': 'x' } }]), cell('', [])],
      1,
      opts
    );
    expect('outputs' in above[0]).toBe(false);
  });

  it('are read only for the cells that are sent', () => {
    let reads = 0;
    const counted = (source: string): ICellInfo => ({
      ...cell(source, [result('x')]),
      outputs: () => {
        reads++;
        return [result('x')];
      }
    });
    const cells = [...Array.from({ length: 50 }, (_, i) => counted(`c${i}`)), cell('CURSOR', [])];
    contextCells(cells, 50, { ...opts, maxContextCells: 3 });
    expect(reads).toBe(3);
  });

  it('share one budget, nearest cells first, and never take room from code', () => {
    const big = 'y'.repeat(1900);
    const cells = [
      ...Array.from({ length: 6 }, (_, i) => cell(`c${i}`, [result(big)])),
      cell('CURSOR', [])
    ];
    const { above } = contextCells(cells, 6, opts);
    expect(above.map(c => c.source)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    const sent = above.map(c => (c.outputs ?? []).reduce((n, o) => n + o.text.length, 0));
    expect(sent.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(OutputLimits.totalChars + 10);
    expect(sent[5]).toBe(1900);
    expect(sent[0]).toBe(0);
  });

  it('caps what one cell sends', () => {
    const many = Array.from({ length: 20 }, (_, i) => result(`line ${i}`));
    expect(contextOutputs(many, 100000).outputs.length).toBe(OutputLimits.outputsPerCell);
  });

  it('are the first thing dropped to fit the message limit', () => {
    const body: IRequestBody = {
      path: 'a.ipynb',
      language: 'python',
      mime: null,
      prefix: 'df[',
      suffix: '',
      stream: false,
      cell_id: null,
      trigger: 'auto',
      cells_above: [
        {
          cell_type: 'code',
          language: 'python',
          source: 'far',
          outputs: [{ output_type: 'stream', text: 'a'.repeat(1500) }]
        },
        {
          cell_type: 'code',
          language: 'python',
          source: 'near',
          outputs: [{ output_type: 'stream', text: 'b'.repeat(1500) }]
        }
      ],
      cells_below: [],
      files: [{ path: 'other.py', content: 'import os', language: 'python' }],
      kernel_candidates: { expression: 'df[', items: [{ text: "'price'" }] }
    };
    const size = utf8Length(JSON.stringify(body));
    const fitted = fitToLimit(body, size - 1000 + 64);
    expect(fitted.cells_above.map(c => c.source)).toEqual(['far', 'near']);
    expect(fitted.cells_above[0].outputs).toBeUndefined();
    expect(fitted.cells_above[1].outputs).toBeDefined();
    expect(fitted.files.length).toBe(1);
    expect(fitted.kernel_candidates).toBeDefined();
    // the original body is untouched
    expect(body.cells_above[0].outputs).toBeDefined();
  });

  it('are on by default, like kernel candidates', () => {
    expect(DEFAULT_SETTINGS.cellOutputs).toBe(true);
    expect(DEFAULT_SETTINGS.kernelCandidates).toBe(true);
  });
});
