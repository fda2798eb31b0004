/**
 * Wire types of the websocket `api/codecomplete/inline`.
 *
 * They mirror the pydantic models in `jupyter_codecomplete/protocol.py`; see
 * `docs/protocol.md`. The server rejects unknown fields, so the client sends only
 * the fields declared here.
 */

/**
 * The model that serves a request.
 */
export interface IServingModel {
  name: string;
  backend: string;
  reported?: string | null;
  style?: string | null;
  demo?: boolean;
  /**
   * Why this model serves, when the user should know (a local server was found but
   * could not fill in the middle, so the demo model serves); null: nothing to say.
   */
  notice?: string | null;
  /**
   * Why the model is not ready (its server did not answer the start-up check, or the
   * last request could not reach it); null: it answered or was not checked yet.
   */
  problem?: string | null;
  /**
   * The route it serves (`completion`, `edit`, `chat`, or a configured model's name).
   */
  key?: string | null;
  /**
   * An edit model's format (`style`) is the model's own next-edit format (false: the generic
   * one); null: not an edit model.
   */
  native?: boolean | null;
}

/**
 * What went wrong, for a person. `type` is a stable machine name.
 */
export interface IErrorInfo {
  type: string;
  title: string;
  message: string;
  retry_after?: number | null;
}

/**
 * One output of a code cell above the cursor, as plain text (never images or widgets).
 */
export interface ICellOutput {
  output_type: 'execute_result' | 'display_data' | 'stream' | 'error';
  text: string;
}

/**
 * Another cell of the notebook; code cells above may carry their outputs (sent only when
 * there are some, so older servers keep accepting requests without outputs).
 */
export interface IContextCell {
  cell_type: 'code' | 'markdown' | 'raw';
  language: string | null;
  source: string;
  outputs?: ICellOutput[];
  /**
   * The cell's id: a notebook-scope edit prediction may name it in an edit.
   */
  cell_id?: string | null;
  /**
   * Execution order: the `In [n]` of the cell's last run (null: it has not run).
   */
  execution_count?: number | null;
  /**
   * Its source changed since it last ran.
   */
  changed?: boolean;
}

/**
 * One completion the notebook's kernel offers at the cursor.
 */
export interface IKernelCandidate {
  text: string;
  type?: string | null;
}

/**
 * What the kernel's `complete_request` answered for the expression before the cursor.
 */
export interface IKernelCandidates {
  expression: string;
  items: IKernelCandidate[];
}

/**
 * Another open document sent as context.
 */
export interface IContextFile {
  path: string;
  content: string;
  language: string | null;
}

/**
 * Who asked for the completion.
 */
export type Trigger = 'auto' | 'manual';

/**
 * A numbered request for an inline completion (client to server).
 */
export interface IInlineCompletionRequest {
  type: 'inline_completion';
  number: number;
  path: string | null;
  language: string | null;
  mime: string | null;
  prefix: string;
  suffix: string;
  stream: boolean;
  cell_id: string | null;
  trigger: Trigger;
  cells_above: IContextCell[];
  cells_below: IContextCell[];
  files: IContextFile[];
  kernel_candidates?: IKernelCandidates;
  /**
   * The user's recent edits here, oldest first (only when the hello lists `edit_history`).
   */
  recent_edits?: IRecentEdit[];
  /**
   * Asked ahead of the user (a prefetch; only when the hello lists `prefetch`): the server
   * answers it only where the route's model may be warmed.
   */
  prefetch?: boolean;
}

/**
 * The body of a request: everything but the type and the number, which the socket adds.
 */
export type IRequestBody = Omit<IInlineCompletionRequest, 'type' | 'number'>;

/**
 * One of the user's recent edits: a unified diff (file headers optional).
 */
export interface IRecentEdit {
  path: string | null;
  diff: string;
  /**
   * The notebook cell the edit was made in.
   */
  cell_id?: string | null;
  /**
   * The edit was an accepted suggestion, not typed.
   */
  accepted?: boolean;
}

/**
 * The error a cell's last run ended with, for an error fix (`traceback`: its text without
 * terminal colour codes, at most the last 20,000 characters).
 */
export interface ICellError {
  ename: string;
  evalue: string;
  traceback: string;
  execution_count: number | null;
}

/**
 * Who asked for an edit prediction: the user typing, the user's command, or a cell's error.
 */
export type EditTrigger = 'auto' | 'manual' | 'error';

/**
 * A span `[start, end)` of a document, in Unicode code points (not UTF-16 units).
 */
export interface IEditRegion {
  start: number;
  end: number;
}

/**
 * A numbered request for an edit prediction: the next change around the cursor (client to
 * server; only when the hello lists the `edit_prediction` feature). Offsets are code points.
 */
export interface IEditPredictionRequest {
  type: 'edit_prediction';
  number: number;
  /**
   * The document's version: the reply carries it back, so an answer to older text is dropped.
   */
  version: number;
  path: string | null;
  language: string | null;
  mime: string | null;
  cell_id: string | null;
  text: string;
  cursor: number;
  region: IEditRegion | null;
  recent_edits: IRecentEdit[];
  trigger: EditTrigger;
  cells_above: IContextCell[];
  cells_below: IContextCell[];
  files: IContextFile[];
  /**
   * `notebook` (hello feature `notebook_edits`): edits may land in context cells with an id.
   */
  scope?: 'cell' | 'notebook';
  /**
   * With trigger `error` (hello feature `error_fix`): the error to fix.
   */
  error?: ICellError | null;
  kernel_candidates?: IKernelCandidates | null;
}

/**
 * The body of an edit prediction request: everything but the type and the number.
 */
export type IEditRequestBody = Omit<IEditPredictionRequest, 'type' | 'number'>;

/**
 * Replace `[start, end)` of the request's text with `text`.
 */
export interface ITextEdit {
  start: number;
  end: number;
  text: string;
  /**
   * A notebook-scope reply: the context cell the edit lands in (offsets in its source as sent);
   * null: the request's own text.
   */
  cell_id?: string | null;
}

/**
 * The answer to an edit prediction: edits sorted and not overlapping, within `region`.
 */
export interface IEditPredictionReply {
  type: 'edit_prediction';
  reply_to: number;
  version: number;
  edits: ITextEdit[];
  region?: IEditRegion | null;
  model?: IServingModel | null;
  notes?: string[];
  error?: IErrorInfo | null;
}

/**
 * Protocol 3: the context the next suggestion will be asked for, sent ahead so the model server
 * has the prompt in its cache (a notebook opened, a cell focused, a pause). No suggestion comes.
 */
export interface IWarmRequest {
  type: 'warm';
  number: number;
  path: string | null;
  language: string | null;
  mime: string | null;
  prefix: string;
  suffix: string;
  stream: boolean;
  cell_id: string | null;
  trigger: Trigger;
  cells_above: IContextCell[];
  cells_below: IContextCell[];
  files: IContextFile[];
  kernel_candidates?: IKernelCandidates;
  recent_edits?: IRecentEdit[];
  prefetch?: boolean;
}

/**
 * The answer to a warm-up: `warmed`, or why not (`off`: not for this model; `busy`: a
 * suggestion streams; `superseded`: a newer warm-up or a request came; `failed`; `protocol`;
 * `capped`: a shared model whose warm-ups for this minute are spent).
 */
export interface IWarmReply {
  type: 'warm';
  reply_to: number;
  warmed: boolean;
  reason?: 'off' | 'busy' | 'superseded' | 'failed' | 'protocol' | 'capped' | null;
  ms?: number | null;
}

/**
 * Stop the request with this number (client to server).
 */
export interface ICancelRequest {
  type: 'cancel';
  number: number;
}

/**
 * One suggestion; mirrors JupyterLab's `IInlineCompletionItem`.
 */
export interface ICompletionItem {
  insertText: string;
  isIncomplete?: boolean;
  token?: string | null;
}

/**
 * The answer to a request; for a stream it carries one incomplete item with a token.
 */
export interface IInlineCompletionReply {
  type: 'inline_completion';
  reply_to: number;
  list: { items: ICompletionItem[] };
  model?: IServingModel | null;
  notes?: string[];
  error?: IErrorInfo | null;
}

/**
 * A streamed update: `response.insertText` is the whole suggestion so far, or with
 * `delta` (protocol 2) only what is new since the previous chunk. The socket client
 * rebuilds the whole text, so its readers always see the whole suggestion so far.
 */
export interface IStreamChunk {
  type: 'stream';
  reply_to: number;
  response: ICompletionItem;
  done: boolean;
  delta?: boolean;
  model?: IServingModel | null;
  notes?: string[];
  error?: IErrorInfo | null;
}

/**
 * A request that could not be served; `reply_to` is -1 when its number is unknown.
 */
export interface IErrorReply {
  type: 'error';
  reply_to: number;
  error: IErrorInfo;
}

/**
 * Sent once by the server when the socket opens.
 */
export interface IHelloMessage {
  type: 'hello';
  /**
   * The version in force until the client asks for another.
   */
  protocol: number;
  /**
   * The versions the server speaks (absent from servers that speak only 1).
   */
  protocols?: number[];
  model: IServingModel | null;
  max_message_bytes: number;
  /**
   * What the server offers besides inline completions (`edit_prediction`); absent from older servers.
   */
  features?: string[];
  /**
   * Protocol 3: whether the server warms the default model's prompt cache (`warm` messages).
   */
  warm?: boolean;
  /**
   * The same for each configured route (language or MIME type); a route not listed follows `warm`.
   */
  warm_routes?: Record<string, boolean>;
  /**
   * Whether the server records usage events (absent from older servers: no).
   */
  usage?: boolean;
}

/**
 * The newest protocol version this client speaks: 2 streams deltas.
 */
export const PROTOCOL_VERSION = 3;

/**
 * The client's answer to the hello: the protocol version it wants (client to server).
 */
export interface IClientHello {
  type: 'hello';
  protocol: number;
}

/**
 * How a suggestion was asked for: typing, a fresh line (after Enter), the user's Alt+\\, an edit.
 */
export type UsageTrigger = 'typing' | 'fresh_line' | 'manual' | 'edit';

/**
 * Where the cursor was when a suggestion was shown.
 */
export type LineKind = 'code' | 'comment' | 'string' | 'mid_line' | 'empty';

/**
 * What became of one suggestion shown (no code text unless the user keeps samples).
 */
export interface IUsageEvent {
  id: string;
  shown_at: number;
  model: string | null;
  style: string | null;
  language: string | null;
  trigger: UsageTrigger;
  line_kind: LineKind;
  /**
   * The mean interval between the last keystrokes before the request (ms; the gate's rhythm).
   */
  typing_ms?: number | null;
  latency_ms: number;
  length: number;
  outcome: 'accepted' | 'typed_through' | 'dismissed' | 'ignored';
  accept_kind: 'whole' | 'word' | 'line' | null;
  accepted_chars: number;
  typed_chars: number;
  /**
   * From the last keystroke to the first accept (ms); null when not accepted (the gate learns
   * how long the user pauses before taking a suggestion).
   */
  accept_pause_ms?: number | null;
  /**
   * The request was asked after a hold (`Restraint.decide`): its pause is not the user's own.
   */
  held?: boolean;
  kept_30s: number | null;
  kept_5m: number | null;
  /**
   * What was still there when its document (or the browser tab) closed before the 30 s window
   * ended; counted as kept when neither window was measured.
   */
  kept_at_close?: number | null;
  text_hash: string | null;
  line: number | null;
  column: number | null;
  sample?: string | null;
}

/**
 * Usage events to record (client to server; only when the hello says `usage`).
 */
export interface IUsageMessage {
  type: 'usage';
  events: IUsageEvent[];
}

/**
 * Any message the server sends.
 */
export type ServerMessage =
  | IHelloMessage
  | IInlineCompletionReply
  | IStreamChunk
  | IEditPredictionReply
  | IErrorReply
  | IWarmReply;

/**
 * Error types that are a normal part of typing and must never be shown to the user.
 */
export const QUIET_ERROR_TYPES: ReadonlyArray<string> = ['cancelled', 'superseded', 'not_running'];

/**
 * Whether an error is a normal cancellation that the user must not see.
 */
export function isQuietError(info: IErrorInfo | null | undefined): boolean {
  return !!info && QUIET_ERROR_TYPES.includes(info.type);
}

/**
 * Error types that say a shared model service asked for a pause (a gateway's rate limit, every
 * replica busy): the server pauses that model for all of the user's tabs and answers requests
 * meanwhile at once with `model_busy` (`jupyter_codecomplete/backends/pressure.py`).
 */
export const BUSY_ERROR_TYPES: ReadonlyArray<string> = ['model_busy', 'rate_limited'];

/**
 * Whether an error is such a pause (said once in the status item, never per keystroke): a busy
 * type, or an unavailable model server that said when to ask again.
 */
export function isBusyError(info: IErrorInfo | null | undefined): boolean {
  return (
    !!info &&
    (BUSY_ERROR_TYPES.includes(info.type) ||
      (info.type === 'backend_unavailable' && typeof info.retry_after === 'number'))
  );
}

/**
 * The whole seconds a pause lasts, as a person is told them (at least 1).
 */
export function busySeconds(info: IErrorInfo): number {
  return Math.max(1, Math.ceil(info.retry_after ?? 1));
}
