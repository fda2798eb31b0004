import { InlineCompletionTriggerKind } from '@jupyterlab/completer';

import { IRequestBody } from '../connection/protocol';
import { CodeCompleteProvider, ICompletionClient } from '../completion/provider';
import { normalizeSettings, ISettings } from '../settings';
import { CompletionSocket } from '../connection/socket';
import { WarmTrigger } from '../completion/warm';
import { FakeWebSocket, ManualTimers, requestBody } from './fakes';

const body = (): IRequestBody => requestBody({ stream: true });

function connected(hello: Record<string, unknown>): {
  socket: CompletionSocket;
  ws: FakeWebSocket;
} {
  FakeWebSocket.reset();
  const timers = new ManualTimers();
  const socket = new CompletionSocket({
    url: 'ws://example.invalid/api/codecomplete/inline',
    WebSocket: FakeWebSocket as unknown as typeof WebSocket,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout
  });
  const ws = FakeWebSocket.last;
  ws.onopen?.({});
  ws.receive({ type: 'hello', protocol: 1, model: null, max_message_bytes: 1000, ...hello });
  ws.sent = [];
  return { socket, ws };
}

describe('warm-ups on the socket', () => {
  it('asks for protocol 3 and sends a warm-up when the server offers it', () => {
    const { socket, ws } = connected({ protocols: [1, 2, 3], warm: true });
    expect(socket.protocol).toBe(3);
    expect(socket.warm(body())).toBe(true);
    expect(ws.sent).toEqual([{ ...body(), type: 'warm', number: 0 }]);
    socket.dispose();
  });

  it('sends none to a server that does not warm this model, or speaks an older protocol', () => {
    const off = connected({ protocols: [1, 2, 3], warm: false });
    expect(off.socket.warm(body())).toBe(false);
    expect(off.ws.sent).toEqual([]);
    off.socket.dispose();
    const old = connected({ protocols: [1, 2] });
    expect(old.socket.warm(body())).toBe(false);
    expect(old.ws.sent).toEqual([]);
    old.socket.dispose();
  });
});

describe('the provider sends the context of the next request', () => {
  function setup(overrides: Partial<ISettings> = {}) {
    const sent: IRequestBody[] = [];
    const client: ICompletionClient = {
      request: () => {
        throw new Error('no request expected');
      },
      cancel: () => undefined,
      hello: { max_message_bytes: 100000 },
      warm: b => {
        sent.push(b);
        return true;
      }
    };
    const settings = normalizeSettings(overrides);
    const provider = new CodeCompleteProvider({ client, settings: () => settings });
    return { provider, sent };
  }
  const context = { widget: {} as any, triggerKind: InlineCompletionTriggerKind.Automatic };
  const request = { text: 'import os\n\nx = ', offset: 15, mimeType: 'text/x-ipython' };

  it('builds the same body a request would carry', () => {
    const { provider, sent } = setup();
    expect(provider.warm(request, context)).toBe(true);
    expect(sent).toEqual([
      provider.buildRequest(request, context, { language: 'python', stream: true, manual: false })
    ]);
  });

  it('sends nothing when warm-ups, automatic suggestions or the language are off', () => {
    for (const off of [
      { warmModel: false },
      { trigger: 'manual' as const },
      { disabledLanguages: ['python'] },
      { enabled: false }
    ]) {
      const { provider, sent } = setup(off);
      expect(provider.warm(request, context)).toBe(false);
      expect(sent).toEqual([]);
    }
  });
});

describe('WarmTrigger', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function view(doc: unknown = {}, head = 3) {
    return { hasFocus: true, state: { doc, selection: { main: { head } } } } as any;
  }
  function update(v: any, kind: { focus?: boolean; doc?: boolean }) {
    return { view: v, focusChanged: !!kind.focus, docChanged: !!kind.doc } as any;
  }

  it('warms soon after the focus arrives, once per document and cursor', () => {
    const warmed: unknown[] = [];
    const trigger = new WarmTrigger({ warm: v => (warmed.push(v), true) });
    const v = view();
    trigger.onUpdate(update(v, { focus: true }));
    jest.advanceTimersByTime(99);
    expect(warmed).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(warmed).toEqual([v]);
    trigger.onUpdate(update(v, { focus: true })); // back into the same cell, nothing changed
    jest.advanceTimersByTime(200);
    expect(warmed).toHaveLength(1);
  });

  it('warms after a pause in typing, not while the user types', () => {
    const warmed: unknown[] = [];
    const trigger = new WarmTrigger({ warm: v => (warmed.push(v), true), pause: () => 1000 });
    let v = view({}, 1);
    for (let i = 0; i < 5; i++) {
      v = view({}, i + 2); // each key: a new document and cursor
      trigger.onUpdate(update(v, { doc: true }));
      jest.advanceTimersByTime(300);
    }
    expect(warmed).toEqual([]);
    jest.advanceTimersByTime(700);
    expect(warmed).toEqual([v]);
  });

  it('sends nothing once the editor lost the focus or moved on', () => {
    const warmed: unknown[] = [];
    const trigger = new WarmTrigger({ warm: v => (warmed.push(v), true) });
    const v = view();
    trigger.onUpdate(update(v, { focus: true }));
    v.hasFocus = false;
    trigger.onUpdate(update(v, { focus: true }));
    jest.advanceTimersByTime(500);
    const w = view();
    trigger.onUpdate(update(w, { focus: true }));
    w.state = { doc: {}, selection: { main: { head: 9 } } }; // typed before the timer ran
    jest.advanceTimersByTime(500);
    expect(warmed).toEqual([]);
  });
});
