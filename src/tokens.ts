/**
 * The tokens the plugins of this extension provide to each other, the plugin and command ids,
 * and the commands of the status item's menu.
 *
 * One plugin owns each concern (see `plugins/`); the others reach it through its token here.
 */
import {
  CompletionHandler,
  IInlineCompletionContext,
  IInlineCompletionProvider
} from '@jupyterlab/completer';
import { IDisposable } from '@lumino/disposable';
import { ISignal } from '@lumino/signaling';
import { Token } from '@lumino/coreutils';

import type {
  IEditRequestBody,
  IErrorInfo,
  IHelloMessage,
  IServingModel,
  IUsageEvent,
  LineKind
} from './connection/protocol';
import type { IEngineInstall } from './models/models';
import type { EditHistory } from './context/edithistory';
import type { CodeCompleteProvider, ICompletionClient } from './completion/provider';
import type { ISettings } from './settings';
import type { CompletionSocket } from './connection/socket';
import type { SuggestionLifecycle } from './lifecycle/lifecycle';
import type { EditLifecycle } from './edits/lifecycle';
import type { StatusState } from './status/status';

/**
 * The id of the settings plugin; also the id of the settings schema `schema/plugin.json`
 * (user settings and the settings menu depend on it: never change it).
 */
export const PLUGIN_ID = 'jupyter-codecomplete:plugin';

/**
 * Command ids.
 */
export namespace CommandIDs {
  export const toggleEnabled = 'codecomplete:toggle-enabled';
  export const toggleLanguage = 'codecomplete:toggle-language';
  export const request = 'codecomplete:request';
  export const reconnect = 'codecomplete:reconnect';
  export const openSettings = 'codecomplete:open-settings';
  export const dismiss = 'codecomplete:dismiss';
  export const chooseModel = 'codecomplete:choose-model';
  export const openStatistics = 'codecomplete:open-statistics';
  export const predictEdit = 'codecomplete:predict-edit';
}

/**
 * The commands of the status item's menu, in order; `-` is a separator.
 */
export const MENU_COMMANDS: ReadonlyArray<string> = [
  CommandIDs.chooseModel,
  '-',
  CommandIDs.toggleEnabled,
  CommandIDs.toggleLanguage,
  '-',
  CommandIDs.request,
  CommandIDs.reconnect,
  '-',
  CommandIDs.openStatistics,
  CommandIDs.openSettings
];

/**
 * The user's settings of this extension, as they are now.
 */
export interface ICodeCompleteSettings {
  /**
   * The settings in force (the defaults until the setting registry answers).
   */
  readonly current: ISettings;
  /**
   * Emitted with the new settings whenever they change.
   */
  readonly changed: ISignal<ICodeCompleteSettings, ISettings>;
  /**
   * The debounce of JupyterLab's inline completer for this provider, in ms.
   */
  readonly debounce: number;
  /**
   * Whether our provider is on in JupyterLab's Inline Completer settings (`changed` is emitted
   * when it changes).
   */
  readonly providerEnabled?: boolean;
  /**
   * Store one setting (in the setting registry when there is one).
   */
  save<K extends keyof ISettings>(key: K, value: ISettings[K]): Promise<void>;
}

/**
 * The settings token.
 */
export const ICodeCompleteSettings = new Token<ICodeCompleteSettings>(
  'jupyter-codecomplete:ICodeCompleteSettings',
  'The settings of inline code completion, with a signal when they change.'
);

/**
 * The websocket connection to the completion server (`CompletionSocket` in `socket.ts`): the
 * numbered requests the provider makes (`ICompletionClient`), its state, the serving model,
 * usage events and edit predictions.
 */
export interface ICompletionConnection extends ICompletionClient, IDisposable {
  /**
   * The connection state.
   */
  readonly state: CompletionSocket.State;
  /**
   * Emitted when the connection state changes.
   */
  readonly stateChanged: ISignal<ICompletionConnection, CompletionSocket.State>;
  /**
   * The server's hello (null until it came).
   */
  readonly hello: IHelloMessage | null;
  /**
   * The model that serves completions, as the server last said.
   */
  readonly model: IServingModel | null;
  /**
   * Emitted when the serving model changes.
   */
  readonly modelChanged: ISignal<ICompletionConnection, IServingModel | null>;
  /**
   * Emitted with an error that answers no request in flight.
   */
  readonly unmatchedError: ISignal<ICompletionConnection, IErrorInfo>;
  /**
   * Milliseconds until the next reconnection attempt, null when none is planned.
   */
  readonly reconnectDelay: number | null;
  /**
   * Connect now (after a disconnection).
   */
  connect(): void;
  /**
   * Send usage events; false while not connected (the caller keeps them).
   */
  sendUsage(events: IUsageEvent[]): boolean;
  /**
   * Send an edit prediction request.
   */
  requestEdit(body: IEditRequestBody): CompletionSocket.IPendingEdit;
  /**
   * The numbers of the requests still waiting for an answer or stream chunks.
   */
  readonly pendingNumbers: number[];
}

/**
 * The connection token.
 */
export const ICompletionConnection = new Token<ICompletionConnection>(
  'jupyter-codecomplete:ICompletionConnection',
  'The websocket connection to the jupyter_codecomplete server.'
);

/**
 * Finds the language of an editor.
 */
export interface ILanguageResolver {
  /**
   * The language of an editor with this MIME type; with a context, the kernel's language
   * when the MIME type does not tell (yet).
   */
  resolve(mime: string | null, context?: IInlineCompletionContext): string | null;
  /**
   * The language of the editor in the current widget (null: no editor there).
   */
  editorLanguage(): string | null;
}

/**
 * The language resolver token.
 */
export const ILanguageResolver = new Token<ILanguageResolver>(
  'jupyter-codecomplete:ILanguageResolver',
  'Finds the language of an editor from its MIME type, the language registry and the kernel.'
);

/**
 * The inline completion provider registered with JupyterLab's completer
 * (`CodeCompleteProvider` in `provider.ts`), with what happens to its requests.
 */
export interface ICodeCompleteProvider extends IInlineCompletionProvider {
  /**
   * Emitted when a request starts, is skipped, shows its first text, ends or fails.
   */
  readonly activity: ISignal<ICodeCompleteProvider, CodeCompleteProvider.IActivity>;
  /**
   * The inline suggestions' lifecycle (asked, shown, complete, accepted, ended), which the
   * usage tracker, restraint and prefetch follow.
   */
  readonly lifecycle: SuggestionLifecycle<CodeCompleteProvider.IShown>;
  /**
   * A word or a line of the suggestion shown was accepted (our partial-accept commands).
   */
  notePartialAccept(kind: 'word' | 'line', part: string): void;
  /**
   * The suggestion shown was accepted whole (JupyterLab's accept command).
   */
  noteAccepted(): void;
  /**
   * The language of the last request, if any.
   */
  readonly lastLanguage: string | null;
  /**
   * The next request on this text was asked for by us (a fresh line), not by the user:
   * treat it as automatic.
   */
  expectAutomatic(text: string): void;
  /**
   * Send the context a request at this cursor would carry ahead; whether it was sent.
   */
  warm(request: CompletionHandler.IRequest, context: IInlineCompletionContext): boolean;
  /**
   * Stop the latest request (the user dismissed its suggestion).
   */
  cancelLatest(): void;
  /**
   * Forget the suggestions remembered (another model serves).
   */
  forget(): void;
  /**
   * Restraint for automatic requests; null: none.
   */
  setRestraint(restrain: CodeCompleteProvider.IOptions['restrain'] | null): void;
}

/**
 * The provider token.
 */
export const ICodeCompleteProvider = new Token<ICodeCompleteProvider>(
  'jupyter-codecomplete:ICodeCompleteProvider',
  'The inline completion provider of jupyter_codecomplete.'
);

/**
 * What the status item shows: connection, model, last request, errors (`StatusModel` in
 * `status.ts`, fed by the status plugin).
 */
export interface ICodeCompleteStatus {
  /**
   * Emitted when anything shown changes.
   */
  readonly changed: ISignal<ICodeCompleteStatus, void>;
  /**
   * The state the item shows.
   */
  readonly state: StatusState;
  /**
   * The serving model's name (the part of the item that may be shortened).
   */
  readonly name: string;
  /**
   * A short note beside the name ("off for Python"), or ''.
   */
  readonly note: string;
  /**
   * The item's tooltip: the model and what happened last.
   */
  readonly message: string;
  /**
   * Requests made and skipped so far.
   */
  readonly counts: { requests: number; skipped: number };
  /**
   * The serving model.
   */
  readonly model: IServingModel | null;
  /**
   * The error of the last request, if it failed.
   */
  readonly lastError: IErrorInfo | null;
  /**
   * The user switched models: the new model's state replaces the old one's error at once.
   */
  switched(model: IServingModel): void;
  /**
   * The background install of the llama.cpp engine (Choose Model…), while it runs and when it
   * ends: the item shows its progress.
   */
  engineInstall(state: IEngineInstall | null): void;
}

/**
 * The status token.
 */
export const ICodeCompleteStatus = new Token<ICodeCompleteStatus>(
  'jupyter-codecomplete:ICodeCompleteStatus',
  'The state the status item of jupyter_codecomplete shows.'
);

/**
 * What becomes of the suggestions shown in this tab, recorded on the server, on this machine
 * (`UsageTracker` in `usage.ts`).
 */
export interface IUsageTracker {
  /**
   * The events waiting for the socket.
   */
  readonly queued: ReadonlyArray<IUsageEvent>;
  /**
   * The user's typing rhythm before a request (ms per key; null: unknown), recorded with each
   * event; the restraint plugin sets it from its adaptive debounce.
   */
  rhythm: (() => number | null) | null;
  /**
   * Whether the request being sent was held by restraint (`Restraint.held`), recorded with
   * each event (`held`); the restraint plugin sets it.
   */
  held: (() => boolean) | null;
  /**
   * The time since the user's last keystroke (ms), read when the user first takes something of
   * a suggestion and recorded with its event (`accept_pause_ms`); the restraint plugin sets it.
   */
  pause: (() => number) | null;
  /**
   * Called when the user first takes something of an automatic suggestion, with its line kind,
   * that pause (null: unknown) and whether its request was held (as recorded when it was sent);
   * the restraint plugin learns from it how long the user pauses before taking one.
   */
  onAccept: ((lineKind: LineKind, pauseMs: number | null, held: boolean) => void) | null;
  /**
   * Follow the edit predictions' lifecycle (each shown prediction an impression, trigger
   * `edit`); the returned function stops.
   */
  followEdits(lifecycle: EditLifecycle): () => void;
  /**
   * Send what waits now (what the socket does not take waits on).
   */
  flush(): void;
  /**
   * End the suggestion shown and send what waits (the page is closing).
   */
  dispose(): void;
}

/**
 * The usage token.
 */
export const IUsageTracker = new Token<IUsageTracker>(
  'jupyter-codecomplete:IUsageTracker',
  'Records what becomes of each code suggestion shown.'
);

/**
 * The user's recent edits per document (a notebook panel, a file editor): the edit prediction
 * plugin records them, edit predictions and inline completions send them.
 */
export interface IEditHistory {
  /**
   * The history of a document (created on first use; `path` follows a rename).
   */
  of(document: object, path: string | null): EditHistory;
  /**
   * The history of a document, if it has one.
   */
  peek(document: object): EditHistory | null;
}

/**
 * The edit history token.
 */
export const IEditHistory = new Token<IEditHistory>(
  'jupyter-codecomplete:IEditHistory',
  'The recent edits of each open notebook and file, as unified diffs with their cell.'
);

/**
 * The edit predictions of this page (the edit prediction plugin's): each prediction's life, and
 * restraint for the automatic ones (the restraint plugin sets it).
 */
export interface IEditPredictions {
  /**
   * Each prediction's life: shown, applied whole or a cell at a time, ended.
   */
  readonly lifecycle: EditLifecycle;
  /**
   * Restraint for automatic predictions: a reason to hold one, or null to ask (null: none).
   */
  setRestraint(restrain: (() => string | null) | null): void;
}

/**
 * The edit predictions token.
 */
export const IEditPredictions = new Token<IEditPredictions>(
  'jupyter-codecomplete:IEditPredictions',
  'The edit predictions of this page: their lifecycle, and restraint for the automatic ones.'
);
