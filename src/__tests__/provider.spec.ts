import { InlineCompletionTriggerKind } from '@jupyterlab/completer';

import { CodeCompleteProvider, PROVIDER_ID } from '../completion/provider';
import { IInlineCompletionReply } from '../connection/protocol';
import { CompletionError } from '../connection/socket';
import { DEFAULT_SETTINGS, ISettings, normalizeSettings } from '../settings';
import { FakeClient, flush, streamChunk } from './fakes';

const request = (text: string, offset = text.length, mimeType = 'text/x-ipython') => ({
  text,
  offset,
  mimeType
});
const auto = { widget: {} as any, triggerKind: InlineCompletionTriggerKind.Automatic };
const manual = { widget: {} as any, triggerKind: InlineCompletionTriggerKind.Invoke };

function reply(number: number, items: any[], error: any = null): IInlineCompletionReply {
  return { type: 'inline_completion', reply_to: number, list: { items }, error };
}

function setup(
  overrides: Partial<ISettings> = {},
  options: Partial<CodeCompleteProvider.IOptions> = {}
) {
  const client = new FakeClient();
  let settings = normalizeSettings({ ...DEFAULT_SETTINGS, ...overrides });
  const provider = new CodeCompleteProvider({
    client,
    settings: () => settings,
    ...options
  });
  const activity: string[] = [];
  provider.activity.connect((_, a) => activity.push(a.kind));
  return {
    client,
    provider,
    activity,
    set: (s: Partial<ISettings>) => (settings = normalizeSettings({ ...settings, ...s }))
  };
}

/**
 * Read one of the provider's streams in the background: the texts it shows, and its end.
 */
function watch(provider: CodeCompleteProvider, token: string) {
  const seen: string[] = [];
  const reading = (async () => {
    for await (const update of provider.stream(token)) {
      seen.push(update.response.insertText);
    }
  })();
  return { seen, reading };
}

/**
 * An automatic streamed request at the end of `text` that the server started; its stream read.
 */
async function startStream(client: FakeClient, provider: CodeCompleteProvider, text: string) {
  const result = provider.fetch(request(text), auto);
  await flush();
  client.replies[0].resolve(reply(0, [{ insertText: '', isIncomplete: true, token: 't' }]));
  return watch(provider, (await result).items[0].token!);
}

describe('CodeCompleteProvider', () => {
  it('has the fixed identifier and inline-completer defaults', () => {
    const { provider } = setup();
    expect(provider.identifier).toBe(PROVIDER_ID);
    expect(PROVIDER_ID).toBe('jupyter-codecomplete');
    expect((provider.schema.default as any).debouncerDelay).toBeGreaterThan(0);
  });

  it('fetches a non-stream suggestion', async () => {
    const { client, provider, activity } = setup({ streaming: 'never' });
    const result = provider.fetch(request('def add(a, b):'), auto);
    await flush();
    expect(client.requests[0]).toMatchObject({
      prefix: 'def add(a, b):',
      suffix: '',
      language: 'python',
      mime: 'text/x-ipython',
      stream: false,
      trigger: 'auto'
    });
    client.replies[0].resolve(reply(0, [{ insertText: '\n    return a + b' }]));
    expect(await result).toEqual({
      items: [{ insertText: '\n    return a + b', isIncomplete: false }]
    });
    expect(activity).toEqual(['started', 'shown', 'succeeded']);
  });

  it('sends the recent edits of the document when there are some, and no field otherwise', async () => {
    const edits = [{ path: 'nb.ipynb', diff: '@@ -1 +1 @@\n-a\n+b\n', cell_id: 'c1' }];
    let recent: typeof edits = [];
    const { client, provider } = setup({ streaming: 'never' }, { recentEdits: () => recent });
    void provider.fetch(request('x = 1'), auto);
    await flush();
    expect('recent_edits' in client.requests[0]).toBe(false);
    recent = edits;
    void provider.fetch(request('x = 2'), auto);
    await flush();
    expect(client.requests[1].recent_edits).toEqual(edits);
  });

  it('streams: fetch returns a token item, stream() yields the growing text', async () => {
    const { client, provider, activity } = setup({ streaming: 'always' });
    const result = provider.fetch(request('def add(a, b):'), auto);
    await flush();
    expect(client.requests[0].stream).toBe(true);
    client.replies[0].resolve(reply(0, [{ insertText: '', isIncomplete: true, token: 'tok' }]));
    const list = await result;
    expect(list.items).toEqual([{ insertText: '', isIncomplete: true, token: expect.any(String) }]);
    const token = list.items[0].token!;
    const queue = client.replies[0].chunks!;
    const seen: any[] = [];
    const reading = (async () => {
      for await (const update of provider.stream(token)) {
        seen.push(update.response);
      }
    })();
    await flush();
    queue.push(streamChunk(0, '\n    ret', false));
    await flush();
    queue.push(streamChunk(0, '\n    return a + b', true));
    await reading;
    expect(seen).toEqual([
      { insertText: '', isIncomplete: true },
      { insertText: '\n    ret', isIncomplete: true },
      { insertText: '\n    return a + b', isIncomplete: false }
    ]);
    expect(activity).toEqual(['started', 'shown', 'succeeded']);
    // A token is used once.
    const again: any[] = [];
    for await (const update of provider.stream(token)) {
      again.push(update);
    }
    expect(again).toEqual([]);
  });

  it('streams only manual requests when streaming is "manual"', async () => {
    const { client, provider } = setup({ streaming: 'manual' });
    void provider.fetch(request('x = '), auto);
    void provider.fetch(request('x = '), manual);
    await flush();
    expect(client.requests.map(r => [r.stream, r.trigger])).toEqual([
      [false, 'auto'],
      [true, 'manual']
    ]);
  });

  it('asks nothing when disabled, for a disabled language, or when typing in manual mode', async () => {
    const { client, provider, set, activity } = setup({ enabled: false });
    expect(await provider.fetch(request('x'), auto)).toEqual({ items: [] });
    set({ enabled: true, disabledLanguages: ['Python', 'markdown'] });
    expect(await provider.fetch(request('x'), auto)).toEqual({ items: [] });
    expect(provider.lastLanguage).toBe('python');
    expect(await provider.fetch(request('# Title', 7, 'text/x-ipythongfm'), manual)).toEqual({
      items: []
    });
    set({ disabledLanguages: [], trigger: 'manual' });
    expect(await provider.fetch(request('x'), auto)).toEqual({ items: [] });
    expect(client.requests.length).toBe(0);
    expect(activity).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    void provider.fetch(request('x'), manual);
    await flush();
    expect(client.requests.length).toBe(1);
  });

  it('bounds prefix and suffix by the settings', async () => {
    const { client, provider } = setup({ maxPrefixChars: 5, maxSuffixChars: 3 });
    void provider.fetch(request('0123456789abcdef', 10), auto);
    await flush();
    expect(client.requests[0].prefix).toBe('56789');
    expect(client.requests[0].suffix).toBe('abc');
  });

  it('sends cells and the cell id from the notebook, bounded', async () => {
    const { client, provider } = setup(
      { cellContext: 'above', maxContextCells: 1 },
      {
        collectCells: () => ({
          cells: [
            { cell_type: 'code', language: 'python', source: 'import os' },
            { cell_type: 'markdown', language: 'markdown', source: '# Adding' },
            { cell_type: 'code', language: 'python', source: 'def add' },
            { cell_type: 'code', language: 'python', source: 'add(1, 2)' }
          ],
          activeIndex: 2,
          cellId: 'cell-3'
        })
      }
    );
    void provider.fetch(request('def add'), auto);
    await flush();
    expect(client.requests[0].cell_id).toBe('cell-3');
    expect(client.requests[0].cells_above).toEqual([
      { cell_type: 'markdown', language: 'markdown', source: '# Adding' }
    ]);
    expect(client.requests[0].cells_below).toEqual([]);
  });

  it('sends open documents only when allowed', async () => {
    const docs = () => [{ path: 'util.py', content: 'def helper(): pass', language: 'python' }];
    const off = setup({}, { collectDocuments: docs });
    void off.provider.fetch(request('x'), auto);
    const on = setup({ openDocuments: true }, { collectDocuments: docs });
    void on.provider.fetch(request('x'), auto);
    await flush();
    expect(off.client.requests[0].files).toEqual([]);
    expect(on.client.requests[0].files).toEqual(docs());
  });

  it('takes the path from the document widget', async () => {
    const { client, provider } = setup();
    void provider.fetch(request('x'), {
      widget: { context: { path: 'work/demo.ipynb' } } as any,
      triggerKind: InlineCompletionTriggerKind.Automatic
    });
    await flush();
    expect(client.requests[0].path).toBe('work/demo.ipynb');
  });

  it('an excluded document: no error item, the reason said, no request again for a minute', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const { client, provider } = setup({ streaming: 'never' });
      const details: (string | undefined)[] = [];
      provider.activity.connect((_, a) => details.push(a.reason === 'excluded' ? a.detail : ''));
      const env = {
        widget: { context: { path: 'app/.env' } } as any,
        triggerKind: InlineCompletionTriggerKind.Automatic
      };
      const result = provider.fetch(request('API_'), env);
      await flush();
      client.replies[0].reject(
        new CompletionError(
          { type: 'excluded', title: 'Excluded', message: 'excluded by default (.env*)' },
          0
        )
      );
      expect((await result).items).toEqual([]); // nothing shown, not an error
      expect(details).toContain('excluded by default (.env*)');
      expect((await provider.fetch(request('API_K'), env)).items).toEqual([]);
      expect(client.requests).toHaveLength(1); // not asked again
      void provider.fetch(request('x'), auto); // another document is asked as before
      await flush();
      expect(client.requests).toHaveLength(2);
      jest.advanceTimersByTime(61_000);
      void provider.fetch(request('API_KE'), env); // the answer is a minute old: asked again
      await flush();
      expect(client.requests).toHaveLength(3);
    } finally {
      jest.useRealTimers();
    }
  });

  it('shrinks a request to the server message limit', async () => {
    const { client, provider } = setup({ maxPrefixChars: 100000 });
    client.hello = { max_message_bytes: 2000 };
    void provider.fetch(request('x'.repeat(5000) + 'END'), auto);
    await flush();
    const sent = client.requests[0];
    expect(JSON.stringify(sent).length).toBeLessThan(2000);
    expect(sent.prefix.endsWith('END')).toBe(true);
  });

  it('turns an error reply into an error item and a failed activity', async () => {
    const { client, provider, activity } = setup({ streaming: 'never' });
    const result = provider.fetch(request('x'), auto);
    await flush();
    client.replies[0].reject(
      new CompletionError(
        { type: 'backend_unavailable', title: 'Backend down', message: 'connection refused' },
        0
      )
    );
    const list = await result;
    expect(list.items).toEqual([
      { insertText: '', error: { message: 'Backend down: connection refused' } }
    ]);
    expect(activity).toEqual(['started', 'failed']);
  });

  it('hides cancelled and superseded requests', async () => {
    const { client, provider, activity } = setup({ streaming: 'never' });
    const a = provider.fetch(request('x'), auto);
    await flush();
    client.replies[0].reject(
      new CompletionError({ type: 'superseded', title: 'Superseded', message: '' }, 0)
    );
    expect(await a).toEqual({ items: [] });
    expect(activity).toEqual(['started', 'cancelled']);
  });

  it('never paints a superseded stream; ends a failed one with an error marker', async () => {
    const { client, provider, activity } = setup();
    const a = provider.fetch(request('x'), auto);
    const b = provider.fetch(request('y'), auto);
    await flush();
    client.replies[0].resolve(reply(0, [{ insertText: '', isIncomplete: true, token: 'a' }]));
    client.replies[1].resolve(reply(1, [{ insertText: '', isIncomplete: true, token: 'b' }]));
    const tokenA = (await a).items[0]?.token;
    const tokenB = (await b).items[0].token!;
    client.replies[0].chunks!.push(streamChunk(0, 'part', false));
    client.replies[0].chunks!.fail(
      new CompletionError({ type: 'superseded', title: 'Superseded', message: '' }, 0)
    );
    client.replies[1].chunks!.push(streamChunk(1, 'half', false));
    client.replies[1].chunks!.fail(
      new CompletionError({ type: 'timeout', title: 'Timed out', message: 'model too slow' }, 1)
    );
    await flush();
    const seenA: any[] = [];
    if (tokenA) {
      for await (const u of provider.stream(tokenA)) {
        seenA.push(u.response);
      }
    }
    const seenB: any[] = [];
    for await (const u of provider.stream(tokenB)) {
      seenB.push(u.response);
    }
    expect(seenA).toEqual([]);
    expect(seenB).toEqual([
      { insertText: 'half', error: { message: 'Timed out: model too slow' } }
    ]);
    expect(activity).toEqual(['started', 'started', 'shown', 'shown', 'cancelled', 'failed']);
  });

  describe('typing through a suggestion', () => {
    const DEF = 'def add(a, b):';
    async function suggested(overrides: Partial<ISettings> = {}, options = {}) {
      const t = setup({ streaming: 'never', ...overrides }, options);
      const result = t.provider.fetch(request(DEF), auto);
      await flush();
      t.client.replies[0].resolve(reply(0, [{ insertText: '\n    return a + b' }]));
      await result;
      return t;
    }
    /**
     * What the provider answers once the user typed `text` after the definition.
     */
    const typed = (provider: CodeCompleteProvider, text: string) =>
      provider.fetch(request(DEF + text), auto);
    /**
     * A finished suggestion of `text`.
     */
    const whole = (text: string) => ({ items: [{ insertText: text, isIncomplete: false }] });

    it('answers from the suggestion while the user types its characters', async () => {
      const { client, provider, activity } = await suggested();
      expect(await typed(provider, '\n    ret')).toEqual(whole('urn a + b'));
      expect(await typed(provider, '\n    return a')).toEqual(whole(' + b'));
      expect(client.requests.length).toBe(1);
      expect(activity).toEqual(['started', 'shown', 'succeeded', 'reused', 'reused']);
    });

    it("takes the editor's auto-indent after Enter", async () => {
      const { client, provider } = await suggested();
      expect(await typed(provider, '\n    ')).toEqual(whole('return a + b'));
      expect(await typed(provider, '\n        ')).toEqual(whole('return a + b'));
      expect(await typed(provider, '\n  ')).toEqual(whole('  return a + b'));
      expect(client.requests.length).toBe(1);
    });

    it('answers Backspace and retyping, and coming back, from memory', async () => {
      const { client, provider } = await suggested();
      await provider.fetch(request(DEF + '\n    retu'), auto);
      expect(await typed(provider, '\n    r')).toEqual(whole('eturn a + b'));
      expect(await typed(provider, '\n    re')).toEqual(whole('turn a + b'));
      expect(client.requests.length).toBe(1);
    });

    it('asks the model again once the user typed something else', async () => {
      const { client, provider } = await suggested();
      void provider.fetch(request(DEF + '\n    x'), auto);
      await flush();
      expect(client.requests.length).toBe(2);
      expect(client.requests[1].prefix).toBe(DEF + '\n    x');
    });

    it('asks again when the text after the cursor changed, or the document', async () => {
      const { client, provider } = await suggested();
      void provider.fetch(request(DEF + '\n    ret# end', DEF.length + 8), auto);
      void provider.fetch(request(DEF + '\n    ret'), {
        widget: { context: { path: 'other.py' } } as any,
        triggerKind: InlineCompletionTriggerKind.Automatic
      });
      await flush();
      expect(client.requests.length).toBe(3);
    });

    it('asks again once the suggestion is typed to its end', async () => {
      const { client, provider } = await suggested();
      void provider.fetch(request(DEF + '\n    return a + b'), auto);
      await flush();
      expect(client.requests.length).toBe(2);
    });

    it('forgets what it saw when the settings change', async () => {
      const { client, provider, set } = await suggested();
      set({ maxPrefixChars: 1000 });
      void provider.fetch(request(DEF + '\n    ret'), auto);
      await flush();
      expect(client.requests.length).toBe(2);
      client.replies[1].resolve(reply(1, [{ insertText: 'urn a - b' }]));
      await flush();
      provider.forget();
      void provider.fetch(request(DEF + '\n    retu'), auto);
      await flush();
      expect(client.requests.length).toBe(3);
    });

    /**
     * A streamed suggestion after `total = `, being read; `view.editor` is the editor as the
     * user sees it, changed by the test between chunks.
     */
    async function typingIntoStream() {
      const view = { editor: { key: 'demo.py', text: 'total = ', offset: 8 } };
      const { client, provider } = setup(
        { streaming: 'always' },
        { editorState: () => view.editor }
      );
      const read = await startStream(client, provider, 'total = ');
      return { client, provider, view, queue: client.replies[0].chunks!, ...read };
    }

    it('paints only the rest while the user types into a streaming suggestion', async () => {
      const { client, provider, view, queue, seen, reading } = await typingIntoStream();
      queue.push(streamChunk(0, 'su', false));
      await flush();
      view.editor = { key: 'demo.py', text: 'total = s', offset: 9 };
      queue.push(streamChunk(0, 'sum(val', false));
      await flush();
      // The next request (after the debounce) is answered from the stream, at once.
      const next = await provider.fetch(request('total = su'), auto);
      expect(next.items).toEqual([
        { insertText: 'm(val', isIncomplete: true, token: expect.any(String) }
      ]);
      view.editor = { key: 'demo.py', text: 'total = su', offset: 10 };
      const { seen: seenNext, reading: readingNext } = watch(provider, next.items[0].token!);
      queue.push(streamChunk(0, 'sum(values)', true));
      await reading;
      await readingNext;
      expect(client.requests.length).toBe(1);
      // Never a character the user already typed; the older view stops at the newer request.
      expect(seen).toEqual(['', 'su', 'um(val']);
      expect(seenNext).toEqual(['m(val', 'm(values)']);
    });

    it('stops painting a stream once the user types away from it', async () => {
      const { view, queue, seen, reading } = await typingIntoStream();
      queue.push(streamChunk(0, 'sum', false));
      await flush();
      view.editor = { key: 'demo.py', text: 'total = x', offset: 9 };
      queue.push(streamChunk(0, 'sum(values)', true));
      await reading;
      expect(seen).toEqual(['', 'sum']);
    });
  });
});

describe('fresh-line requests and dismissal', () => {
  it('an invoke request the fresh-line trigger announced is sent as automatic', async () => {
    const { client, provider } = setup({ trigger: 'auto' });
    provider.expectAutomatic('def add(a, b):\n    ');
    void provider.fetch(request('def add(a, b):\n    '), manual);
    expect(client.requests[0].trigger).toBe('auto');
    // the mark is used once: the next explicit request is manual again
    void provider.fetch(request('def add(a, b):\n    '), manual);
    expect(client.requests[1].trigger).toBe('manual');
  });

  it('a mark for other text does not change an explicit request', async () => {
    const { client, provider } = setup();
    provider.expectAutomatic('something else\n');
    void provider.fetch(request('x = 1'), manual);
    expect(client.requests[0].trigger).toBe('manual');
  });

  it('cancelLatest stops the request whose suggestion was dismissed', async () => {
    const { client, provider } = setup();
    void provider.fetch(request('x = '), auto);
    provider.cancelLatest();
    expect(client.cancelled).toEqual([0]);
    provider.cancelLatest();
    expect(client.cancelled).toEqual([0]);
  });
});

describe('explicit requests and remembered suggestions', () => {
  it('Alt+\\ at a position answered before asks the model again', async () => {
    const { client, provider } = setup({ streaming: 'never' });
    const first = provider.fetch(request('x = '), auto);
    client.replies[0].resolve(reply(0, [{ insertText: '1' }]));
    expect((await first).items[0].insertText).toBe('1');
    // automatic at the same place: answered from memory
    await provider.fetch(request('x = '), auto);
    expect(client.requests).toHaveLength(1);
    // explicit: a new model request
    void provider.fetch(request('x = '), manual);
    expect(client.requests).toHaveLength(2);
    expect(client.requests[1].trigger).toBe('manual');
  });
});

describe('a request the editor has moved on from', () => {
  it('does not ask the model for an automatic request made for an older text', async () => {
    // JupyterLab's debounce let it through: the user pressed Enter after `:` meanwhile.
    const editor = { key: 'demo.py', text: 'def f(a):\n    ', offset: 14 };
    const { client, provider, activity } = setup({}, { editorState: () => editor });
    const result = await provider.fetch(request('def f(a):'), auto);
    expect(result.items).toEqual([]);
    expect(client.requests).toHaveLength(0);
    expect(activity).toEqual(['skipped']);
    // the request for the text as it is goes out; an explicit one always does
    void provider.fetch(request('def f(a):\n    '), auto);
    void provider.fetch(request('def f(a):'), manual);
    expect(client.requests).toHaveLength(2);
  });
});

describe('restraint and usage hooks', () => {
  it('skips what restraint holds back, drops what a newer request superseded, never for Alt+\\', async () => {
    let release!: (why: string | null) => void;
    const { client, provider, activity } = setup(
      {},
      { restrain: () => new Promise<string | null>(resolve => (release = resolve)) }
    );
    const first = provider.fetch(request('x = 1'), auto);
    await flush();
    release('gate');
    expect(await first).toEqual({ items: [] });
    expect(activity).toContain('skipped');
    expect(client.requests).toHaveLength(0);
    // superseded while it waited: nothing asked
    const older = provider.fetch(request('y = 1'), auto);
    await flush();
    const releaseOlder = release;
    const newer = provider.fetch(request('y = 12'), auto);
    await flush();
    releaseOlder(null);
    expect(await older).toEqual({ items: [] });
    release(null);
    await flush();
    expect(client.requests.map(r => r.prefix)).toEqual(['y = 12']);
    client.replies[0].resolve(reply(0, [{ insertText: '3' }]));
    expect((await newer).items[0].insertText).toBe('3');
    // the user's own request is never held
    const asked = provider.fetch(request('z = '), manual);
    await flush();
    expect(client.requests).toHaveLength(2);
    client.replies[1].resolve(reply(1, [{ insertText: '0' }]));
    await asked;
  });

  it('says what it shows, with the trigger of its request', async () => {
    const { client, provider } = setup();
    const shown: { rest: string; trigger: string }[] = [];
    provider.lifecycle.shown.connect((_, s) =>
      shown.push({ rest: s.detail.rest, trigger: s.detail.trigger })
    );
    const pending = provider.fetch(request('def f():'), manual);
    await flush();
    client.replies[0].resolve(reply(0, [{ insertText: '\n    pass' }]));
    await pending;
    expect(shown).toEqual([{ rest: '\n    pass', trigger: 'manual' }]);
  });

  it('drives its lifecycle: asked, shown, complete, accepted whole, ended', async () => {
    const { client, provider } = setup({ streaming: 'never' });
    const life: string[] = [];
    provider.lifecycle.asked.connect((_, e) => life.push(`asked ${e.id}`));
    provider.lifecycle.shown.connect((_, e) => life.push(`shown ${e.id} ${e.detail.rest}`));
    provider.lifecycle.complete.connect((_, e) => life.push(`complete ${e.id}`));
    provider.lifecycle.accepted.connect((_, e) => life.push(`accepted ${e.id} ${e.part}`));
    provider.lifecycle.ended.connect((_, e) => life.push(`ended ${e.id} ${e.reason}`));
    const first = provider.fetch(request('x = '), manual);
    await flush();
    client.replies[0].resolve(reply(0, [{ insertText: '42' }]));
    await first;
    provider.notePartialAccept('word', '4');
    provider.noteAccepted();
    // a second suggestion, dismissed with Escape; a fourth discards the third
    const second = provider.fetch(request('y = '), manual);
    await flush();
    client.replies[1].resolve(reply(1, [{ insertText: '7' }]));
    await second;
    provider.cancelLatest();
    const third = provider.fetch(request('z = '), manual);
    await flush();
    client.replies[2].resolve(reply(2, [{ insertText: '1' }]));
    await third;
    const fourth = provider.fetch(request('w = '), manual);
    await flush();
    client.replies[3].resolve(reply(3, [{ insertText: '2' }]));
    await fourth;
    expect(life).toEqual([
      'asked 0',
      'complete 0',
      'shown 0 42',
      'accepted 0 word',
      'accepted 0 whole',
      'ended 0 accepted',
      'asked 1',
      'complete 1',
      'shown 1 7',
      'ended 1 dismissed',
      'asked 2',
      'complete 2',
      'shown 2 1',
      'asked 3',
      'complete 3',
      'ended 2 discarded',
      'shown 3 2'
    ]);
  });

  it('a suggestion typed past ends typed through; typing along it keeps it open', async () => {
    const { client, provider } = setup({ streaming: 'never' });
    const ended: string[] = [];
    provider.lifecycle.ended.connect((_, e) => ended.push(`${e.id} ${e.reason}`));
    const first = provider.fetch(request('x = '), auto);
    await flush();
    client.replies[0].resolve(reply(0, [{ insertText: '42' }]));
    await first;
    // typing its first character: answered from it, still open
    await provider.fetch(request('x = 4'), auto);
    expect(ended).toEqual([]);
    // all of it typed: ended typed through (the next request asks the model)
    void provider.fetch(request('x = 42'), auto);
    await flush();
    expect(ended).toEqual(['0 typed-through']);
    client.replies[1].resolve(reply(1, [{ insertText: ' + 1' }]));
    await flush();
    // something else typed: ended typed through too
    void provider.fetch(request('x = 42 - '), auto);
    await flush();
    expect(ended).toEqual(['0 typed-through', '1 typed-through']);
  });

  it('a partial accept that takes all of a finished suggestion ends it accepted', async () => {
    const { client, provider } = setup({ streaming: 'never' });
    const ended: string[] = [];
    provider.lifecycle.ended.connect((_, e) => ended.push(`${e.id} ${e.reason}`));
    const first = provider.fetch(request('x = '), manual);
    await flush();
    client.replies[0].resolve(reply(0, [{ insertText: '42' }]));
    await first;
    // a word of it: still open
    expect(provider.notePartialAccept('word', '4', { key: '', text: 'x = ', offset: 4 })).toBe(
      false
    );
    expect(ended).toEqual([]);
    // the rest of it: ended accepted, once
    expect(provider.notePartialAccept('line', '2', { key: '', text: 'x = 4', offset: 5 })).toBe(
      true
    );
    expect(ended).toEqual(['0 accepted']);
    expect(provider.lifecycle.open).toBe(false);
  });

  it('a request dismissed before its suggestion shows ends dismissed; nothing open: no end', async () => {
    const { provider } = setup();
    const ended: string[] = [];
    provider.lifecycle.ended.connect((_, e) => ended.push(`${e.id} ${e.reason}`));
    provider.cancelLatest(); // nothing asked
    void provider.fetch(request('x = '), manual);
    await flush();
    provider.cancelLatest();
    provider.cancelLatest(); // ended once
    expect(ended).toEqual(['0 dismissed']);
  });
});
