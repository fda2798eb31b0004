/**
 * The status of completions (model, state, last error) and the widget that shows it in the
 * status bar (JupyterLab) or a toolbar (Notebook 7).
 */
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';
import { ISignal, Signal } from '@lumino/signaling';
import { Menu, Widget } from '@lumino/widgets';

import { codeCompleteIcon } from './icon';
import {
  busySeconds,
  IErrorInfo,
  IServingModel,
  isBusyError,
  isQuietError
} from '../connection/protocol';
import { SlowModelWatch } from './slowness';
import type { IEngineInstall } from '../models/models';
import type { CompletionSocket } from '../connection/socket';
import type { ICodeCompleteProvider, ICodeCompleteStatus } from '../tokens';

/**
 * What the status item shows.
 */
export type StatusState =
  | 'idle'
  | 'working'
  | 'disabled'
  | 'provider-off'
  | 'language-off'
  | 'excluded'
  | 'error'
  | 'offline'
  | 'busy';

/**
 * The status of completions, fed by the settings, the socket and the provider.
 */
export class StatusModel implements ICodeCompleteStatus {
  constructor(options: StatusModel.IOptions = {}) {
    this._trans = (options.translator ?? nullTranslator).load('jupyter_codecomplete');
  }

  /**
   * Emitted when anything shown changes.
   */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get state(): StatusState {
    if (!this._fromSettings.enabled) {
      return 'disabled';
    }
    if (!this._fromSettings.providerEnabled) {
      return 'provider-off';
    }
    if (this._fromSettings.languageOff) {
      return 'language-off';
    }
    if (this._excluded !== null) {
      return 'excluded';
    }
    if (this._connection === 'disconnected') {
      return 'offline';
    }
    if (this._busyUntil > Date.now()) {
      return 'busy';
    }
    if (this._lastError || this._model?.problem) {
      return 'error';
    }
    if (this._active.size > 0) {
      return 'working';
    }
    return 'idle';
  }

  /**
   * The serving model's name (the part of the status item that may be shortened).
   */
  get name(): string {
    return this._model ? this._model.name : this._trans.__('Code Completion');
  }

  /**
   * What the item must always show in full after the name, or '': that the demo model serves,
   * that completions are off for the editor's language or everywhere.
   */
  get note(): string {
    const parts: string[] = [];
    if (this._model?.demo) {
      parts.push(this._trans.__('(demo)'));
    }
    const install = this._install;
    if (install?.state === 'running') {
      parts.push(
        install.progress !== null
          ? this._trans.__('· building llama.cpp %1%', Math.round(install.progress * 100))
          : this._trans.__('· installing llama.cpp')
      );
    }
    switch (this.state) {
      case 'language-off':
        parts.push(this._trans.__('· off for %1', this._fromSettings.languageOff!));
        break;
      case 'disabled':
        parts.push(this._trans.__('· off'));
        break;
      case 'provider-off':
        parts.push(this._trans.__('· provider off'));
        break;
      case 'excluded':
        parts.push(this._trans.__('· excluded'));
        break;
      case 'busy':
        parts.push(this._trans.__('· model busy, retrying in %1 s', this._busySeconds));
        break;
      default:
        if (this._slowShown) {
          parts.push(this._trans.__('· slow'));
        }
    }
    return parts.join(' ');
  }

  /**
   * The short text: the name, and the note when there is one.
   */
  get label(): string {
    const note = this.note;
    return note ? `${this.name} ${note}` : this.name;
  }

  /**
   * The hover text.
   */
  get message(): string {
    let model = this._model
      ? this._trans.__('Model: %1 (%2)', this._model.name, this._model.backend)
      : this._trans.__('Model: not known yet');
    if (this._model?.reported && this._model.reported !== this._model.name) {
      model += '\n' + this._trans.__('The server reports: %1', this._model.reported);
    }
    if (this._model?.style) {
      model += '\n' + this._trans.__('Prompt style: %1', this._model.style);
    }
    if (this._model?.notice) {
      model += '\n' + this._model.notice;
    }
    const slow = this._slow.slowMedian;
    if (slow !== null) {
      model +=
        '\n' +
        this._trans.__(
          "Suggestions take %1 s to appear (median of the last ones). What helps: a smaller model (Qwen2.5-Coder 0.5B or 1.5B), offloading it to the GPU (the model server's GPU layers setting), a warm model server (Settings → Code Completion → Warm the model server), or llama.cpp with a small draft model for speculative decoding (see Performance in the documentation).",
          (slow / 1000).toFixed(1)
        );
    }
    const install = this._install;
    if (install && install.state !== 'idle') {
      const seconds = Math.round(install.seconds ?? 0);
      model +=
        '\n' +
        (install.state === 'running'
          ? this._trans.__(
              'Installing the llama.cpp engine in the background (%1 s so far; it %2).',
              seconds,
              install.cost
            )
          : install.state === 'done'
            ? this._trans.__('The llama.cpp engine is installed (in %1 s).', seconds)
            : this._trans.__(
                'Installing the llama.cpp engine did not finish: %1',
                install.last_line ?? install.state
              ));
    }
    if (this._model?.demo) {
      model +=
        '\n' +
        this._trans.__(
          'This is the tiny bundled demo model: it shows the mechanics, not useful suggestions. Choose a real code model: click, then "Choose Model…".'
        );
    }
    switch (this.state) {
      case 'disabled':
        return this._trans.__(
          'Code completions are off everywhere. Click for the menu, then "Enable Code Completions".'
        );
      case 'provider-off':
        return this._trans.__(
          'Our provider is switched off in the Inline Completer settings (Settings → Settings Editor → Inline Completer, "Code Completion"): no suggestions come from it. Switch it on there.\n%1',
          model
        );
      case 'language-off':
        return this._trans.__(
          'Code completions are off for %1. Click for the menu, then "Enable Code Completions for %1".\n%2',
          this._fromSettings.languageOff!,
          model
        );
      case 'excluded':
        return this._trans.__(
          'No code suggestions for this document: %1. Nothing of it is sent to any model (see Privacy in the documentation).\n%2',
          this._excluded!,
          model
        );
      case 'offline':
        return this._trans
          .__('The completion server is not reachable; reconnecting. %1', this._offlineDetail)
          .trim();
      case 'error': {
        const e = this._lastError;
        if (!e) {
          // the server's own check: the model's server did not answer
          return this._trans.__('Not ready: %1\n%2', this._model!.problem!, model);
        }
        return this._trans.__('Completion error: %1 — %2\n%3', e.title, e.message, model);
      }
      case 'busy':
        return this._trans.__(
          'The shared model service asked for a pause (%1): no requests reach it for %2 s, in any of your tabs; suggestions come again afterwards.\n%3',
          this._busyError?.message ?? '',
          this._busySeconds,
          model
        );
      case 'working':
        return this._trans.__('Completing…\n%1', model);
      default:
        return this._trans.__('Code completions are ready.\n%1', model);
    }
  }

  get enabled(): boolean {
    return this._fromSettings.enabled;
  }
  set enabled(value: boolean) {
    this._update('enabled', value);
  }

  /**
   * The display name of the current editor's language when completions are off for it, else null.
   */
  get languageOff(): string | null {
    return this._fromSettings.languageOff;
  }
  set languageOff(value: string | null) {
    this._update('languageOff', value);
  }

  /**
   * Whether our provider is on in JupyterLab's Inline Completer settings (the docs' recipe for
   * living beside jupyter-ai or notebook-intelligence switches it off there).
   */
  get providerEnabled(): boolean {
    return this._fromSettings.providerEnabled;
  }
  set providerEnabled(value: boolean) {
    this._update('providerEnabled', value);
  }

  /**
   * Set what the settings say; `changed` only when it changes.
   */
  private _update<K extends keyof Private.IFromSettings>(
    key: K,
    value: Private.IFromSettings[K]
  ): void {
    if (value !== this._fromSettings[key]) {
      this._fromSettings[key] = value;
      this._changed.emit();
    }
  }

  get model(): IServingModel | null {
    return this._model;
  }
  set model(value: IServingModel | null) {
    if (value?.name !== this._model?.name || value?.backend !== this._model?.backend) {
      this._slow = new SlowModelWatch(); // another model: judged afresh
      this._slowShown = false;
    }
    this._model = value;
    this._changed.emit();
  }

  /**
   * The user switched models (Choose Model… → Use): the new model's state replaces the old
   * one's error at once, not at the next completion.
   */
  switched(model: IServingModel): void {
    this._lastError = null;
    this.model = model;
  }

  engineInstall(state: IEngineInstall | null): void {
    this._install = state;
    this._changed.emit();
  }

  get lastError(): IErrorInfo | null {
    return this._lastError;
  }

  get connection(): CompletionSocket.State {
    return this._connection;
  }

  /**
   * Follow the socket's connection state.
   */
  setConnection(state: CompletionSocket.State, detail = ''): void {
    this._connection = state;
    this._offlineDetail = detail;
    if (state === 'connected') {
      // A fresh connection clears a stale "not reachable" error.
      if (this._lastError?.type === 'disconnected') {
        this._lastError = null;
      }
    }
    this._changed.emit();
  }

  /**
   * A request started.
   */
  started(number: number): void {
    this._requests += 1;
    this._active.add(number);
    this._startedAt.set(number, Date.now());
    if (this._startedAt.size > 64) {
      this._startedAt.delete(this._startedAt.keys().next().value!);
    }
    this._changed.emit();
  }

  /**
   * The first text of request `number` is shown: its time to show counts towards "too slow".
   */
  shown(number: number): void {
    const start = this._startedAt.get(number);
    this._startedAt.delete(number);
    if (start === undefined) {
      return;
    }
    if (this._slow.record(Date.now() - start)) {
      this._slowShown = true; // said once: the label until the next change of model
      this._changed.emit();
    }
  }

  /**
   * Follow the provider's requests through their signals: started, answered, shown, cancelled,
   * skipped (an excluded document says why), failed.
   */
  follow(provider: Pick<ICodeCompleteProvider, 'activity'>): void {
    provider.activity.connect((_, activity) => {
      switch (activity.kind) {
        case 'started':
          this.started(activity.number);
          break;
        case 'succeeded':
          this.succeeded(activity.number);
          break;
        case 'shown':
          this.shown(activity.number);
          break;
        case 'cancelled':
          this.failed(activity.number, null);
          break;
        case 'skipped':
          this.skipped(activity.reason === 'excluded' ? (activity.detail ?? '') : null);
          break;
        case 'failed':
          this.failed(activity.number, activity.error ?? null);
          break;
      }
    });
  }

  /**
   * A request was not sent (completions off for this trigger or language); `excluded`: the
   * server's reason when the document is excluded ("excluded by .codecompleteignore").
   */
  skipped(excluded: string | null = null): void {
    this._skipped += 1;
    this._excluded = excluded;
    this._changed.emit();
  }

  /**
   * Why the current document is excluded from suggestions, or null.
   */
  get excluded(): string | null {
    return this._excluded;
  }

  /**
   * How many requests were sent, and how many were skipped, since the page loaded.
   */
  get counts(): { requests: number; skipped: number } {
    return { requests: this._requests, skipped: this._skipped };
  }

  /**
   * A request ended well: the error state recovers by itself.
   */
  succeeded(number: number): void {
    this._active.delete(number);
    this._lastError = null;
    this._endBusy();
    this._excluded = null;
    this._changed.emit();
  }

  /**
   * A request ended with an error (quiet cancellations leave the state as it was).
   */
  failed(number: number, error: IErrorInfo | null): void {
    this._active.delete(number);
    if (isBusyError(error)) {
      this._busy(error!);
    } else if (error && !isQuietError(error)) {
      this._lastError = error;
    }
    this._changed.emit();
  }

  /**
   * A shared model asked for a pause: "model busy, retrying in N s" until it runs out (a later
   * reply of the same pause does not restart the count, it only lengthens it).
   */
  private _busy(error: IErrorInfo): void {
    const until = Date.now() + busySeconds(error) * 1000;
    if (until > this._busyUntil) {
      if (this._busyUntil <= Date.now()) {
        this._busySeconds = busySeconds(error); // the number said is the pause's when it began
      }
      this._busyUntil = until;
      this._busyError = error;
      clearTimeout(this._busyTimer);
      this._busyTimer = setTimeout(() => this._changed.emit(), until - Date.now() + 10);
    }
  }

  private _endBusy(): void {
    this._busyUntil = 0;
    this._busyError = null;
    clearTimeout(this._busyTimer);
  }

  /**
   * Whether a shared model's pause runs now.
   */
  get busy(): boolean {
    return this.state === 'busy';
  }

  private _trans: ReturnType<ITranslator['load']>;
  private _fromSettings: Private.IFromSettings = {
    enabled: true,
    languageOff: null,
    providerEnabled: true
  };
  private _model: IServingModel | null = null;
  private _lastError: IErrorInfo | null = null;
  private _busyUntil = 0;
  private _busySeconds = 0;
  private _busyError: IErrorInfo | null = null;
  private _busyTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private _excluded: string | null = null;
  private _connection: CompletionSocket.State = 'connecting';
  private _offlineDetail = '';
  private _active = new Set<number>();
  private _startedAt = new Map<number, number>();
  private _slow = new SlowModelWatch();
  private _slowShown = false;
  private _install: IEngineInstall | null = null;
  private _requests = 0;
  private _skipped = 0;
  private _changed = new Signal<this, void>(this);
}

/**
 * A namespace for StatusModel statics.
 */
export namespace StatusModel {
  export interface IOptions {
    translator?: ITranslator;
  }
}

/**
 * The status item: icon + model name; a click opens the menu of completion actions.
 */
export class StatusWidget extends Widget {
  constructor(options: StatusWidget.IOptions) {
    super({ node: document.createElement('div') });
    this._model = options.model;
    this._commands = options.commands;
    this._menuCommands = options.menuCommands;
    this.addClass('jp-CodeComplete-status');
    if (options.compact) {
      this.addClass('jp-CodeComplete-status-compact');
    }
    this.node.setAttribute('role', 'button');
    this.node.tabIndex = 0;
    const icon = document.createElement('span');
    icon.className = 'jp-CodeComplete-statusIcon';
    codeCompleteIcon.element({
      container: icon,
      tag: 'span',
      width: '16px',
      height: '16px'
    } as any);
    // the name may be shortened with an ellipsis; the note ("off for Python") never is
    this._label = document.createElement('span');
    this._label.className = 'jp-CodeComplete-statusLabel';
    this._note = document.createElement('span');
    this._note.className = 'jp-CodeComplete-statusNote';
    this.node.appendChild(icon);
    this.node.appendChild(this._label);
    this.node.appendChild(this._note);
    this._model.changed.connect(this._update, this);
    this._update();
  }

  handleEvent(event: Event): void {
    if (event.type === 'mousedown') {
      // Keep the focus where it is: a notebook cell in edit mode would otherwise turn to command
      // mode now, the status bar's "Mode: Edit" item would change its width, this item would
      // move under the pointer, and the click would land elsewhere (the menu not opening).
      event.preventDefault();
    } else if (event.type === 'click') {
      this.openMenu();
    } else if (
      event.type === 'keydown' &&
      ((event as KeyboardEvent).key === 'Enter' || (event as KeyboardEvent).key === ' ')
    ) {
      event.preventDefault();
      this.openMenu();
    }
  }

  /**
   * Open the menu of actions under (or above) the item.
   */
  openMenu(): void {
    const menu = new Menu({ commands: this._commands });
    menu.addClass('jp-CodeComplete-menu');
    for (const command of this._menuCommands) {
      if (command === '-') {
        menu.addItem({ type: 'separator' });
      } else {
        menu.addItem({ command });
      }
    }
    // Where the focus was (the editor being edited; this item when opened with the keyboard):
    // it goes back there when the menu closes, unless a command sent it elsewhere. Without
    // this, a closed menu leaves the focus on <body> and typing goes nowhere (Notebook 7).
    const previous = document.activeElement as HTMLElement | null;
    const rect = this.node.getBoundingClientRect();
    menu.aboutToClose.connect(() => {
      // now, before the menu leaves the page (a key pressed right after must reach the editor);
      // a command the menu runs comes after this and may move the focus on
      const now = document.activeElement;
      if (
        previous &&
        previous !== document.body &&
        previous.isConnected &&
        (now === null || now === document.body || menu.node.contains(now))
      ) {
        previous.focus();
      }
      setTimeout(() => menu.dispose(), 0);
    });
    menu.open(rect.left, rect.bottom);
  }

  protected onAfterAttach(): void {
    this.node.addEventListener('mousedown', this);
    this.node.addEventListener('click', this);
    this.node.addEventListener('keydown', this);
  }

  protected onBeforeDetach(): void {
    this.node.removeEventListener('mousedown', this);
    this.node.removeEventListener('click', this);
    this.node.removeEventListener('keydown', this);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.changed.disconnect(this._update, this);
    super.dispose();
  }

  private _update(): void {
    const state = this._model.state;
    this.node.dataset.state = state;
    // Counters let UI tests wait for a decision instead of waiting for time to pass.
    const counts = this._model.counts;
    this.node.dataset.requests = String(counts.requests);
    this.node.dataset.skipped = String(counts.skipped);
    this._label.textContent = this._model.name;
    const note = this._model.note;
    this._note.textContent = note;
    this._note.hidden = !note;
    this.node.title = this._model.message;
    this.node.setAttribute('aria-label', this._model.message);
  }

  private _model: ICodeCompleteStatus;
  private _commands: CommandRegistry;
  private _menuCommands: string[];
  private _label: HTMLSpanElement;
  private _note: HTMLSpanElement;
}

/**
 * A namespace for StatusWidget statics.
 */
export namespace StatusWidget {
  export interface IOptions {
    /**
     * What the item shows.
     */
    model: ICodeCompleteStatus;
    commands: CommandRegistry;
    /**
     * Command ids of the menu; '-' is a separator.
     */
    menuCommands: string[];
    /**
     * Toolbar form (Notebook 7).
     */
    compact?: boolean;
  }
}

namespace Private {
  /**
   * What the status shows from the settings.
   */
  export interface IFromSettings {
    /**
     * Completions on.
     */
    enabled: boolean;
    /**
     * The display name of the current editor's language when completions are off for it.
     */
    languageOff: string | null;
    /**
     * Our provider on in the Inline Completer settings.
     */
    providerEnabled: boolean;
  }
}
