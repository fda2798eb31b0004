/**
 * The suggestion after an accept (issue 29). Once a suggestion has been shown whole, the
 * completion that would follow accepting it is asked for at once (as llama.vscode does), so
 * that after Tab the next ghost text is there without the debounce or the model's wait; and
 * after an accept the inline completer is asked again at once instead of after the debounce.
 *
 * The prefetch waits for the user to pause on the shown suggestion (the debounce: while they type
 * on, nothing is asked), so it costs a model request only where an accept is likely.
 * One prefetch at a time: a newer one cancels the older (the server also supersedes it with the
 * user's next request, so typing instead of accepting stops it at the model). Its answer is kept
 * in one slot and used only in exactly the editor state accepting puts the cursor in.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { IDisposable } from '@lumino/disposable';

import { editorState } from './editorstate';
import type { IHelloMessage } from '../connection/protocol';
import type { SuggestionLifecycle } from '../lifecycle/lifecycle';
import { ISettings } from '../settings';
import { IEditorState, Suggestion } from './typing';

/**
 * JupyterLab's command that accepts the whole ghost text (Tab).
 */
export const ACCEPT_COMMAND = 'inline-completer:accept';

/**
 * The editor state once `suggestion` is accepted whole: its text inserted at the cursor, the
 * cursor after it.
 */
export function acceptedState(suggestion: Suggestion): IEditorState {
  const before = suggestion.before + suggestion.text;
  return { key: suggestion.key, text: before + suggestion.after, offset: before.length };
}

/**
 * Whether the server may be asked ahead for a request of this MIME type and language: the model
 * that serves its route is one the server warms (on this machine, a private network, in-process;
 * never a paid API), as the hello says per route (`warm_routes`) and for the default (`warm`).
 */
export function mayPrefetch(
  hello: Pick<IHelloMessage, 'warm' | 'warm_routes'> | null | undefined,
  mimeType: string | null | undefined,
  language: string | null | undefined
): boolean {
  const routes = hello?.warm_routes ?? {};
  const keys = Object.keys(routes);
  for (const wanted of [mimeType, language]) {
    const key = wanted ? keys.find(k => k.toLowerCase() === wanted.toLowerCase()) : undefined;
    if (key !== undefined) {
      return routes[key] === true;
    }
  }
  return hello?.warm === true;
}

/**
 * Whether the completion after a suggestion is worth asking for: a finished, non-blank
 * suggestion without error, automatic suggestions on.
 */
export function shouldPrefetch(suggestion: Suggestion, settings: ISettings): boolean {
  return (
    settings.enabled &&
    settings.suggestAfterAccept &&
    settings.trigger === 'auto' &&
    suggestion.done &&
    suggestion.error === null &&
    suggestion.text.trim().length > 0
  );
}

/**
 * Whether `state` is exactly where accepting `suggestion` put the cursor.
 */
export function isAcceptedState(state: IEditorState, accepted: IEditorState): boolean {
  return (
    state.key === accepted.key && state.offset === accepted.offset && state.text === accepted.text
  );
}

/**
 * One prefetched suggestion at a time.
 */
export class Prefetcher {
  constructor(options: Prefetcher.IOptions) {
    this._send = options.send;
    this._cancel = options.cancel;
    this._delay = options.delay ?? (() => 0);
  }

  /**
   * The suggestion now in the slot (for tests and the status), or null.
   */
  get pending(): Suggestion | null {
    return this._slot?.suggestion ?? null;
  }

  /**
   * Ask for what follows accepting `shown` (a finished suggestion the user sees); an older
   * prefetch still running is cancelled.
   */
  start(shown: Suggestion): void {
    this.clear();
    const delay = this._delay();
    if (delay > 0) {
      this._timer = setTimeout(() => {
        this._timer = null;
        this._sendNow(shown);
      }, delay);
      return;
    }
    this._sendNow(shown);
  }

  private _sendNow(shown: Suggestion): void {
    const state = acceptedState(shown);
    const suggestion = this._send(state);
    if (suggestion) {
      this._slot = { state, suggestion };
    }
  }

  /**
   * The prefetched suggestion for this editor state (taken once), or null.
   */
  take(state: IEditorState): Suggestion | null {
    const slot = this._slot;
    if (!slot || !isAcceptedState(state, slot.state) || slot.suggestion.error !== null) {
      return null;
    }
    this._slot = null;
    return slot.suggestion;
  }

  /**
   * Forget the slot; a prefetch still running is cancelled (unless `cancel` is false: a newer
   * request on the socket supersedes it anyway).
   */
  clear(cancel = true): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    const slot = this._slot;
    this._slot = null;
    if (cancel && slot && !slot.suggestion.done) {
      this._cancel(slot.suggestion.number);
    }
  }

  private _send: Prefetcher.IOptions['send'];
  private _cancel: Prefetcher.IOptions['cancel'];
  private _delay: () => number;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _slot: { state: IEditorState; suggestion: Suggestion } | null = null;
}

/**
 * A namespace for Prefetcher statics.
 */
export namespace Prefetcher {
  export interface IOptions {
    /**
     * Ask for a suggestion in this editor state; the suggestion it fills, or null when not sent.
     */
    send: (state: IEditorState) => Suggestion | null;
    /**
     * Cancel a request by number.
     */
    cancel: (number: number) => void;
    /**
     * How long (ms) the suggestion must stay shown, the editor untouched, before the prefetch
     * is sent (default 0: at once).
     */
    delay?: () => number;
  }
}

/**
 * After Tab accepts a suggestion, ask the inline completer again at once (not after its
 * debounce): the request is marked automatic, and answered from the prefetched suggestion when
 * it is there. Dispose to undo.
 */
export function registerAcceptFollowUp(options: {
  app: JupyterFrontEnd;
  manager: ICompletionProviderManager;
  /**
   * The inline suggestions' lifecycle (the provider's): an accepted suggestion's end.
   */
  lifecycle: Pick<SuggestionLifecycle<unknown>, 'ended'>;
  /**
   * Mark the next explicit request for this text as automatic (the provider's).
   */
  expectAutomatic: (text: string) => void;
  settings: () => ISettings;
}): IDisposable {
  const { app, manager, lifecycle, expectAutomatic, settings } = options;
  const followUp = (_: unknown, { reason }: SuggestionLifecycle.IEnded) => {
    const s = settings();
    if (reason !== 'accepted' || !s.enabled || !s.suggestAfterAccept || s.trigger !== 'auto') {
      return;
    }
    // after the editor has taken the accepted text
    window.setTimeout(() => askAgain(app, manager, expectAutomatic), 0);
  };
  lifecycle.ended.connect(followUp);
  let disposed = false;
  return {
    get isDisposed() {
      return disposed;
    },
    dispose() {
      if (!disposed) {
        disposed = true;
        lifecycle.ended.disconnect(followUp);
      }
    }
  };
}

/**
 * Ask the inline completer for a suggestion at the cursor now, as an automatic request.
 */
export function askAgain(
  app: JupyterFrontEnd,
  manager: ICompletionProviderManager,
  expectAutomatic: (text: string) => void
): void {
  const widget = app.shell.currentWidget;
  const state = editorState(widget);
  if (widget && state && manager.inline) {
    expectAutomatic(state.text);
    manager.inline.invoke(widget.id);
  }
}
