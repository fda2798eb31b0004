/**
 * Test doubles: a scriptable WebSocket and manual timers.
 */
import { ServerMessage } from '../protocol';
import { CompletionSocket } from '../socket';

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
