/**
 * Test doubles: a scriptable WebSocket, a scriptable completion client, manual timers, and the
 * request body and stream chunks they carry.
 */
import {
  IInlineCompletionReply,
  IRequestBody,
  IStreamChunk,
  ServerMessage
} from '../connection/protocol';
import { ICompletionClient } from '../completion/provider';
import { ChunkQueue, CompletionSocket } from '../connection/socket';

export class FakeWebSocket {
  static instances: FakeWebSocket[] = [];
  static reset(): void {
    FakeWebSocket.instances = [];
  }
  static get last(): FakeWebSocket {
    return FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
  }

  onopen: ((ev: any) => void) | null = null;
  onmessage: ((ev: any) => void) | null = null;
  onclose: ((ev: any) => void) | null = null;
  onerror: ((ev: any) => void) | null = null;
  sent: any[] = [];
  closed = false;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  send(data: string): void {
    if (this.closed) {
      throw new Error('closed');
    }
    this.sent.push(JSON.parse(data));
  }

  close(): void {
    this.closed = true;
  }

  // Server side.
  open(hello = true): void {
    this.onopen?.({});
    if (hello) {
      this.receive({
        type: 'hello',
        protocol: 1,
        model: { name: 'test-coder', backend: 'openai', demo: false },
        max_message_bytes: 1000000
      });
    }
  }
  receive(message: ServerMessage | Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(): void {
    this.closed = true;
    this.onerror?.({});
    this.onclose?.({});
  }
}

export class ManualTimers {
  timers: { f: () => void; ms: number; id: number }[] = [];
  private _id = 0;
  setTimeout = (f: () => void, ms: number): number => {
    const id = ++this._id;
    this.timers.push({ f, ms, id });
    return id;
  };
  clearTimeout = (id: number): void => {
    this.timers = this.timers.filter(t => t.id !== id);
  };
  /** Run the pending timers, returning their delays. */
  runAll(): number[] {
    const due = this.timers;
    this.timers = [];
    due.forEach(t => t.f());
    return due.map(t => t.ms);
  }
}

/** Let pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
  }
}

/**
 * A completion client whose answers the test scripts (the part of the socket the provider uses).
 */
export class FakeClient implements ICompletionClient {
  constructor(
    public hello: {
      max_message_bytes: number;
      warm?: boolean;
      warm_routes?: Record<string, boolean>;
      features?: string[];
    } | null = {
      max_message_bytes: 1000000
    }
  ) {}

  requests: IRequestBody[] = [];
  cancelled: number[] = [];
  replies: {
    resolve: (r: IInlineCompletionReply) => void;
    reject: (e: Error) => void;
    chunks: ChunkQueue | null;
  }[] = [];

  request(body: IRequestBody) {
    const number = this.requests.length;
    this.requests.push(body);
    let resolve!: (r: IInlineCompletionReply) => void;
    let reject!: (e: Error) => void;
    const reply = new Promise<IInlineCompletionReply>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const chunks = body.stream ? new ChunkQueue() : null;
    this.replies.push({ resolve, reject, chunks });
    return { number, reply, chunks };
  }
  cancel(number: number): void {
    this.cancelled.push(number);
  }
}

/**
 * A request body (a Python cell, automatic, not streamed unless overridden).
 */
export function requestBody(overrides: Partial<IRequestBody> = {}): IRequestBody {
  return {
    path: 'a.py',
    language: 'python',
    mime: 'text/x-python',
    prefix: 'def add(a, b):',
    suffix: '',
    stream: false,
    cell_id: null,
    trigger: 'auto',
    cells_above: [],
    cells_below: [],
    files: [],
    ...overrides
  };
}

/**
 * A stream chunk with the whole text so far.
 */
export function streamChunk(number: number, text: string, done: boolean): IStreamChunk {
  return {
    type: 'stream',
    reply_to: number,
    response: { insertText: text, isIncomplete: !done },
    done
  };
}

/**
 * A socket connected to a fake server whose hello lists `features`.
 */
export function connectedSocket(features: string[] = ['edit_prediction']): {
  socket: CompletionSocket;
  ws: FakeWebSocket;
} {
  FakeWebSocket.reset();
  const socket = new CompletionSocket({
    url: 'ws://example.invalid/api/codecomplete/inline',
    WebSocket: FakeWebSocket as unknown as typeof WebSocket
  });
  const ws = FakeWebSocket.last;
  ws.onopen?.({});
  ws.receive({ type: 'hello', protocol: 1, model: null, max_message_bytes: 1000000, features });
  return { socket, ws };
}
