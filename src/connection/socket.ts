/**
 * The websocket client of `api/codecomplete/inline`: request numbering, the map of
 * pending requests, stream chunk queues, and reconnection with exponential backoff.
 *
 * While the socket is down and the page is visible, a cheap HTTP probe asks every second whether
 * the server answers again: once it went away and answers again (Jupyter restarted), the socket
 * reconnects at once instead of waiting out the backoff (which grows to 15 s).
 *
 * Completions and edit predictions share one numbering (a number is unique on the socket); the
 * server supersedes a request only with a newer one of its own kind, so an automatic edit
 * prediction and the completion typed meanwhile are both answered. Each caller stops its own
 * older request (`cancel`), never the other kind's.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { PromiseDelegate } from '@lumino/coreutils';
import { ISignal, Signal } from '@lumino/signaling';

import {
  ICancelRequest,
  IEditPredictionReply,
  IEditPredictionRequest,
  IEditRequestBody,
  IErrorInfo,
  IHelloMessage,
  IInlineCompletionReply,
  IInlineCompletionRequest,
  IRequestBody,
  IStreamChunk,
  IServingModel,
  IUsageEvent,
  IUsageMessage,
  IWarmRequest,
  isQuietError,
  PROTOCOL_VERSION,
  ServerMessage
} from './protocol';
import type { ICompletionConnection } from '../tokens';

/**
 * The path of the websocket, relative to the server's base URL.
 */
export const SOCKET_PATH = 'api/codecomplete/inline';

/**
 * An error carried by a request: a server error reply, or the connection going away.
 */
export class CompletionError extends Error {
  constructor(
    readonly info: IErrorInfo,
    readonly number: number
  ) {
    super(info.message || info.title);
    this.name = 'CompletionError';
  }
}

/**
 * A queue of stream chunks for one request, consumed once as an async iterable.
 */
export class ChunkQueue implements AsyncIterable<IStreamChunk> {
  /**
   * Add a chunk; a chunk with `done` ends the queue.
   */
  push(chunk: IStreamChunk): void {
    if (this._ended) {
      return;
    }
    this._items.push(chunk);
    if (chunk.done) {
      this._ended = true;
    }
    this._wake();
  }

  /**
   * End the queue with an error, raised after the chunks already queued.
   */
  fail(error: Error): void {
    if (this._ended) {
      return;
    }
    this._error = error;
    this._ended = true;
    this._wake();
  }

  /**
   * Whether no more chunks will come.
   */
  get ended(): boolean {
    return this._ended;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<IStreamChunk> {
    for (;;) {
      const next = this._items.shift();
      if (next) {
        yield next;
        if (next.done) {
          return;
        }
        continue;
      }
      if (this._error) {
        throw this._error;
      }
      if (this._ended) {
        return;
      }
      this._waiter = new PromiseDelegate<void>();
      await this._waiter.promise;
    }
  }

  private _wake(): void {
    const waiter = this._waiter;
    this._waiter = null;
    waiter?.resolve();
  }

  private _items: IStreamChunk[] = [];
  private _ended = false;
  private _error: Error | null = null;
  private _waiter: PromiseDelegate<void> | null = null;
}

/**
 * The websocket client. One per browser tab.
 */
export class CompletionSocket implements ICompletionConnection {
  constructor(options: CompletionSocket.IOptions = {}) {
    this._serverSettings = options.serverSettings ?? ServerConnection.makeSettings();
    this._WebSocket = options.WebSocket ?? this._serverSettings.WebSocket;
    this._url = options.url ?? null;
    this._initialDelay = options.initialDelay ?? 500;
    this._maxDelay = options.maxDelay ?? 15000;
    this._factor = options.factor ?? 2;
    this._setTimeout = options.setTimeout ?? ((f, ms) => setTimeout(f, ms));
    this._clearTimeout = options.clearTimeout ?? (h => clearTimeout(h));
    this._probe =
      options.probe !== undefined
        ? options.probe
        : this._url
          ? null // a URL of its own: no server settings to probe with
          : () => Private.serverAnswers(this._serverSettings);
    this._probeInterval = options.probeInterval ?? 1000;
    this._isVisible =
      options.isVisible ??
      (() => typeof document === 'undefined' || document.visibilityState !== 'hidden');
    if (options.autoConnect ?? true) {
      this.connect();
    }
  }

  /**
   * The connection state.
   */
  get state(): CompletionSocket.State {
    return this._state;
  }

  /**
   * Emitted when the connection state changes.
   */
  get stateChanged(): ISignal<this, CompletionSocket.State> {
    return this._stateChanged;
  }

  /**
   * The server's hello message on the current connection, if it came.
   */
  get hello(): IHelloMessage | null {
    return this._hello;
  }

  /**
   * The model that served the last answer, else the one the hello named.
   */
  get model(): IServingModel | null {
    return this._model;
  }

  /**
   * Emitted when the serving model becomes known or changes.
   */
  get modelChanged(): ISignal<this, IServingModel | null> {
    return this._modelChanged;
  }

  /**
   * Emitted for an error reply that names no pending request (`reply_to` -1 or unknown).
   */
  get unmatchedError(): ISignal<this, IErrorInfo> {
    return this._unmatchedError;
  }

  /**
   * How many failed connection attempts in a row (0 when connected).
   */
  get failedAttempts(): number {
    return this._failedAttempts;
  }

  /**
   * The delay before the next reconnection attempt, in milliseconds (null when none is planned).
   */
  get reconnectDelay(): number | null {
    return this._reconnectDelay;
  }

  /**
   * The numbers of the requests still waiting for an answer or stream chunks.
   */
  get pendingNumbers(): number[] {
    return [...this._pending.keys()];
  }

  /**
   * The websocket URL, with the token when the server settings carry one.
   */
  get url(): string {
    if (this._url) {
      return this._url;
    }
    let url = URLExt.join(this._serverSettings.wsUrl, SOCKET_PATH);
    const token = this._serverSettings.token;
    if (token) {
      url += `?token=${encodeURIComponent(token)}`;
    }
    return url;
  }

  get isDisposed(): boolean {
    return this._state === 'disposed';
  }

  /**
   * Open the connection now (also cancels a planned reconnection).
   */
  connect(): void {
    if (this._state === 'disposed') {
      return;
    }
    this._cancelReconnect();
    this._stopProbing();
    if (this._ws) {
      return;
    }
    this._reconnectDelay = null;
    this._setState('connecting');
    let ws: WebSocket;
    try {
      ws = new this._WebSocket(this.url);
    } catch (reason) {
      console.warn('jupyter-codecomplete: cannot open the websocket', reason);
      this._onClosed(null);
      return;
    }
    this._ws = ws;
    ws.onopen = () => {
      if (this._ws !== ws) {
        return;
      }
      this._failedAttempts = 0;
      this._sawServerDown = false;
      this._setState('connected');
    };
    ws.onmessage = (event: MessageEvent) => {
      if (this._ws !== ws) {
        return;
      }
      this._onMessage(event.data);
    };
    ws.onclose = () => {
      this._onClosed(ws);
    };
    ws.onerror = () => {
      // `onclose` follows and does the work.
    };
  }

  /**
   * Send a request; the socket gives it the next number.
   *
   * The reply promise rejects with a `CompletionError` for an error reply, a superseded
   * or cancelled request, or a lost connection. For a streamed request `chunks` yields
   * the stream chunks until one is `done`.
   */
  /**
   * Send the context the next request will carry ahead, so the model server caches its prompt
   * (protocol 3, only when the server's hello offers it). Nothing waits for the answer. Returns
   * whether it was sent.
   */
  warm(body: IRequestBody): boolean {
    if (this._state !== 'connected' || this._protocol < 3 || !this._hello?.warm) {
      return false;
    }
    return this._send({ ...body, type: 'warm', number: this._counter++ }) === null;
  }

  request(body: IRequestBody): CompletionSocket.IPendingRequest {
    const number = this._counter++;
    const reply = new PromiseDelegate<IInlineCompletionReply>();
    // Avoid unhandled rejections when the caller only reads the chunks.
    reply.promise.catch(() => undefined);
    const entry: Private.IEntry = {
      number,
      reply,
      replied: false,
      chunks: body.stream ? new ChunkQueue() : null,
      text: ''
    };
    this._pending.set(number, entry);
    const failed = this._send({ type: 'inline_completion', number, ...body });
    if (failed !== null) {
      this._fail(entry, { type: 'disconnected', title: 'Not connected', message: failed });
    }
    return {
      number,
      reply: reply.promise,
      chunks: entry.chunks
    };
  }

  /**
   * Send usage events; false while not connected (the caller keeps them). A server that does
   * not record usage (its hello says so) gets nothing: the events are dropped, true.
   */
  sendUsage(events: IUsageEvent[]): boolean {
    if (this._state !== 'connected' || !this._hello) {
      return false;
    }
    if (!this._hello.usage || !events.length) {
      return true;
    }
    return this._send({ type: 'usage', events }) === null;
  }

  /**
   * Send an edit prediction request (only when the hello lists the `edit_prediction` feature);
   * the reply rejects with a `CompletionError` as `request`'s does.
   */
  requestEdit(body: IEditRequestBody): CompletionSocket.IPendingEdit {
    const number = this._counter++;
    const reply = new PromiseDelegate<IEditPredictionReply>();
    reply.promise.catch(() => undefined);
    const features = this._hello?.features ?? [];
    const fail = (type: string, title: string, message: string): void =>
      reply.reject(new CompletionError({ type, title, message }, number));
    if (this._state === 'connected' && this._ws && !features.includes('edit_prediction')) {
      fail('not_supported', 'No edit predictions', 'The server does not offer edit predictions.');
    } else {
      this._edits.set(number, reply);
      const failed = this._send({ type: 'edit_prediction', number, ...body });
      if (failed !== null) {
        this._edits.delete(number);
        fail('disconnected', 'Not connected', failed);
      }
    }
    return { number, reply: reply.promise };
  }

  /**
   * Ask the server to stop a request; its waiters end with a `cancelled` error.
   */
  cancel(number: number): void {
    const edit = this._edits.get(number);
    const entry = this._pending.get(number);
    if (!edit && !entry) {
      return;
    }
    // Not sent: the close handler fails the request.
    this._send({ type: 'cancel', number });
    if (edit) {
      this._edits.delete(number);
      edit.reject(
        new CompletionError({ type: 'cancelled', title: 'Cancelled', message: '' }, number)
      );
      return;
    }
    this._fail(entry!, {
      type: 'cancelled',
      title: 'Cancelled',
      message: 'The request was cancelled.'
    });
  }

  dispose(): void {
    if (this._state === 'disposed') {
      return;
    }
    this._cancelReconnect();
    this._stopProbing();
    const ws = this._ws;
    this._ws = null;
    this._failAll({
      type: 'disconnected',
      title: 'Closed',
      message: 'The completion connection was closed.'
    });
    this._setState('disposed');
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      try {
        ws.close();
      } catch {
        // ignore
      }
    }
    Signal.clearData(this);
  }

  private _onMessage(data: unknown): void {
    let message: ServerMessage;
    try {
      message = JSON.parse(String(data)) as ServerMessage;
    } catch {
      console.warn('jupyter-codecomplete: a message that is not JSON');
      return;
    }
    switch (message.type) {
      case 'hello':
        this._hello = message;
        this._setModel(message.model ?? null);
        this._negotiate(message);
        break;
      case 'inline_completion':
        this._onReply(message);
        break;
      case 'stream':
        this._onChunk(message);
        break;
      case 'edit_prediction':
        this._onEditReply(message);
        break;
      case 'error':
        this._onError(message.reply_to, message.error);
        break;
      case 'warm':
        break; // nothing waits for a warm-up's answer
      default:
        break;
    }
  }

  /**
   * Drop the planned reconnection, if any.
   */
  private _cancelReconnect(): void {
    if (this._reconnectTimer !== null) {
      this._clearTimeout(this._reconnectTimer);
      this._reconnectTimer = null;
    }
  }

  /**
   * While down: ask the server every `probeInterval` ms (only while the page is visible) and
   * connect at once when it answers again after it was seen gone. A server that answers HTTP while
   * the websocket fails is left to the backoff (no reconnection every second).
   */
  private _startProbing(): void {
    if (this._probe === null || this._probeTimer !== null) {
      return;
    }
    this._probeTimer = this._setTimeout(() => {
      this._probeTimer = null;
      void this._probeOnce();
    }, this._probeInterval);
  }

  private async _probeOnce(): Promise<void> {
    if (this._state !== 'disconnected' || this._probe === null) {
      return;
    }
    if (this._isVisible()) {
      let answers: boolean;
      try {
        answers = await this._probe();
      } catch {
        answers = false;
      }
      if (this._state !== 'disconnected') {
        return; // connected (or disposed) meanwhile
      }
      if (!answers) {
        this._sawServerDown = true;
      } else if (this._sawServerDown) {
        this._sawServerDown = false;
        this.connect();
        return;
      }
    }
    this._startProbing();
  }

  private _stopProbing(): void {
    if (this._probeTimer !== null) {
      this._clearTimeout(this._probeTimer);
      this._probeTimer = null;
    }
  }

  /**
   * Send one message: null when sent, else why not (not connected, or the socket's error).
   */
  private _send(message: Private.ClientMessage): string | null {
    if (this._state !== 'connected' || !this._ws) {
      return Private.disconnectedMessage(this._reconnectDelay);
    }
    try {
      this._ws.send(JSON.stringify(message));
    } catch (reason) {
      return String(reason);
    }
    return null;
  }

  /**
   * Ask for the newest protocol both sides speak (2: stream deltas); a server that names
   * no `protocols` speaks only 1, and then nothing is sent.
   */
  private _negotiate(hello: IHelloMessage): void {
    this._protocol = hello.protocol ?? 1;
    const common = (hello.protocols ?? []).filter(v => v <= PROTOCOL_VERSION);
    const wanted = common.length ? Math.max(...common) : this._protocol;
    if (wanted > this._protocol && this._ws) {
      try {
        this._ws.send(JSON.stringify({ type: 'hello', protocol: wanted }));
        this._protocol = wanted;
      } catch {
        // The close handler does the work.
      }
    }
  }

  /**
   * The protocol version in use on the current connection.
   */
  get protocol(): number {
    return this._protocol;
  }

  private _onReply(message: IInlineCompletionReply): void {
    if (message.model) {
      this._setModel(message.model);
    }
    const entry = this._pending.get(message.reply_to);
    if (!entry || entry.replied) {
      return;
    }
    if (message.error) {
      this._fail(entry, message.error);
      return;
    }
    entry.replied = true;
    entry.reply.resolve(message);
    const streaming =
      entry.chunks !== null && message.list.items.some(item => item.isIncomplete && item.token);
    if (!streaming) {
      entry.chunks?.fail(
        new CompletionError({ type: 'no_stream', title: 'No stream', message: '' }, entry.number)
      );
      this._pending.delete(entry.number);
    }
  }

  private _onChunk(message: IStreamChunk): void {
    if (message.model) {
      this._setModel(message.model);
    }
    const entry = this._pending.get(message.reply_to);
    if (!entry || !entry.chunks) {
      return;
    }
    if (message.error) {
      this._fail(entry, message.error);
      return;
    }
    if (message.delta) {
      // Protocol 2: rebuild the whole suggestion so far for the readers.
      entry.text += message.response.insertText;
      message = {
        ...message,
        delta: false,
        response: { ...message.response, insertText: entry.text }
      };
    }
    entry.chunks.push(message);
    if (message.done) {
      this._pending.delete(entry.number);
    }
  }

  private _onEditReply(message: IEditPredictionReply): void {
    const reply = this._edits.get(message.reply_to);
    if (!reply) {
      return;
    }
    this._edits.delete(message.reply_to);
    if (message.error) {
      reply.reject(new CompletionError(message.error, message.reply_to));
    } else {
      reply.resolve(message);
    }
  }

  private _onError(replyTo: number, info: IErrorInfo): void {
    const edit = this._edits.get(replyTo);
    if (edit) {
      this._edits.delete(replyTo);
      edit.reject(new CompletionError(info, replyTo));
      return;
    }
    const entry = this._pending.get(replyTo);
    if (!entry) {
      // A late answer to a request already given up here (a cancel that crossed its
      // end) is normal; anything else is worth reporting.
      if (!isQuietError(info)) {
        this._unmatchedError.emit(info);
      }
      return;
    }
    this._fail(entry, info);
  }

  private _fail(entry: Private.IEntry, info: IErrorInfo): void {
    this._pending.delete(entry.number);
    const error = new CompletionError(info, entry.number);
    if (!entry.replied) {
      entry.replied = true;
      entry.reply.reject(error);
    }
    entry.chunks?.fail(error);
  }

  private _failAll(info: IErrorInfo): void {
    for (const entry of [...this._pending.values()]) {
      this._fail(entry, info);
    }
    const edits = [...this._edits.entries()];
    this._edits.clear();
    for (const [number, reply] of edits) {
      reply.reject(new CompletionError(info, number));
    }
  }

  private _onClosed(ws: WebSocket | null): void {
    if (ws !== null && this._ws !== ws) {
      return;
    }
    this._ws = null;
    this._hello = null;
    this._protocol = 1;
    if (this._state === 'disposed') {
      return;
    }
    this._failedAttempts += 1;
    const delay = Math.min(
      this._maxDelay,
      this._initialDelay * Math.pow(this._factor, this._failedAttempts - 1)
    );
    this._reconnectDelay = delay;
    this._failAll({
      type: 'disconnected',
      title: 'Connection lost',
      message: Private.disconnectedMessage(delay)
    });
    this._reconnectTimer = this._setTimeout(() => {
      this._reconnectTimer = null;
      this.connect();
    }, delay);
    this._setState('disconnected');
    this._startProbing();
  }

  private _setState(state: CompletionSocket.State): void {
    if (this._state === state) {
      return;
    }
    this._state = state;
    this._stateChanged.emit(state);
  }

  private _setModel(model: IServingModel | null): void {
    if (JSON.stringify(model) === JSON.stringify(this._model)) {
      return;
    }
    this._model = model;
    this._modelChanged.emit(model);
  }

  private _serverSettings: ServerConnection.ISettings;
  private _WebSocket: typeof WebSocket;
  private _url: string | null;
  private _initialDelay: number;
  private _maxDelay: number;
  private _factor: number;
  private _setTimeout: (f: () => void, ms: number) => any;
  private _clearTimeout: (handle: any) => void;
  private _probe: (() => Promise<boolean>) | null;
  private _probeInterval: number;
  private _isVisible: () => boolean;
  private _probeTimer: any = null;
  private _sawServerDown = false;
  private _ws: WebSocket | null = null;
  private _state: CompletionSocket.State = 'disconnected';
  private _counter = 0;
  private _failedAttempts = 0;
  private _reconnectDelay: number | null = null;
  private _reconnectTimer: any = null;
  private _pending = new Map<number, Private.IEntry>();
  private _edits = new Map<number, PromiseDelegate<IEditPredictionReply>>();
  private _hello: IHelloMessage | null = null;
  private _protocol = 1;
  private _model: IServingModel | null = null;
  private _stateChanged = new Signal<this, CompletionSocket.State>(this);
  private _modelChanged = new Signal<this, IServingModel | null>(this);
  private _unmatchedError = new Signal<this, IErrorInfo>(this);
}

/**
 * A namespace for CompletionSocket statics.
 */
export namespace CompletionSocket {
  /**
   * The connection state.
   */
  export type State = 'connecting' | 'connected' | 'disconnected' | 'disposed';

  /**
   * Options to create a socket client.
   */
  export interface IOptions {
    /**
     * Server settings (base URL, token, WebSocket class); default `ServerConnection.makeSettings()`.
     */
    serverSettings?: ServerConnection.ISettings;
    /**
     * The WebSocket class; default the server settings' one.
     */
    WebSocket?: typeof WebSocket;
    /**
     * A full URL that replaces the one made from the server settings.
     */
    url?: string;
    /**
     * First reconnection delay in milliseconds (default 500).
     */
    initialDelay?: number;
    /**
     * Largest reconnection delay in milliseconds (default 15000).
     */
    maxDelay?: number;
    /**
     * Growth of the delay after each failed attempt (default 2).
     */
    factor?: number;
    /**
     * Connect at construction (default true).
     */
    autoConnect?: boolean;
    /**
     * Timer functions (for tests).
     */
    setTimeout?: (f: () => void, ms: number) => any;
    clearTimeout?: (handle: any) => void;
    /**
     * Whether the server answers (any HTTP answer; a network error is no): asked while the socket
     * is down, to reconnect as soon as a restarted server is back. Default: a GET of the server's
     * `api` (null: none; the default with `url` too).
     */
    probe?: (() => Promise<boolean>) | null;
    /**
     * How often the probe asks, in milliseconds (default 1000).
     */
    probeInterval?: number;
    /**
     * Whether the page is visible (the probe asks only then); default the document's visibility.
     */
    isVisible?: () => boolean;
  }

  /**
   * An edit prediction request in flight.
   */
  export interface IPendingEdit {
    /**
     * The request's number on this socket.
     */
    number: number;
    /**
     * The server's reply.
     */
    reply: Promise<IEditPredictionReply>;
  }

  /**
   * A request in flight.
   */
  export interface IPendingRequest {
    /**
     * The request's number on this socket.
     */
    number: number;
    /**
     * The server's reply (for a stream: the item with the stream's token).
     */
    reply: Promise<IInlineCompletionReply>;
    /**
     * The stream chunks, for a streamed request.
     */
    chunks: AsyncIterable<IStreamChunk> | null;
  }
}

namespace Private {
  /**
   * What this socket sends after the hello.
   */
  export type ClientMessage =
    | IInlineCompletionRequest
    | IWarmRequest
    | ICancelRequest
    | IUsageMessage
    | IEditPredictionRequest;

  export interface IEntry {
    number: number;
    reply: PromiseDelegate<IInlineCompletionReply>;
    replied: boolean;
    chunks: ChunkQueue | null;
    /**
     * The suggestion so far, rebuilt from protocol-2 deltas.
     */
    text: string;
  }

  /**
   * Whether the Jupyter server answers HTTP (its `api` route: small, and any answer counts, even
   * an error status); a network error or no answer within 3 s is no.
   */
  export async function serverAnswers(settings: ServerConnection.ISettings): Promise<boolean> {
    const controller = typeof AbortController === 'undefined' ? null : new AbortController();
    const timer = controller ? setTimeout(() => controller.abort(), 3000) : null;
    try {
      await ServerConnection.makeRequest(
        URLExt.join(settings.baseUrl, 'api'),
        { method: 'GET', cache: 'no-store', signal: controller?.signal },
        settings
      );
      return true;
    } catch {
      return false;
    } finally {
      if (timer !== null) {
        clearTimeout(timer);
      }
    }
  }

  export function disconnectedMessage(delay: number | null): string {
    if (delay === null) {
      return 'The completion server is not connected.';
    }
    return `The completion server is not reachable; reconnecting in ${Math.round(delay / 1000)} s.`;
  }
}
