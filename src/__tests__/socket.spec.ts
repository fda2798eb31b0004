import { CompletionError, CompletionSocket, SOCKET_PATH } from '../connection/socket';
import { connectedSocket, FakeWebSocket, flush, ManualTimers, requestBody } from './fakes';

function makeSocket(timers = new ManualTimers()) {
  FakeWebSocket.reset();
  const socket = new CompletionSocket({
    url: 'ws://example.invalid/api/codecomplete/inline',
    WebSocket: FakeWebSocket as unknown as typeof WebSocket,
    initialDelay: 100,
    maxDelay: 1000,
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout
  });
  return { socket, timers };
}

/**
 * A socket connected to a server that said hello.
 */
function openSocket() {
  const made = makeSocket();
  const ws = FakeWebSocket.last;
  ws.open();
  return { ...made, ws };
}

/**
 * A streamed request that the server started (its reply with the stream's token came).
 */
function startStream(socket: CompletionSocket, ws: FakeWebSocket, token = 't') {
  const p = socket.request(requestBody({ stream: true }));
  ws.receive({
    type: 'inline_completion',
    reply_to: p.number,
    list: { items: [{ insertText: '', isIncomplete: true, token }] }
  });
  return p;
}

/**
 * The server streams these texts (`done` on each) to request `number`.
 */
function sendChunks(
  ws: FakeWebSocket,
  number: number,
  chunks: [string, boolean][],
  fields: Record<string, unknown>
): void {
  for (const [text, done] of chunks) {
    ws.receive({
      type: 'stream',
      reply_to: number,
      response: { insertText: text, isIncomplete: !done },
      done,
      ...fields
    });
  }
}

describe('CompletionSocket', () => {
  it('builds the URL from the server settings, with the token', () => {
    const socket = new CompletionSocket({
      autoConnect: false,
      serverSettings: {
        wsUrl: 'ws://host:8888/base/',
        token: 'sec ret',
        WebSocket: FakeWebSocket
      } as any
    });
    expect(socket.url).toBe(`ws://host:8888/base/${SOCKET_PATH}?token=sec%20ret`);
    socket.dispose();
  });

  it('reports its state and the hello model', () => {
    const { socket } = makeSocket();
    const states: string[] = [];
    socket.stateChanged.connect((_, s) => states.push(s));
    expect(socket.state).toBe('connecting');
    FakeWebSocket.last.open();
    expect(states).toEqual(['connected']);
    expect(socket.hello?.max_message_bytes).toBe(1000000);
    expect(socket.model?.name).toBe('test-coder');
    socket.dispose();
    expect(states).toEqual(['connected', 'disposed']);
  });

  it('numbers requests in increasing order and sends only protocol fields', () => {
    const { socket } = makeSocket();
    FakeWebSocket.last.open();
    const a = socket.request(requestBody());
    const b = socket.request(requestBody({ prefix: 'x' }));
    expect(a.number).toBe(0);
    expect(b.number).toBe(1);
    const sent = FakeWebSocket.last.sent;
    expect(sent.map(m => m.number)).toEqual([0, 1]);
    expect(Object.keys(sent[0]).sort()).toEqual(
      [
        'type',
        'number',
        'path',
        'language',
        'mime',
        'prefix',
        'suffix',
        'stream',
        'cell_id',
        'trigger',
        'cells_above',
        'cells_below',
        'files'
      ].sort()
    );
    expect(sent[0].type).toBe('inline_completion');
    socket.dispose();
  });

  it('keeps a completion and an edit prediction in flight together, each answered by number', async () => {
    const { socket, ws } = connectedSocket();
    const completion = socket.request(requestBody());
    const edit = socket.requestEdit({
      version: 1,
      path: 'a.ipynb',
      language: 'python',
      mime: null,
      cell_id: 'c1',
      text: 'x = 1\n',
      cursor: 1,
      region: null,
      recent_edits: [],
      trigger: 'auto',
      cells_above: [],
      cells_below: [],
      files: []
    });
    expect(edit.number).not.toBe(completion.number); // one numbering on the socket
    // neither request stops the other: no cancel goes out
    expect(ws.sent.filter(m => m.type === 'cancel')).toEqual([]);
    ws.receive({
      type: 'edit_prediction',
      reply_to: edit.number,
      version: 1,
      edits: [{ start: 0, end: 1, text: 'y' }],
      region: { start: 0, end: 6 },
      model: null,
      notes: [],
      error: null
    });
    ws.receive({
      type: 'inline_completion',
      reply_to: completion.number,
      list: { items: [{ insertText: 'A', isIncomplete: false, token: null }] },
      model: null,
      notes: [],
      error: null
    });
    expect((await edit.reply).edits).toEqual([{ start: 0, end: 1, text: 'y' }]);
    expect((await completion.reply).list.items[0].insertText).toBe('A');
    expect(socket.pendingNumbers).toEqual([]);
    socket.dispose();
  });

  it('resolves a non-stream reply by number, out of order', async () => {
    const { socket, ws } = openSocket();
    const a = socket.request(requestBody());
    const b = socket.request(requestBody());
    ws.receive({
      type: 'inline_completion',
      reply_to: 1,
      list: { items: [{ insertText: 'B', isIncomplete: false, token: null }] },
      model: null,
      notes: [],
      error: null
    });
    ws.receive({
      type: 'inline_completion',
      reply_to: 0,
      list: { items: [{ insertText: 'A', isIncomplete: false, token: null }] },
      model: null,
      notes: [],
      error: null
    });
    expect((await a.reply).list.items[0].insertText).toBe('A');
    expect((await b.reply).list.items[0].insertText).toBe('B');
    expect(socket.pendingNumbers).toEqual([]);
    socket.dispose();
  });

  it('assembles a stream: token reply, then chunks until done', async () => {
    const { socket, ws } = openSocket();
    const p = socket.request(requestBody({ stream: true }));
    ws.receive({
      type: 'inline_completion',
      reply_to: 0,
      list: { items: [{ insertText: '', isIncomplete: true, token: 't0' }] },
      error: null
    });
    // Chunks arriving before anyone reads are kept.
    sendChunks(
      ws,
      0,
      [
        ['\n    ret', false],
        ['\n    return a', false],
        ['\n    return a + b\n', true]
      ],
      { error: null }
    );
    const reply = await p.reply;
    expect(reply.list.items[0].token).toBe('t0');
    const texts: string[] = [];
    for await (const chunk of p.chunks!) {
      texts.push(chunk.response.insertText);
    }
    expect(texts).toEqual(['\n    ret', '\n    return a', '\n    return a + b\n']);
    expect(socket.pendingNumbers).toEqual([]);
    socket.dispose();
  });

  it('asks for protocol 2 when the server speaks it, and rebuilds the text from deltas', async () => {
    const { socket } = makeSocket();
    const ws = FakeWebSocket.last;
    ws.onopen?.({});
    ws.receive({
      type: 'hello',
      protocol: 1,
      protocols: [1, 2],
      model: null,
      max_message_bytes: 1000
    });
    expect(ws.sent).toEqual([{ type: 'hello', protocol: 2 }]);
    expect(socket.protocol).toBe(2);
    const p = startStream(socket, ws, 't0');
    sendChunks(
      ws,
      0,
      [
        ['\n    ret', false],
        ['urn a', false],
        [' + b\n', false],
        ['', true]
      ],
      { delta: true }
    );
    const texts: string[] = [];
    for await (const chunk of p.chunks!) {
      texts.push(chunk.response.insertText);
    }
    expect(texts).toEqual([
      '\n    ret',
      '\n    return a',
      '\n    return a + b\n',
      '\n    return a + b\n'
    ]);
    socket.dispose();
  });

  it('keeps protocol 1 with a server that names no other version', () => {
    const { socket, ws } = openSocket();
    expect(ws.sent).toEqual([]);
    expect(socket.protocol).toBe(1);
    socket.dispose();
  });

  it('does not report a quiet answer to a request it already gave up', () => {
    const { socket, ws } = openSocket();
    const errors: string[] = [];
    socket.unmatchedError.connect((_, e) => errors.push(e.type));
    const p = socket.request(requestBody());
    socket.cancel(p.number);
    ws.receive({
      type: 'error',
      reply_to: p.number,
      error: { type: 'not_running', title: 'Nothing to cancel', message: '' }
    });
    expect(errors).toEqual([]);
    socket.dispose();
  });

  it('delivers chunks to a reader already waiting', async () => {
    const { socket, ws } = openSocket();
    const p = socket.request(requestBody({ stream: true }));
    const texts: string[] = [];
    const reading = (async () => {
      for await (const chunk of p.chunks!) {
        texts.push(chunk.response.insertText);
      }
    })();
    await flush();
    ws.receive({
      type: 'stream',
      reply_to: 0,
      response: { insertText: 'x' },
      done: false
    });
    await flush();
    expect(texts).toEqual(['x']);
    ws.receive({
      type: 'stream',
      reply_to: 0,
      response: { insertText: 'xy' },
      done: true
    });
    await reading;
    expect(texts).toEqual(['x', 'xy']);
    socket.dispose();
  });

  it('rejects a pending fetch with the error reply and keeps the socket usable', async () => {
    const { socket, ws } = openSocket();
    const a = socket.request(requestBody());
    ws.receive({
      type: 'error',
      reply_to: 0,
      error: { type: 'backend_unavailable', title: 'Backend down', message: 'refused' }
    });
    await expect(a.reply).rejects.toBeInstanceOf(CompletionError);
    await a.reply.catch((e: CompletionError) => {
      expect(e.info.type).toBe('backend_unavailable');
      expect(e.number).toBe(0);
    });
    const b = socket.request(requestBody());
    expect(b.number).toBe(1);
    expect(ws.sent.length).toBe(2);
    socket.dispose();
  });

  it('ends a stream with an error (superseded) raised to the reader', async () => {
    const { socket, ws } = openSocket();
    const p = startStream(socket, ws);
    ws.receive({ type: 'stream', reply_to: 0, response: { insertText: 'a' }, done: false });
    ws.receive({
      type: 'error',
      reply_to: 0,
      error: { type: 'superseded', title: 'Superseded', message: '' }
    });
    await p.reply;
    const seen: string[] = [];
    let error: CompletionError | null = null;
    try {
      for await (const chunk of p.chunks!) {
        seen.push(chunk.response.insertText);
      }
    } catch (e) {
      error = e as CompletionError;
    }
    expect(seen).toEqual(['a']);
    expect(error?.info.type).toBe('superseded');
    socket.dispose();
  });

  it('treats an error inside a stream chunk as the end of the request', async () => {
    const { socket, ws } = openSocket();
    const p = startStream(socket, ws);
    ws.receive({
      type: 'stream',
      reply_to: 0,
      response: { insertText: 'a' },
      done: true,
      error: { type: 'timeout', title: 'Timeout', message: 'slow' }
    });
    await expect(
      (async () => {
        for await (const _ of p.chunks!) {
          // nothing
        }
      })()
    ).rejects.toMatchObject({ info: { type: 'timeout' } });
    socket.dispose();
  });

  it('sends cancel and ends the request quietly', async () => {
    const { socket, ws } = openSocket();
    const p = socket.request(requestBody());
    socket.cancel(p.number);
    expect(ws.sent[1]).toEqual({ type: 'cancel', number: 0 });
    await expect(p.reply).rejects.toMatchObject({ info: { type: 'cancelled' } });
    // A late reply is ignored.
    ws.receive({ type: 'inline_completion', reply_to: 0, list: { items: [] } });
    socket.dispose();
  });

  it('signals errors that name no request', () => {
    const { socket, ws } = openSocket();
    const errors: string[] = [];
    socket.unmatchedError.connect((_, e) => errors.push(e.type));
    ws.receive({
      type: 'error',
      reply_to: -1,
      error: { type: 'invalid_request', title: 'Bad', message: 'no JSON' }
    });
    expect(errors).toEqual(['invalid_request']);
    socket.dispose();
  });

  it('fails pending requests when the server goes away and reconnects with backoff', async () => {
    const { socket, timers } = makeSocket();
    FakeWebSocket.last.open();
    const pending = socket.request(requestBody());
    FakeWebSocket.last.drop();
    await expect(pending.reply).rejects.toMatchObject({ info: { type: 'disconnected' } });
    expect(socket.state).toBe('disconnected');

    // Requests while down fail at once, without sending.
    const whileDown = socket.request(requestBody());
    await expect(whileDown.reply).rejects.toMatchObject({ info: { type: 'disconnected' } });

    // Each failed attempt doubles the delay, up to the maximum.
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      delays.push(...timers.runAll());
      expect(socket.state).toBe('connecting');
      FakeWebSocket.last.drop();
    }
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(FakeWebSocket.instances.length).toBe(7);

    // The server is back: the next attempt connects and the delay resets.
    timers.runAll();
    FakeWebSocket.last.open();
    expect(socket.state).toBe('connected');
    expect(socket.failedAttempts).toBe(0);
    const again = socket.request(requestBody());
    // Numbers keep increasing across connections.
    expect(again.number).toBe(2);
    FakeWebSocket.last.drop();
    expect(timers.timers.map(t => t.ms)).toEqual([100]);
    socket.dispose();
    expect(timers.timers).toEqual([]);
  });

  it('connect() skips the wait for a planned reconnection', () => {
    const { socket, timers } = makeSocket();
    FakeWebSocket.last.drop();
    expect(timers.timers.length).toBe(1);
    socket.connect();
    expect(timers.timers.length).toBe(0);
    expect(socket.state).toBe('connecting');
    expect(FakeWebSocket.instances.length).toBe(2);
    socket.dispose();
  });
});

describe('CompletionSocket: back soon after a Jupyter restart', () => {
  /**
   * The server goes away at 0 and answers again at `backAt` ms; each websocket the client opens
   * is answered (opened while the server is up, dropped while it is down). The time it connects.
   */
  async function reconnectTime(
    backAt: number,
    options: (up: () => boolean) => Partial<CompletionSocket.IOptions>
  ): Promise<number> {
    jest.useFakeTimers();
    try {
      FakeWebSocket.reset();
      let now = 0;
      const up = () => now >= backAt;
      const socket = new CompletionSocket({
        url: 'ws://example.invalid/api/codecomplete/inline',
        WebSocket: FakeWebSocket as unknown as typeof WebSocket,
        ...options(up)
      });
      FakeWebSocket.last.open();
      FakeWebSocket.last.drop(); // the restart begins
      let seen = 1;
      let connectedAt = -1;
      for (now = 0; now <= 40000 && connectedAt < 0; now += 100) {
        await jest.advanceTimersByTimeAsync(100);
        while (seen < FakeWebSocket.instances.length) {
          const ws = FakeWebSocket.instances[seen++];
          if (up()) {
            ws.open();
          } else {
            ws.drop();
          }
        }
        if (socket.state === 'connected') {
          connectedAt = now;
        }
      }
      socket.dispose();
      return connectedAt - backAt;
    } finally {
      jest.useRealTimers();
    }
  }

  it('without a probe the backoff keeps it waiting many seconds (the old ~19 s)', async () => {
    // back at 10 s: attempts at 0.5, 1.5, 3.5, 7.5 s fail, the next is at 15.5 s
    expect(await reconnectTime(10000, () => ({ probe: null }))).toBeGreaterThan(5000);
  });

  it('with the probe it connects within 1–2 s of the server answering again', async () => {
    let probes = 0;
    const late = await reconnectTime(10000, up => ({
      probe: () => {
        probes++;
        return Promise.resolve(up());
      }
    }));
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThanOrEqual(2000);
    expect(probes).toBeGreaterThan(5); // about one a second while down
  });

  it('asks nothing while the page is hidden, and a server that answers HTTP is left to the backoff', async () => {
    let probes = 0;
    const hidden = await reconnectTime(10000, () => ({
      probe: () => {
        probes++;
        return Promise.resolve(true);
      },
      isVisible: () => false
    }));
    expect(probes).toBe(0);
    expect(hidden).toBeGreaterThan(5000);
    // the probe always answers (HTTP up) but the websocket fails: no reconnection every second
    FakeWebSocket.reset();
    const timers = new ManualTimers();
    const socket = new CompletionSocket({
      url: 'ws://example.invalid/api/codecomplete/inline',
      WebSocket: FakeWebSocket as unknown as typeof WebSocket,
      probe: () => Promise.resolve(true),
      setTimeout: timers.setTimeout,
      clearTimeout: timers.clearTimeout
    });
    FakeWebSocket.last.drop();
    const probeTimer = timers.timers.find(t => t.ms === 1000)!;
    timers.clearTimeout(probeTimer.id);
    probeTimer.f();
    await flush();
    expect(FakeWebSocket.instances.length).toBe(1); // not connected again by the probe
    socket.dispose();
    expect(timers.timers).toEqual([]);
  });
});
