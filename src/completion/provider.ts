/**
 * The inline completion provider: turns JupyterLab's request into a numbered websocket
 * request, and the server's reply or stream into ghost text.
 */
import {
  CompletionHandler,
  IInlineCompletionContext,
  IInlineCompletionItem,
  IInlineCompletionList,
  InlineCompletionTriggerKind
} from '@jupyterlab/completer';
import { Text } from '@jupyterlab/coreutils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { LabIcon } from '@jupyterlab/ui-components';
import { ISignal, Signal } from '@lumino/signaling';

import {
  boundedPrefix,
  boundedSuffix,
  contextCells,
  contextFiles,
  fitToLimit,
  ICellInfo,
  languageFromMime
} from '../context/context';
import { SuggestionLifecycle } from '../lifecycle/lifecycle';
import { codeCompleteIcon } from '../status/icon';
import { mayPrefetch, Prefetcher, shouldPrefetch } from './prefetch';
import {
  IContextFile,
  IErrorInfo,
  isBusyError,
  IHelloMessage,
  IInlineCompletionReply,
  IKernelCandidates,
  IRecentEdit,
  IRequestBody,
  IStreamChunk,
  isQuietError
} from '../connection/protocol';
import { isLanguageEnabled, ISettings } from '../settings';
import { CompletionError, CompletionSocket } from '../connection/socket';
import type { ICodeCompleteProvider } from '../tokens';
import { IEditorState, RecentSuggestions, Suggestion } from './typing';

/**
 * The provider identifier (also the key of its settings in the inline completer).
 */
export const PROVIDER_ID = 'jupyter-codecomplete';

/**
 * The default debounce (ms) of automatic and fresh-line requests. Chosen with the browser
 * benchmark (docs/performance.md, "The debounce"): typing code at a human rate, 150 ms asks the
 * model 134 times a minute against 89 at 200 ms and 196 at 100 ms, and shows a suggestion in
 * twice as many pauses as 200 ms does, ~45 ms sooner.
 */
export const DEFAULT_DEBOUNCE_MS = 150;

/**
 * The part of the socket client the provider uses.
 */
export interface ICompletionClient {
  request(body: IRequestBody): CompletionSocket.IPendingRequest;
  cancel(number: number): void;
  readonly hello: Pick<
    IHelloMessage,
    'max_message_bytes' | 'warm' | 'warm_routes' | 'features'
  > | null;
  /**
   * Send a request's context ahead for the model server's cache (protocol 3); whether sent.
   */
  warm?(body: IRequestBody): boolean;
}

/**
 * The provider.
 */
/**
 * How long the server's "this document is excluded" is trusted before it is asked again (an
 * edited .codecompleteignore takes effect within this time).
 */
const EXCLUDED_RECHECK_MS = 60_000;

export class CodeCompleteProvider implements ICodeCompleteProvider {
  readonly identifier = PROVIDER_ID;
  readonly icon: LabIcon.ILabIcon = codeCompleteIcon;

  constructor(options: CodeCompleteProvider.IOptions) {
    this._client = options.client;
    this._getSettings = options.settings;
    this._resolveLanguage = options.resolveLanguage ?? (mime => languageFromMime(mime));
    this._collectCells = options.collectCells ?? (() => null);
    this._recentEdits = options.recentEdits ?? null;
    this._collectDocuments = options.collectDocuments ?? (() => []);
    this._editorState = options.editorState ?? (() => null);
    this._kernelCandidates = options.kernelCandidates ?? (() => null);
    this._restrain = options.restrain ?? null;
    this._trans = (options.translator ?? nullTranslator).load('jupyter_codecomplete');
    this._prefetchDelay = options.prefetchDelay ?? (() => DEFAULT_DEBOUNCE_MS);
    // prefetch follows the suggestions' lifecycle: a complete suggestion of the latest request
    // asks for what would follow accepting it; a dismissed one drops what was fetched ahead
    this.lifecycle.complete.connect((_, { id, detail }) =>
      this._afterComplete(id, detail.suggestion)
    );
    this.lifecycle.ended.connect((_, { reason }) => {
      if (reason === 'dismissed') {
        this._prefetch.clear();
      }
    });
  }

  get name(): string {
    return this._trans.__('Code Completion');
  }

  /**
   * Defaults for the per-provider settings that JupyterLab's inline completer adds.
   */
  get schema(): ISettingRegistry.IProperty {
    return {
      default: {
        debouncerDelay: DEFAULT_DEBOUNCE_MS,
        timeout: 20000
      }
    };
  }

  /**
   * Emitted when a request starts, succeeds, fails or is cancelled.
   */
  get activity(): ISignal<this, CodeCompleteProvider.IActivity> {
    return this._activity;
  }

  /**
   * The inline suggestions' lifecycle: asked (a request started), shown (each time the ghost
   * text it shows changes: streaming, typing through it), complete, accepted whole or in part,
   * dismissed.
   */
  readonly lifecycle = new SuggestionLifecycle<CodeCompleteProvider.IShown>({ kind: 'inline' });

  /**
   * Report a partial accept (called by the partial-accept commands after inserting `part` at
   * the cursor of `before`, the editor state the suggestion was shown in). When `part` was all
   * that is left of a finished suggestion, the suggestion ended accepted; returns whether it did.
   */
  notePartialAccept(kind: 'word' | 'line', part: string, before?: IEditorState): boolean {
    const found = before ? this._recent.find(before) : null;
    this.lifecycle.accept({ part: kind, text: part, chars: part.length, kept: [] });
    if (found && found.suggestion.done && part.length > 0 && part === found.rest) {
      this.lifecycle.end('accepted');
      return true;
    }
    return false;
  }

  /**
   * Report that the user accepted what the ghost text shows (JupyterLab's accept command).
   */
  noteAccepted(): void {
    this.lifecycle.accept({ part: 'whole', text: null, chars: 0, kept: [] });
    this.lifecycle.end('accepted');
  }

  /**
   * Restraint for automatic requests (see `IOptions.restrain`); null: none.
   */
  setRestraint(restrain: CodeCompleteProvider.IOptions['restrain'] | null): void {
    this._restrain = restrain ?? null;
  }

  /**
   * The language of the last request, if any.
   */
  get lastLanguage(): string | null {
    return this._lastLanguage;
  }

  /**
   * Build the request body for a JupyterLab request (exposed for tests).
   */
  buildRequest(
    request: CompletionHandler.IRequest,
    context: IInlineCompletionContext,
    options: {
      language: string | null;
      stream: boolean;
      manual: boolean;
      kernel?: IKernelCandidates | null;
    },
    settings: ISettings = this._getSettings()
  ): IRequestBody {
    const path = Private.pathOf(context);
    const cells = this._collectCells(context);
    const { above, below } = cells
      ? contextCells(cells.cells, cells.activeIndex, settings)
      : { above: [], below: [] };
    const files = settings.openDocuments
      ? contextFiles(this._collectDocuments(context), path, settings)
      : [];
    return {
      path,
      language: options.language,
      mime: request.mimeType ?? null,
      prefix: boundedPrefix(request.text, request.offset, settings.maxPrefixChars),
      suffix: boundedSuffix(request.text, request.offset, settings.maxSuffixChars),
      stream: options.stream,
      cell_id: cells?.cellId ?? null,
      trigger: options.manual ? 'manual' : 'auto',
      cells_above: above,
      cells_below: below,
      files,
      ...(options.kernel && settings.kernelCandidates ? { kernel_candidates: options.kernel } : {}),
      ...Private.recentEdits(this._recentEdits?.(context))
    };
  }

  /**
   * The next explicit ("invoke") request for exactly this text is not the user's Alt+\\ but
   * ours (the fresh-line trigger; showing the rest of a suggestion again after a partial accept
   * or Enter): treat it as automatic (settings, streaming mode, the `trigger` sent, answered from
   * a remembered suggestion when there is one).
   */
  expectAutomatic(text: string): void {
    this._freshLine = { text, until: Date.now() + 10000 };
  }

  /**
   * Send the context a request at this cursor would carry ahead, so the model server has its
   * prompt cached (issue 29); whether it was sent (automatic suggestions on, the language on).
   */
  warm(request: CompletionHandler.IRequest, context: IInlineCompletionContext): boolean {
    const settings = this._getSettings();
    const language = this._resolveLanguage(request.mimeType ?? null, context);
    if (
      !this._client.warm ||
      !settings.enabled ||
      !settings.warmModel ||
      settings.trigger !== 'auto' ||
      !isLanguageEnabled(settings, language)
    ) {
      return false;
    }
    const body = fitToLimit(
      this.buildRequest(request, context, { language, stream: true, manual: false }, settings),
      this._client.hello?.max_message_bytes ?? null
    );
    return this._client.warm(body);
  }

  /**
   * Stop the latest request (the user dismissed its suggestion).
   */
  cancelLatest(): void {
    this.lifecycle.end('dismissed');
    if (this._latest !== null) {
      this._client.cancel(this._latest);
      this._latest = null;
    }
    // A dismissed suggestion must not come back while the user types on.
    this._generation++;
    this._recent.clear();
  }

  async fetch(
    request: CompletionHandler.IRequest,
    context: IInlineCompletionContext
  ): Promise<IInlineCompletionList<IInlineCompletionItem>> {
    const settings = this._getSettings();
    const fresh = this._freshLine;
    const freshLine = fresh !== null && fresh.text === request.text && Date.now() < fresh.until;
    this._freshLine = null;
    const manual = context.triggerKind === InlineCompletionTriggerKind.Invoke && !freshLine;
    const language = this._resolveLanguage(request.mimeType ?? null, context);
    this._lastLanguage = language;
    const off = !settings.enabled
      ? 'disabled'
      : !isLanguageEnabled(settings, language)
        ? 'language-off'
        : settings.trigger === 'manual' && !manual
          ? 'manual-only'
          : null;
    if (off) {
      // `manual`: the user asked (Alt+\\) and must be told why nothing comes
      this._emit({ kind: 'skipped', number: -1, language, reason: off, manual });
      return { items: [] };
    }
    const excluded = this._excludedReason(Private.pathOf(context));
    if (excluded !== null) {
      // the server said this document is excluded: no request until that is a minute old
      this._emit({ kind: 'skipped', number: -1, language, reason: 'excluded', detail: excluded });
      return { items: [] };
    }
    if (settings !== this._settingsSeen) {
      // New settings (or a new model): what was suggested before may no longer apply.
      this._settingsSeen = settings;
      this._recent.clear();
    }
    const generation = ++this._generation;
    const state = this._requestState(request, context);
    // Right after accepting a suggestion: what was asked for while it was shown (issue 29).
    const prefetched = manual ? null : this._prefetch.take(state);
    if (prefetched) {
      this._recent.add(prefetched);
    }
    // An explicit request (Alt+\) always asks the model: the user wants a new answer.
    const found = manual ? null : this._recent.find(state);
    if (found) {
      // Typing through a suggestion (or back into one): answer from it, no model call.
      this._emit({ kind: 'reused', number: found.suggestion.number, language });
      return this._answer(found.suggestion, found.rest, context, state, generation, language);
    }
    if (!manual && this.lifecycle.open) {
      // the suggestion shown no longer applies: typed past (all of it typed, or something else)
      this.lifecycle.end('typed-through');
    }
    if (!manual && Private.stale(this._editorState(context), state)) {
      // JupyterLab's debounce lets an automatic request through after Enter left its line (it
      // asks nothing on a blank line, so nothing supersedes it): a model call no one would see
      // (the browser benchmark saw one per Enter).
      this._emit({ kind: 'skipped', number: -1, language });
      return { items: [] };
    }
    if (!manual && this._restrain) {
      // restraint (src/completion/restraint.ts): wait for the typing to settle, skip where nothing is kept
      const held = this._restrain({ state, freshLine, language });
      const reason = held instanceof Promise ? await held.catch(() => null) : held;
      if (generation !== this._generation) {
        return { items: [] }; // a newer request came while this one waited
      }
      if (reason) {
        this._emit({ kind: 'skipped', number: -1, language, reason: 'restrained' });
        return { items: [] };
      }
    }
    const stream = settings.streaming === 'always' || (settings.streaming === 'manual' && manual);
    // what the kernel completes at the cursor: awaited only while a question is out (bounded by
    // a short time budget); no trigger, a cached answer or a skipped kernel answer at once
    const asked = settings.kernelCandidates
      ? this._kernelCandidates(request, context, language)
      : null;
    const kernel = asked instanceof Promise ? await asked.catch(() => null) : asked;
    const body = fitToLimit(
      this.buildRequest(request, context, { language, stream, manual, kernel }, settings),
      this._client.hello?.max_message_bytes ?? null
    );
    this._prefetch.clear(false); // the server supersedes a prefetch with this request
    const pending = this._client.request(body);
    const number = pending.number;
    this._latest = number;
    if (body.path) {
      this._paths.set(number, body.path);
      if (this._paths.size > 64) {
        this._paths.delete(this._paths.keys().next().value as number);
      }
    }
    this._triggers.set(number, manual ? 'manual' : freshLine ? 'fresh_line' : 'typing');
    if (this._triggers.size > 64) {
      this._triggers.delete(this._triggers.keys().next().value as number);
    }
    this._emit({ kind: 'started', number, language });
    this._asked = { number, request, context, language };
    this.lifecycle.ask(number);
    let reply: IInlineCompletionReply;
    try {
      reply = await pending.reply;
    } catch (reason) {
      return { items: this._failed(number, language, reason) };
    }
    const items = reply.list.items;
    const suggestion = new Suggestion({
      key: state.key,
      before: state.text.slice(0, state.offset),
      after: state.text.slice(state.offset),
      number
    });
    const streamed = items.find(item => item.isIncomplete && item.token);
    if (stream && streamed && pending.chunks) {
      suggestion.text = streamed.insertText;
      this._recent.add(suggestion);
      void this._pump(suggestion, pending.chunks, language).then(() =>
        this._noteComplete(suggestion, language)
      );
    } else {
      if (items.some(item => item.insertText)) {
        this._emit({ kind: 'shown', number, language });
      }
      this._emit({ kind: 'succeeded', number, language });
      const texts = items.filter(item => item.insertText);
      if (texts.length > 1) {
        // Several choices: show them all; only the first is remembered for typing through.
        suggestion.update(texts[0].insertText, true);
        this._recent.add(suggestion);
        this._noteShown(suggestion, texts[0].insertText, language);
        return {
          items: texts.map(item => ({ insertText: item.insertText, isIncomplete: false }))
        };
      }
      suggestion.update(texts[0]?.insertText ?? '', true);
      if (!suggestion.text) {
        return { items: [] };
      }
      this._recent.add(suggestion);
      this._noteComplete(suggestion, language);
    }
    const rest = this._restFor(suggestion, context, state);
    if (rest === null) {
      // The user typed something else while the answer was on its way.
      return { items: [] };
    }
    return this._answer(suggestion, rest, context, state, generation, language);
  }

  /**
   * Yield what is left of the suggestion each time a chunk arrives, until the stream is done.
   * The text is always the rest of the suggestion after what the user has typed since; a
   * stream that a newer request superseded, or that the user typed away from, never paints.
   */
  async *stream(
    token: string
  ): AsyncGenerator<{ response: IInlineCompletionItem }, undefined, unknown> {
    const view = this._views.get(token);
    if (!view) {
      return;
    }
    this._views.delete(token);
    const { suggestion } = view;
    let shown: string | null = null;
    for (;;) {
      if (view.generation !== this._generation) {
        return;
      }
      const rest = this._restFor(suggestion, view.context, view.state);
      if (rest === null) {
        return;
      }
      if (suggestion.error !== null) {
        yield { response: { insertText: rest, error: { message: suggestion.error } } };
        return;
      }
      if (rest !== shown) {
        shown = rest;
        this._noteShown(suggestion, rest, view.language);
        yield { response: { insertText: rest, isIncomplete: !suggestion.done } };
      }
      if (suggestion.done) {
        return;
      }
      await suggestion.changed();
    }
  }

  /**
   * Forget the suggestions seen so far (the model or its settings changed).
   */
  forget(): void {
    this._recent.clear();
    this._prefetch.clear();
  }

  /**
   * What is left of the most recent suggestion that still applies in this editor state
   * (for partial accept), or null.
   */
  rest(state: IEditorState): string | null {
    return this._recent.find(state)?.rest ?? null;
  }

  /**
   * A suggestion's whole text is known (its lifecycle's `complete`).
   */
  private _noteComplete(suggestion: Suggestion, language: string | null): void {
    const trigger = this._triggers.get(suggestion.number) ?? 'typing';
    this.lifecycle.completed(suggestion.number, {
      suggestion,
      rest: suggestion.text,
      language,
      trigger
    });
  }

  /**
   * A suggestion is complete: if it is the latest request's, ask for what would follow
   * accepting it.
   */
  private _afterComplete(id: number, suggestion: Suggestion): void {
    const asked = this._asked;
    if (
      this._latest !== id ||
      asked?.number !== id ||
      !shouldPrefetch(suggestion, this._getSettings())
    ) {
      return;
    }
    const { request, context, language } = asked;
    // A prefetch is a model request the user may never use: only where the server says requests
    // cost nothing but time (it warms this model: one on this machine or a private network, the
    // embedded one; never a paid API), as for warm-ups.
    if (!mayPrefetch(this._client.hello, request.mimeType, language)) {
      return;
    }
    this._prefetchFor = { mimeType: request.mimeType, context, language };
    this._prefetch.start(suggestion);
  }

  /**
   * Send the request of a prefetch (no activity reported: the user asked for nothing yet).
   */
  private _sendPrefetch(state: IEditorState): Suggestion | null {
    const from = this._prefetchFor;
    if (!from) {
      return null;
    }
    const settings = this._getSettings();
    const request = {
      text: state.text,
      offset: Text.jsIndexToCharIndex(state.offset, state.text),
      mimeType: from.mimeType
    };
    const stream = settings.streaming === 'always';
    const body = fitToLimit(
      this.buildRequest(request, from.context, { language: from.language, stream, manual: false }),
      this._client.hello?.max_message_bytes ?? null
    );
    if (this._client.hello?.features?.includes('prefetch')) {
      body.prefetch = true; // the server answers it only where the route's model is warmed
    }
    const pending = this._client.request(body);
    const suggestion = new Suggestion({
      key: state.key,
      before: state.text.slice(0, state.offset),
      after: state.text.slice(state.offset),
      number: pending.number
    });
    void Private.fill(suggestion, pending, stream);
    return suggestion;
  }

  /**
   * The items for a suggestion's rest: final, or streaming on (with a token for `stream`).
   */
  private _answer(
    suggestion: Suggestion,
    rest: string,
    context: IInlineCompletionContext,
    state: IEditorState,
    generation: number,
    language: string | null
  ): IInlineCompletionList<IInlineCompletionItem> {
    this._noteShown(suggestion, rest, language);
    if (suggestion.done) {
      return rest ? { items: [{ insertText: rest, isIncomplete: false }] } : { items: [] };
    }
    const token = `codecomplete-${++this._tokens}`;
    this._views.set(token, { suggestion, context, state, generation, language });
    return { items: [{ insertText: rest, isIncomplete: true, token }] };
  }

  /**
   * Read a suggestion's stream into it; report how the request ended.
   */
  private async _pump(
    suggestion: Suggestion,
    chunks: AsyncIterable<IStreamChunk>,
    language: string | null
  ): Promise<void> {
    const number = suggestion.number;
    try {
      for await (const chunk of chunks) {
        if (!suggestion.text && chunk.response.insertText) {
          this._emit({ kind: 'shown', number, language });
        }
        suggestion.update(chunk.response.insertText, chunk.done);
        if (chunk.done) {
          break;
        }
      }
      suggestion.update(suggestion.text, true);
      this._emit({ kind: 'succeeded', number, language });
    } catch (reason) {
      const items = this._failed(number, language, reason);
      suggestion.update(suggestion.text, true, items[0]?.error?.message ?? null);
    }
    if (!suggestion.text || suggestion.error !== null) {
      this._recent.remove(suggestion);
    }
  }

  /**
   * The editor state a request was made in (document key, text, cursor as a JS offset).
   */
  private _requestState(
    request: CompletionHandler.IRequest,
    context: IInlineCompletionContext
  ): IEditorState {
    const live = this._editorState(context);
    return {
      key: live?.key ?? Private.pathOf(context) ?? '',
      text: request.text,
      offset: Text.charIndexToJsIndex(request.offset, request.text)
    };
  }

  /**
   * The rest of a suggestion in the editor as it is now (or as it was at `fallback` when the
   * editor cannot be read).
   */
  private _restFor(
    suggestion: Suggestion,
    context: IInlineCompletionContext,
    fallback: IEditorState
  ): string | null {
    return suggestion.rest(this._editorState(context) ?? fallback);
  }

  /**
   * Report a failure; return the error item to show, or nothing for a quiet cancellation.
   */
  private _failed(
    number: number,
    language: string | null,
    reason: unknown
  ): IInlineCompletionItem[] {
    const info: IErrorInfo =
      reason instanceof CompletionError
        ? reason.info
        : {
            type: 'client_error',
            title: this._trans.__('Completion failed'),
            message: reason instanceof Error ? reason.message : String(reason)
          };
    if (isQuietError(info)) {
      this._emit({ kind: 'cancelled', number, language });
      return [];
    }
    if (info.type === 'excluded') {
      // the user's or the administrator's setting, not a failure: said in the status item
      const path = this._paths.get(number);
      if (path) {
        this._excluded.set(path, { reason: info.message, until: Date.now() + EXCLUDED_RECHECK_MS });
      }
      this._emit({ kind: 'skipped', number, language, reason: 'excluded', detail: info.message });
      return [];
    }
    this._emit({ kind: 'failed', number, language, error: info });
    if (isBusyError(info)) {
      // a shared model asked for a pause: the status item says it once, no error per keystroke
      return [];
    }
    return [
      {
        insertText: '',
        error: { message: info.message ? `${info.title}: ${info.message}` : info.title }
      }
    ];
  }

  private _emit(activity: CodeCompleteProvider.IActivity): void {
    this._activity.emit(activity);
  }

  /**
   * Why the server excluded the document at `path` (within the last minute), or null.
   */
  private _excludedReason(path: string | null): string | null {
    const found = path ? this._excluded.get(path) : undefined;
    if (!found) {
      return null;
    }
    if (Date.now() > found.until) {
      this._excluded.delete(path!);
      return null;
    }
    return found.reason;
  }

  private _noteShown(suggestion: Suggestion, rest: string, language: string | null): void {
    const trigger = this._triggers.get(suggestion.number) ?? 'typing';
    this.lifecycle.show({ suggestion, rest, language, trigger }, suggestion.number);
  }

  private _client: ICompletionClient;
  // the documents the server excluded, and until when that answer is trusted; each request's path
  private _excluded = new Map<string, { reason: string; until: number }>();
  private _paths = new Map<number, string>();
  private _getSettings: () => ISettings;
  private _resolveLanguage: (
    mime: string | null,
    context?: IInlineCompletionContext
  ) => string | null;
  private _collectCells: (context: IInlineCompletionContext) => CodeCompleteProvider.ICells | null;
  private _recentEdits: ((context: IInlineCompletionContext) => IRecentEdit[]) | null;
  private _collectDocuments: (context: IInlineCompletionContext) => IContextFile[];
  private _kernelCandidates: NonNullable<CodeCompleteProvider.IOptions['kernelCandidates']>;
  private _restrain: CodeCompleteProvider.IOptions['restrain'] | null;
  private _trans: ReturnType<ITranslator['load']>;
  private _editorState: (context: IInlineCompletionContext) => IEditorState | null;
  private _lastLanguage: string | null = null;
  private _latest: number | null = null;
  private _freshLine: { text: string; until: number } | null = null;
  private _recent = new RecentSuggestions();
  private _prefetch = new Prefetcher({
    send: state => this._sendPrefetch(state),
    cancel: number => this._client.cancel(number),
    delay: () => this._prefetchDelay()
  });
  private _prefetchDelay: () => number;
  private _prefetchFor: {
    mimeType: string | undefined;
    context: IInlineCompletionContext;
    language: string | null;
  } | null = null;
  private _settingsSeen: ISettings | null = null;
  private _generation = 0;
  private _tokens = 0;
  private _views = new Map<
    string,
    {
      suggestion: Suggestion;
      context: IInlineCompletionContext;
      state: IEditorState;
      generation: number;
      language: string | null;
    }
  >();
  private _activity = new Signal<this, CodeCompleteProvider.IActivity>(this);
  // the latest request's, for a prefetch after its suggestion is complete
  private _asked: {
    number: number;
    request: CompletionHandler.IRequest;
    context: IInlineCompletionContext;
    language: string | null;
  } | null = null;
  private _triggers = new Map<number, CodeCompleteProvider.IShown['trigger']>();
}

/**
 * A namespace for CodeCompleteProvider statics.
 */
export namespace CodeCompleteProvider {
  /**
   * The cells of the notebook around the cursor.
   */
  export interface ICells {
    cells: ICellInfo[];
    activeIndex: number;
    cellId: string | null;
  }

  /**
   * Options to create the provider.
   */
  export interface IOptions {
    /**
     * The websocket client.
     */
    client: ICompletionClient;
    /**
     * The current settings.
     */
    settings: () => ISettings;
    /**
     * The language of an editor MIME type (default: a built-in table).
     */
    resolveLanguage?: (mime: string | null, context?: IInlineCompletionContext) => string | null;
    /**
     * The notebook cells around the cursor, or null outside a notebook.
     */
    collectCells?: (context: IInlineCompletionContext) => ICells | null;
    /**
     * Other open documents (only read when the settings allow them).
     */
    collectDocuments?: (context: IInlineCompletionContext) => IContextFile[];
    /**
     * The editor's text and cursor now (for typing through a suggestion while it streams);
     * without it, the text of the request is used.
     */
    editorState?: (context: IInlineCompletionContext) => IEditorState | null;
    /**
     * What the kernel completes at the cursor (only called when the settings allow it).
     */
    kernelCandidates?: (
      request: CompletionHandler.IRequest,
      context: IInlineCompletionContext,
      language: string | null
    ) => IKernelCandidates | null | Promise<IKernelCandidates | null>;
    /**
     * The user's recent edits of the document (only when the server's hello lists
     * `edit_history`: an empty list otherwise).
     */
    recentEdits?: (context: IInlineCompletionContext) => IRecentEdit[];
    /**
     * Restraint for an automatic request: resolves (after any extra wait) with why it is
     * skipped, or null to send it. Never called for the user's own Alt+\\.
     */
    restrain?: (request: {
      state: IEditorState;
      freshLine: boolean;
      language: string | null;
    }) => string | null | Promise<string | null>;
    translator?: ITranslator;
    /**
     * How long (ms) a finished suggestion stays shown, untouched, before what follows accepting
     * it is asked for (default: the debounce).
     */
    prefetchDelay?: () => number;
  }

  /**
   * A suggestion answered to the editor: `rest` is what its ghost text shows now.
   */
  export interface IShown {
    suggestion: Suggestion;
    rest: string;
    language: string | null;
    /**
     * How the request that made it was asked for.
     */
    trigger: 'typing' | 'fresh_line' | 'manual';
  }

  /**
   * What happened to a request.
   */
  export interface IActivity {
    /**
     * `reused`: answered from a suggestion already seen (typing through it), no request;
     * `shown`: the request's first text arrived (its time to show ends here).
     */
    kind: 'started' | 'shown' | 'succeeded' | 'failed' | 'cancelled' | 'skipped' | 'reused';
    number: number;
    language: string | null;
    error?: IErrorInfo;
    /**
     * Why a request was skipped by the settings: completions off everywhere, off for the
     * language, or automatic requests off (only when requested); or held back by restraint.
     */
    reason?: 'disabled' | 'language-off' | 'manual-only' | 'restrained' | 'excluded';
    /**
     * For `excluded`: the server's reason ("excluded by .codecompleteignore").
     */
    detail?: string;
    /**
     * Whether the user asked for this one explicitly.
     */
    manual?: boolean;
  }
}

namespace Private {
  /**
   * The `recent_edits` field of a request: present only when there are some.
   */
  export function recentEdits(edits: IRecentEdit[] | null | undefined): {
    recent_edits?: IRecentEdit[];
  } {
    return edits && edits.length ? { recent_edits: edits } : {};
  }

  /**
   * Fill a (prefetched) suggestion from its request; any failure (a superseded prefetch
   * included) marks it failed, so it is never shown.
   */
  export async function fill(
    suggestion: Suggestion,
    pending: ReturnType<ICompletionClient['request']>,
    stream: boolean
  ): Promise<void> {
    try {
      const reply = await pending.reply;
      const items = reply.list.items;
      const streamed = items.find(item => item.isIncomplete && item.token);
      if (stream && streamed && pending.chunks) {
        for await (const chunk of pending.chunks) {
          suggestion.update(chunk.response.insertText, chunk.done);
          if (chunk.done) {
            break;
          }
        }
      }
      suggestion.update(stream ? suggestion.text : (items[0]?.insertText ?? ''), true);
    } catch (reason) {
      suggestion.update(suggestion.text, true, String(reason));
    }
  }

  /**
   * The path of the document being edited.
   */
  export function pathOf(context: IInlineCompletionContext): string | null {
    const widget = context.widget as unknown as {
      context?: { path?: string };
    };
    const docPath = widget?.context?.path;
    if (typeof docPath === 'string' && docPath) {
      return docPath;
    }
    return context.session?.path ?? null;
  }

  /**
   * Whether the editor (read now) has moved on from the state a request was made in: same
   * document and cell, other text or cursor.
   */
  export function stale(live: IEditorState | null, asked: IEditorState): boolean {
    return (
      live !== null &&
      live.key === asked.key &&
      (live.text !== asked.text || live.offset !== asked.offset)
    );
  }
}
