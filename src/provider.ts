/**
 * The inline completion provider: turns JupyterLab's request into a numbered websocket
 * request, and the server's reply or stream into ghost text.
 */
import {
  CompletionHandler,
  IInlineCompletionContext,
  IInlineCompletionItem,
  IInlineCompletionList,
  IInlineCompletionProvider,
  InlineCompletionTriggerKind
} from '@jupyterlab/completer';
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
} from './context';
import { codeCompleteIcon } from './icon';
import {
  IContextFile,
  IErrorInfo,
  IInlineCompletionReply,
  IKernelCandidates,
  IRequestBody,
  IStreamChunk,
  isQuietError
} from './protocol';
import { isLanguageEnabled, ISettings } from './settings';
import { CompletionError } from './socket';

/**
 * The provider identifier (also the key of its settings in the inline completer).
 */
export const PROVIDER_ID = 'jupyter-codecomplete';

/**
 * The part of the socket client the provider uses.
 */
export interface ICompletionClient {
  request(body: IRequestBody): {
    number: number;
    reply: Promise<IInlineCompletionReply>;
    chunks: AsyncIterable<IStreamChunk> | null;
  };
  cancel(number: number): void;
  readonly hello: { max_message_bytes: number } | null;
}

/**
 * The provider.
 */
export class CodeCompleteProvider implements IInlineCompletionProvider {
  readonly identifier = PROVIDER_ID;
  readonly icon: LabIcon.ILabIcon = codeCompleteIcon;

  constructor(options: CodeCompleteProvider.IOptions) {
    this._client = options.client;
    this._getSettings = options.settings;
    this._resolveLanguage = options.resolveLanguage ?? (mime => languageFromMime(mime));
    this._collectCells = options.collectCells ?? (() => null);
    this._collectDocuments = options.collectDocuments ?? (() => []);
    this._kernelCandidates = options.kernelCandidates ?? (() => null);
    this._trans = (options.translator ?? nullTranslator).load('jupyter_codecomplete');
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
        debouncerDelay: 200,
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
      ...(options.kernel && settings.kernelCandidates
        ? { kernel_candidates: options.kernel }
        : {})
    };
  }

  /**
   * The next explicit ("invoke") request for exactly this text comes from the fresh-line
   * trigger: treat it as automatic (settings, streaming mode, the `trigger` sent).
   */
  expectFreshLine(text: string): void {
    this._freshLine = { text, until: Date.now() + 10000 };
  }

  /**
   * Stop the latest request (the user dismissed its suggestion).
   */
  cancelLatest(): void {
    if (this._latest !== null) {
      this._client.cancel(this._latest);
      this._latest = null;
    }
  }

  async fetch(
    request: CompletionHandler.IRequest,
    context: IInlineCompletionContext
  ): Promise<IInlineCompletionList<IInlineCompletionItem>> {
    const settings = this._getSettings();
    const fresh = this._freshLine;
    const freshLine =
      fresh !== null && fresh.text === request.text && Date.now() < fresh.until;
    this._freshLine = null;
    const manual =
      context.triggerKind === InlineCompletionTriggerKind.Invoke && !freshLine;
    const language = this._resolveLanguage(request.mimeType ?? null, context);
    this._lastLanguage = language;
    if (
      !settings.enabled ||
      (settings.trigger === 'manual' && !manual) ||
      !isLanguageEnabled(settings, language)
    ) {
      this._emit({ kind: 'skipped', number: -1, language });
      return { items: [] };
    }
    const stream =
      settings.streaming === 'always' ||
      (settings.streaming === 'manual' && manual);
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
    const pending = this._client.request(body);
    const number = pending.number;
    this._latest = number;
    this._emit({ kind: 'started', number, language });
    let reply: IInlineCompletionReply;
    try {
      reply = await pending.reply;
    } catch (reason) {
      return { items: this._failed(number, language, reason) };
    }
    const items = reply.list.items;
    const streamed = items.find(item => item.isIncomplete && item.token);
    if (stream && streamed && pending.chunks) {
      this._streams.set(streamed.token!, {
        number,
        language,
        chunks: pending.chunks
      });
      return {
        items: [
          {
            insertText: streamed.insertText,
            isIncomplete: true,
            token: streamed.token!
          }
        ]
      };
    }
    this._emit({ kind: 'succeeded', number, language });
    return {
      items: items
        .filter(item => item.insertText)
        .map(item => ({ insertText: item.insertText, isIncomplete: false }))
    };
  }

  /**
   * Yield the whole suggestion so far each time a chunk arrives, until the stream is done.
   */
  async *stream(
    token: string
  ): AsyncGenerator<{ response: IInlineCompletionItem }, undefined, unknown> {
    const entry = this._streams.get(token);
    if (!entry) {
      return;
    }
    this._streams.delete(token);
    let text = '';
    try {
      for await (const chunk of entry.chunks) {
        text = chunk.response.insertText;
        yield {
          response: { insertText: text, isIncomplete: !chunk.done }
        };
        if (chunk.done) {
          break;
        }
      }
    } catch (reason) {
      const items = this._failed(entry.number, entry.language, reason);
      if (items.length) {
        yield { response: { insertText: text, error: items[0].error } };
      }
      return;
    }
    this._emit({ kind: 'succeeded', number: entry.number, language: entry.language });
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
    this._emit({ kind: 'failed', number, language, error: info });
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

  private _client: ICompletionClient;
  private _getSettings: () => ISettings;
  private _resolveLanguage: (
    mime: string | null,
    context?: IInlineCompletionContext
  ) => string | null;
  private _collectCells: (context: IInlineCompletionContext) => CodeCompleteProvider.ICells | null;
  private _collectDocuments: (context: IInlineCompletionContext) => IContextFile[];
  private _kernelCandidates: NonNullable<CodeCompleteProvider.IOptions['kernelCandidates']>;
  private _trans: ReturnType<ITranslator['load']>;
  private _lastLanguage: string | null = null;
  private _latest: number | null = null;
  private _freshLine: { text: string; until: number } | null = null;
  private _streams = new Map<
    string,
    { number: number; language: string | null; chunks: AsyncIterable<IStreamChunk> }
  >();
  private _activity = new Signal<this, CodeCompleteProvider.IActivity>(this);
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
    resolveLanguage?: (
      mime: string | null,
      context?: IInlineCompletionContext
    ) => string | null;
    /**
     * The notebook cells around the cursor, or null outside a notebook.
     */
    collectCells?: (context: IInlineCompletionContext) => ICells | null;
    /**
     * Other open documents (only read when the settings allow them).
     */
    collectDocuments?: (context: IInlineCompletionContext) => IContextFile[];
    /**
     * What the kernel completes at the cursor (only called when the settings allow it).
     */
    kernelCandidates?: (
      request: CompletionHandler.IRequest,
      context: IInlineCompletionContext,
      language: string | null
    ) => IKernelCandidates | null | Promise<IKernelCandidates | null>;
    translator?: ITranslator;
  }

  /**
   * What happened to a request.
   */
  export interface IActivity {
    kind: 'started' | 'succeeded' | 'failed' | 'cancelled' | 'skipped';
    number: number;
    language: string | null;
    error?: IErrorInfo;
  }
}

namespace Private {
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
}
