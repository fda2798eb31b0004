import { InlineCompletionTriggerKind } from '@jupyterlab/completer';

import {
  acceptedState,
  isAcceptedState,
  mayPrefetch,
  Prefetcher,
  shouldPrefetch
} from '../completion/prefetch';
import { CodeCompleteProvider } from '../completion/provider';
import { IInlineCompletionReply } from '../connection/protocol';
import { DEFAULT_SETTINGS, ISettings, normalizeSettings } from '../settings';
import { CompletionError } from '../connection/socket';
import { Suggestion } from '../completion/typing';
import { FakeClient, flush, streamChunk } from './fakes';

const auto = { widget: {} as any, triggerKind: InlineCompletionTriggerKind.Automatic };
const manual = { widget: {} as any, triggerKind: InlineCompletionTriggerKind.Invoke };
const req = (text: string, offset = text.length) => ({ text, offset, mimeType: 'text/x-ipython' });

function started(number: number): IInlineCompletionReply {
  return {
    type: 'inline_completion',
    reply_to: number,
    list: { items: [{ insertText: '', isIncomplete: true, token: String(number) }] },
    error: null
  };
}

function setup(overrides: Partial<ISettings> = {}) {
  const client = new FakeClient({ max_message_bytes: 1000000, warm: true });
  const settings = normalizeSettings({ ...DEFAULT_SETTINGS, ...overrides });
  const provider = new CodeCompleteProvider({
    client,
    settings: () => settings,
    prefetchDelay: () => 0
  });
  return { client, provider };
}

/** A streamed suggestion for `text`, answered with `suggestion`, read to its end. */
async function shown(
  client: FakeClient,
  provider: CodeCompleteProvider,
  text: string,
  suggestion: string
) {
  const result = provider.fetch(req(text), auto);
  await flush();
  const n = client.requests.length - 1;
  client.replies[n].resolve(started(n));
  await result;
  client.replies[n].chunks!.push(streamChunk(n, suggestion, true));
  await flush();
  return n;
}

describe('the suggestion after an accept', () => {
  const suggestion = (text: string, done = true) =>
    new Suggestion({ key: 'k', before: 'x = ', after: '\n', number: 1, text, done });

  it('knows the editor state accepting puts the cursor in', () => {
    const s = suggestion('compute(a)');
    expect(acceptedState(s)).toEqual({ key: 'k', text: 'x = compute(a)\n', offset: 14 });
    expect(
      isAcceptedState({ key: 'k', text: 'x = compute(a)\n', offset: 14 }, acceptedState(s))
    ).toBe(true);
    expect(
      isAcceptedState({ key: 'k', text: 'x = compute(a)\n', offset: 13 }, acceptedState(s))
    ).toBe(false);
  });

  it('prefetches only after a finished, non-blank suggestion, automatic trigger, setting on', () => {
    const on = normalizeSettings({});
    expect(shouldPrefetch(suggestion('compute(a)'), on)).toBe(true);
    expect(shouldPrefetch(suggestion('compute(a)', false), on)).toBe(false);
    expect(shouldPrefetch(suggestion('  '), on)).toBe(false);
    expect(shouldPrefetch(suggestion('compute(a)'), normalizeSettings({ trigger: 'manual' }))).toBe(
      false
    );
    expect(
      shouldPrefetch(suggestion('compute(a)'), normalizeSettings({ suggestAfterAccept: false }))
    ).toBe(false);
  });

  it('keeps one prefetch: a newer one cancels the older', () => {
    const sent: Suggestion[] = [];
    const cancelled: number[] = [];
    const prefetcher = new Prefetcher({
      send: state => {
        const s = new Suggestion({
          key: state.key,
          before: state.text.slice(0, state.offset),
          after: state.text.slice(state.offset),
          number: sent.length + 10
        });
        sent.push(s);
        return s;
      },
      cancel: n => cancelled.push(n)
    });
    prefetcher.start(suggestion('a'));
    prefetcher.start(suggestion('b'));
    expect(cancelled).toEqual([10]);
    expect(prefetcher.pending).toBe(sent[1]);
    expect(prefetcher.take({ key: 'k', text: 'x = a\n', offset: 5 })).toBeNull();
    expect(prefetcher.take({ key: 'k', text: 'x = b\n', offset: 5 })).toBe(sent[1]);
    expect(prefetcher.take({ key: 'k', text: 'x = b\n', offset: 5 })).toBeNull(); // taken once
  });

  it('asks, while the suggestion is shown, for what follows accepting it; Tab is answered from it', async () => {
    const { client, provider } = setup();
    await shown(client, provider, 'def area(r):\n    ', 'return 3.14 * r * r');
    // the prefetch: the same cursor, the suggestion accepted
    expect(client.requests).toHaveLength(2);
    expect(client.requests[1]).toMatchObject({
      prefix: 'def area(r):\n    return 3.14 * r * r',
      suffix: '',
      trigger: 'auto',
      stream: true
    });
    client.replies[1].resolve(started(1));
    await flush();
    client.replies[1].chunks!.push(streamChunk(1, '\n\n\ndef volume(r, h):', true));
    await flush();
    // the user pressed Tab: the request right after is answered without the model
    const after = await provider.fetch(req('def area(r):\n    return 3.14 * r * r'), auto);
    expect(after.items).toEqual([{ insertText: '\n\n\ndef volume(r, h):', isIncomplete: false }]);
    expect(client.requests).toHaveLength(2);
  });

  it('a prefetch still streaming answers at once and keeps streaming', async () => {
    const { client, provider } = setup();
    await shown(client, provider, 'y = ', 'load(path)');
    client.replies[1].resolve(started(1));
    await flush();
    const after = await provider.fetch(req('y = load(path)'), auto);
    expect(after.items[0]).toMatchObject({ insertText: '', isIncomplete: true });
    expect(client.requests).toHaveLength(2);
  });

  it('typing something else drops the prefetch: a new request, the old one superseded', async () => {
    const { client, provider } = setup();
    await shown(client, provider, 'y = ', 'load(path)');
    void provider.fetch(req('y = s'), auto);
    await flush();
    expect(client.requests).toHaveLength(3);
    expect(client.requests[2].prefix).toBe('y = s');
    // the server supersedes it; a later accept state is not answered from the dropped slot
    client.replies[1].reject(
      new CompletionError({ type: 'superseded', title: 'Request superseded', message: '' }, 1)
    );
    await flush();
    void provider.fetch(req('y = load(path)'), auto);
    await flush();
    expect(client.requests).toHaveLength(4);
  });

  it('a failed prefetch is never shown', async () => {
    const { client, provider } = setup();
    await shown(client, provider, 'y = ', 'load(path)');
    client.replies[1].reject(
      new CompletionError({ type: 'backend_error', title: 'Model error', message: 'boom' }, 1)
    );
    await flush();
    void provider.fetch(req('y = load(path)'), auto);
    await flush();
    expect(client.requests).toHaveLength(3); // asked the model again
  });

  it('no prefetch when the setting is off, and none for an explicit request', async () => {
    const off = setup({ suggestAfterAccept: false });
    await shown(off.client, off.provider, 'y = ', 'load(path)');
    expect(off.client.requests).toHaveLength(1);
    const { client, provider } = setup();
    await shown(client, provider, 'y = ', 'load(path)');
    const m = provider.fetch(req('y = load(path)'), manual); // Alt+\: always a new answer
    await flush();
    expect(client.requests).toHaveLength(3);
    void m;
  });

  it('no prefetch where the server would not warm the model (a paid API)', async () => {
    const { client, provider } = setup();
    client.hello = { max_message_bytes: 1000000, warm: false };
    await shown(client, provider, 'y = ', 'load(path)');
    expect(client.requests).toHaveLength(1);
  });

  it("follows the model of the request's route: a paid chat model for Markdown gets none", () => {
    const hello = { warm: true, warm_routes: { Markdown: false, 'text/x-sql': true } };
    expect(mayPrefetch(hello, 'text/x-ipython', 'python')).toBe(true); // the default model
    expect(mayPrefetch(hello, 'text/x-ipythongfm', 'markdown')).toBe(false); // by language
    expect(mayPrefetch({ ...hello, warm: false }, 'text/x-sql', 'sql')).toBe(true); // by MIME type
    expect(mayPrefetch({ warm: false }, 'text/x-ipython', 'python')).toBe(false);
    expect(mayPrefetch(null, 'text/x-ipython', 'python')).toBe(false);
  });

  it('marks a prefetch as one when the server can tell, and none for a route it does not warm', async () => {
    const { client, provider } = setup();
    client.hello = { max_message_bytes: 1000000, warm: true, features: ['prefetch'] };
    await shown(client, provider, 'y = ', 'load(path)');
    expect(client.requests).toHaveLength(2);
    expect(client.requests[0].prefetch).toBeUndefined();
    expect(client.requests[1].prefetch).toBe(true);
    const paid = setup();
    paid.client.hello = {
      max_message_bytes: 1000000,
      warm: true,
      warm_routes: { python: false },
      features: ['prefetch']
    };
    await shown(paid.client, paid.provider, 'y = ', 'load(path)');
    expect(paid.client.requests).toHaveLength(1);
  });

  it('waits for the user to pause on the suggestion; typing on sends no prefetch', async () => {
    jest.useFakeTimers();
    try {
      const sent: number[] = [];
      const prefetcher = new Prefetcher({
        send: () => {
          sent.push(1);
          return null;
        },
        cancel: () => undefined,
        delay: () => 150
      });
      prefetcher.start(suggestion('a'));
      jest.advanceTimersByTime(100);
      prefetcher.clear(false); // the next keystroke's request
      jest.advanceTimersByTime(200);
      expect(sent).toEqual([]);
      prefetcher.start(suggestion('a'));
      jest.advanceTimersByTime(150);
      expect(sent).toEqual([1]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('dismissing the suggestion cancels the prefetch', async () => {
    const { client, provider } = setup();
    await shown(client, provider, 'y = ', 'load(path)');
    provider.cancelLatest();
    expect(client.cancelled).toContain(1);
  });
});
