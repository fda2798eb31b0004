import {
  boundedPrefix,
  boundedSuffix,
  contextCells,
  contextFiles,
  displayLanguage,
  fitToLimit,
  ICellInfo,
  languageFromMime,
  utf8Length
} from '../context/context';
import { IRequestBody } from '../connection/protocol';
import pluginSchema from '../../schema/plugin.json';
import {
  DEFAULT_SETTINGS,
  isLanguageEnabled,
  normalizeSettings,
  disabledLanguagesWith
} from '../settings';

const code = (source: string): ICellInfo => ({ cell_type: 'code', language: 'python', source });

describe('settings', () => {
  it('fills missing or invalid values with the defaults', () => {
    const s = normalizeSettings({
      trigger: 'sometimes',
      streaming: 'never',
      maxPrefixChars: -3,
      maxSuffixChars: 12.7,
      disabledLanguages: ['Python', 3]
    });
    expect(s.trigger).toBe(DEFAULT_SETTINGS.trigger);
    expect(s.streaming).toBe('never');
    expect(s.maxPrefixChars).toBe(DEFAULT_SETTINGS.maxPrefixChars);
    expect(s.maxSuffixChars).toBe(12);
    expect(s.disabledLanguages).toEqual(['python']);
    expect(normalizeSettings(null)).toEqual(normalizeSettings({}));
  });

  it('matches the defaults of schema/plugin.json', () => {
    const schema = pluginSchema as any;
    for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
      expect(schema.properties[key].default).toEqual(value);
    }
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
  });

  it('switches languages on and off case-insensitively', () => {
    const s = normalizeSettings({ disabledLanguages: ['markdown'] });
    expect(isLanguageEnabled(s, 'Markdown')).toBe(false);
    expect(isLanguageEnabled(s, 'python')).toBe(true);
    expect(isLanguageEnabled(s, null)).toBe(true);
    expect(disabledLanguagesWith(['markdown'], 'Python', false)).toEqual(['markdown', 'python']);
    expect(disabledLanguagesWith(['markdown', 'python'], 'PYTHON', true)).toEqual(['markdown']);
  });
});

describe('languages', () => {
  it('maps MIME types and registry names to model languages', () => {
    expect(languageFromMime('text/x-ipython')).toBe('python');
    expect(languageFromMime('text/x-ipythongfm')).toBe('markdown');
    expect(languageFromMime('text/x-rustsrc')).toBe('rust');
    expect(languageFromMime('text/x-haskell')).toBe('haskell');
    expect(languageFromMime(null)).toBeNull();
    expect(languageFromMime('text/x-ipython', 'ipython')).toBe('python');
    expect(languageFromMime('text/x-whatever', 'Julia')).toBe('julia');
    expect(displayLanguage('python')).toBe('Python');
    expect(displayLanguage('javascript')).toBe('JavaScript');
  });
});

describe('prefix and suffix', () => {
  it('keeps the text nearest the cursor', () => {
    expect(boundedPrefix('abcdef', 4, 2)).toBe('cd');
    expect(boundedPrefix('abcdef', 4, 100)).toBe('abcd');
    expect(boundedPrefix('abcdef', 4, 0)).toBe('');
  });

  it('keeps the start of a cut prefix fixed while the user types', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const starts = new Set<string>();
    let typed = '';
    for (const ch of 'value = compute(x)') {
      typed += ch;
      const prefix = boundedPrefix(text + typed, text.length + typed.length, 200);
      expect(prefix.length).toBeLessThanOrEqual(200);
      expect(prefix.endsWith(typed)).toBe(true);
      starts.add(prefix.slice(0, 12));
    }
    // 18 keystrokes, the start moved at most once (a step is a quarter of the limit).
    expect(starts.size).toBeLessThanOrEqual(2);
    expect(boundedSuffix('abcdef', 4, 1)).toBe('e');
    expect(boundedSuffix('abcdef', 4, 0)).toBe('');
  });
});

describe('cell context', () => {
  const cells = [
    code('a = 1'),
    code(''),
    code('b = 2'),
    code('CURSOR'),
    code('c = 3'),
    code('d = 4')
  ];

  it('sends cells above and below in notebook order, skipping empty ones', () => {
    const { above, below } = contextCells(cells, 3, {
      cellContext: 'above-and-below',
      maxContextCells: 10,
      maxContextChars: 1000
    });
    expect(above.map(c => c.source)).toEqual(['a = 1', 'b = 2']);
    expect(below.map(c => c.source)).toEqual(['c = 3', 'd = 4']);
  });

  it('honours the mode', () => {
    const opts = { maxContextCells: 10, maxContextChars: 1000 };
    expect(contextCells(cells, 3, { ...opts, cellContext: 'none' })).toEqual({
      above: [],
      below: []
    });
    expect(contextCells(cells, 3, { ...opts, cellContext: 'above' }).below).toEqual([]);
    expect(contextCells(cells, 3, { ...opts, cellContext: 'below' }).above).toEqual([]);
    expect(contextCells(cells, -1, { ...opts, cellContext: 'above-and-below' })).toEqual({
      above: [],
      below: []
    });
  });

  it('keeps the nearest cells within the count and character budget', () => {
    const many = Array.from({ length: 100 }, (_, i) => code(`x${i} = ${'y'.repeat(95)}`));
    const { above, below } = contextCells(many, 50, {
      cellContext: 'above-and-below',
      maxContextCells: 3,
      maxContextChars: 1000
    });
    expect(above.map(c => c.source.slice(0, 3))).toEqual(['x47', 'x48', 'x49']);
    expect(below.map(c => c.source.slice(0, 3))).toEqual(['x51', 'x52', 'x53']);

    const bounded = contextCells(many, 50, {
      cellContext: 'above-and-below',
      maxContextCells: 100,
      maxContextChars: 400
    });
    const total = [...bounded.above, ...bounded.below].reduce((n, c) => n + c.source.length, 0);
    expect(total).toBeLessThanOrEqual(400);
    // Cells above keep their end (nearest the cursor), cells below their start.
    expect(bounded.above[bounded.above.length - 1].source.startsWith('x49')).toBe(true);
    expect(bounded.above[0].source.startsWith('x')).toBe(false);
    expect(bounded.below[0].source.startsWith('x51')).toBe(true);
  });

  it('gives the budget cells above leave over to the cells below', () => {
    const { above, below } = contextCells([code('CURSOR'), code('z'.repeat(900))], 0, {
      cellContext: 'above-and-below',
      maxContextCells: 5,
      maxContextChars: 1000
    });
    expect(above).toEqual([]);
    expect(below[0].source.length).toBe(900);
  });

  it('carries the execution order, and ids (notebook scope) only on cells sent whole', () => {
    const nb: ICellInfo[] = [
      { ...code('x'.repeat(500)), cell_id: 'LONG', execution_count: null },
      { ...code('a = 1'), cell_id: 'A', execution_count: 1, changed: true },
      { ...code('CURSOR'), cell_id: 'C' },
      { ...code('b = 2'), cell_id: 'B', execution_count: 2, changed: false }
    ];
    const settings = {
      cellContext: 'above-and-below' as const,
      maxContextCells: 10,
      maxContextChars: 300
    };
    const plain = contextCells(nb, 2, settings);
    expect(plain.above.map(c => [c.execution_count, c.changed, c.cell_id])).toEqual([
      [null, undefined, undefined],
      [1, true, undefined]
    ]);
    const scoped = contextCells(nb, 2, settings, true);
    // the long cell was cut: its offsets would not be its own, so it carries no id
    expect(scoped.above.map(c => c.cell_id)).toEqual([undefined, 'A']);
    expect(scoped.below).toEqual([
      {
        cell_type: 'code',
        language: 'python',
        source: 'b = 2',
        execution_count: 2,
        changed: false,
        cell_id: 'B'
      }
    ]);
  });
});

describe('open documents', () => {
  const docs = [
    { path: 'a.py', content: 'A'.repeat(50), language: 'python' },
    { path: 'current.py', content: 'C', language: 'python' },
    { path: 'b.py', content: 'B', language: 'python' },
    { path: 'empty.py', content: '  ', language: 'python' },
    { path: 'c.py', content: 'C', language: 'python' }
  ];
  it('are bounded in number and size and leave out the current file', () => {
    const files = contextFiles(docs, 'current.py', {
      openDocuments: true,
      maxOpenDocuments: 2,
      maxDocumentChars: 10
    });
    expect(files.map(f => f.path)).toEqual(['a.py', 'b.py']);
    expect(files[0].content.length).toBe(10);
    expect(
      contextFiles(docs, null, { openDocuments: false, maxOpenDocuments: 5, maxDocumentChars: 10 })
    ).toEqual([]);
  });
});

describe('message size limit', () => {
  const body = (): IRequestBody => ({
    path: 'x.py',
    language: 'python',
    mime: null,
    prefix: 'p'.repeat(3000) + 'NEAR',
    suffix: 's'.repeat(3000),
    stream: true,
    cell_id: null,
    trigger: 'auto',
    cells_above: [{ cell_type: 'code', language: 'python', source: 'a'.repeat(3000) }],
    cells_below: [{ cell_type: 'code', language: 'python', source: 'b'.repeat(3000) }],
    files: [{ path: 'f.py', content: 'f'.repeat(3000), language: 'python' }]
  });

  it('counts UTF-8 bytes', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
  });

  it('drops files, then cells, then cuts suffix and the far prefix', () => {
    expect(fitToLimit(body(), null)).toEqual(body());
    const a = fitToLimit(body(), 13000);
    expect(a.files).toEqual([]);
    expect(a.cells_above.length + a.cells_below.length).toBe(2);
    const b = fitToLimit(body(), 5000);
    expect(b.cells_above).toEqual([]);
    expect(b.cells_below).toEqual([]);
    expect(utf8Length(JSON.stringify(b))).toBeLessThanOrEqual(5000);
    expect(b.prefix).toBe(body().prefix);
    const c = fitToLimit(body(), 1000);
    expect(c.suffix).toBe('');
    expect(c.prefix.endsWith('NEAR')).toBe(true);
    expect(utf8Length(JSON.stringify(c))).toBeLessThanOrEqual(1000);
  });
});
