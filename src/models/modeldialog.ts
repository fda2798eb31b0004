/**
 * The "Choose Model…" dialog: sections Detected, On this computer, Download and Custom. Each row shows
 * size, prompt style, fill-in-the-middle, license and where it runs, with Test (time to first token,
 * tokens/s), Use and Use for edits (the model of edit predictions, with the format it is asked in);
 * catalogue rows download with a cancellable progress bar. The server validates,
 * probes and switches; the status item is told at once.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { ITranslator, nullTranslator, TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import {
  formatBytes,
  ICustomEndpoint,
  IDownload,
  IEngineInstall,
  IModelEntry,
  IModelListing,
  IProbeReport,
  ModelsClient,
  ModelsError,
  needsLlamaCpp
} from './models';
import { IServingModel } from '../connection/protocol';

/**
 * The body of the dialog.
 */
export class ModelChooser extends Widget {
  constructor(options: ModelChooser.IOptions) {
    super();
    this.addClass('jp-CodeComplete-chooser');
    this._client = options.client;
    this._onSwitched = options.onSwitched;
    this._onEngineInstall = options.onEngineInstall ?? (() => undefined);
    this._trans = (options.translator ?? nullTranslator).load('jupyter_codecomplete');
    this._message = document.createElement('div');
    this._message.className = 'jp-CodeComplete-chooserMessage';
    this._message.setAttribute('role', 'status');
    this._sections = document.createElement('div');
    this.node.append(this._message, this._sections);
    this._sections.textContent = this._trans.__('Looking for models…');
    void this.refresh();
  }

  /**
   * Reload the list from the server.
   */
  async refresh(): Promise<void> {
    try {
      this._listing = await this._client.list(true);
    } catch (reason) {
      this._say(this._errorText(reason), true);
      return;
    }
    this._render();
  }

  private _render(): void {
    const listing = this._listing!;
    const trans = this._trans;
    this._sections.textContent = '';
    if (!listing.policy.allow_user_choice) {
      this._say(trans.__('Your administrator has fixed the model; choices are locked.'), false);
    }
    if (listing.warnings && listing.warnings.length > 0) {
      // what is wrong with the saved store (a skipped entry, a saved choice that does not apply)
      this._say(listing.warnings.join(' '), true);
    }
    const groups: [string, string, IModelEntry[]][] = [
      ['detected', trans.__('Detected'), listing.entries.filter(e => e.source === 'detected')],
      [
        'local',
        trans.__('On this computer'),
        listing.entries.filter(e => e.source === 'disk' || e.source === 'configured')
      ],
      ['download', trans.__('Download'), listing.entries.filter(e => e.source === 'catalogue')]
    ];
    for (const [key, title, rows] of groups) {
      const section = this._section(key, title);
      if (rows.length === 0) {
        const empty = document.createElement('div');
        empty.className = 'jp-CodeComplete-empty';
        empty.textContent =
          key === 'detected'
            ? trans.__('No local model server (Ollama, llama.cpp, LM Studio) answered.')
            : trans.__('Nothing here. %1', listing.offline_hint);
        section.append(empty);
      }
      for (const entry of rows) {
        section.append(this._row(entry));
      }
    }
    this._sections.append(this._customSection(listing));
  }

  private _section(key: string, title: string): HTMLElement {
    const section = document.createElement('section');
    section.className = 'jp-CodeComplete-section';
    section.dataset.section = key;
    const h = document.createElement('h3');
    h.textContent = title;
    section.append(h);
    this._sections.append(section);
    return section;
  }

  private _meta(entry: IModelEntry): string {
    const trans = this._trans;
    const parts = [
      formatBytes(entry.size_bytes),
      entry.style ? trans.__('style %1', entry.style) : '',
      entry.fim === null ? '' : entry.fim ? trans.__('FIM') : trans.__('no FIM'),
      entry.license ?? '',
      entry.memory_gb ? trans.__('needs ~%1 GB', entry.memory_gb) : '',
      entry.where
    ];
    return parts.filter(p => p).join(' · ');
  }

  private _row(entry: IModelEntry): HTMLElement {
    const trans = this._trans;
    const row = document.createElement('div');
    row.className = 'jp-CodeComplete-modelRow';
    row.dataset.id = entry.id;
    if (entry.active) {
      row.classList.add('jp-mod-active');
    }
    const text = document.createElement('div');
    text.className = 'jp-CodeComplete-modelText';
    const name = document.createElement('div');
    name.className = 'jp-CodeComplete-modelName';
    name.textContent = this._nameText(entry);
    if (entry.edit_active) {
      row.classList.add('jp-mod-editActive');
    }
    const meta = document.createElement('div');
    meta.className = 'jp-CodeComplete-modelMeta';
    meta.textContent = this._meta(entry);
    text.append(name, meta);
    if (entry.good_for) {
      const good = document.createElement('div');
      good.className = 'jp-CodeComplete-modelMeta';
      good.textContent = entry.good_for;
      text.append(good);
    }
    const result = Private.resultNode();
    text.append(result);
    const buttons = document.createElement('div');
    buttons.className = 'jp-CodeComplete-rowButtons';
    row.append(text, buttons);
    if (entry.locked) {
      row.title = entry.locked_reason ?? trans.__('Locked by your administrator');
      row.classList.add('jp-mod-locked');
    }
    const downloadable = entry.source === 'catalogue' && entry.status !== 'downloaded';
    if (downloadable) {
      const progress = document.createElement('progress');
      progress.className = 'jp-CodeComplete-progress';
      progress.max = 1;
      progress.hidden = true;
      text.append(progress);
      // a pull that stopped with bytes kept continues from them: Resume
      const kept = entry.partial_bytes ?? 0;
      const download = this._button(
        kept > 0 ? trans.__('Resume') : trans.__('Download'),
        'jp-CodeComplete-download',
        entry.locked
      );
      // Cancel only while a download runs (hidden and disabled otherwise)
      const cancel = this._button(trans.__('Cancel'), 'jp-CodeComplete-cancel', true);
      cancel.hidden = true;
      const parts = { entry, progress, download, cancel, result };
      download.onclick = () => void this._download(parts);
      cancel.onclick = () => {
        cancel.disabled = true;
        this._client.cancelDownload(entry.id).catch(reason => {
          this._answer(result, this._errorText(reason));
        });
      };
      buttons.append(download, cancel);
      if (kept > 0) {
        result.textContent = trans.__(
          '%1 of %2 kept from a pull that stopped: Resume continues from there.',
          formatBytes(kept) || '0 B',
          formatBytes(entry.size_bytes)
        );
      }
      const running = this._listing?.downloads.find(
        d => d.id === entry.id && d.state === 'running'
      );
      if (running) {
        void this._follow(parts);
      }
      return row;
    }
    const test = this._button(trans.__('Test'), 'jp-CodeComplete-test', entry.locked);
    test.onclick = () => void this._test(entry.id, result, test);
    const use = this._button(
      entry.active ? trans.__('In use') : trans.__('Use'),
      'jp-CodeComplete-use',
      entry.locked
    );
    use.onclick = () => void this._use('completions', entry.id, result, use);
    const forEdits = this._button(
      entry.edit_active ? trans.__('Serves edits') : trans.__('Use for edits'),
      'jp-CodeComplete-useForEdits',
      entry.locked
    );
    forEdits.title = this._editFormatText(entry.edit_style ?? null, entry.edit_native ?? null);
    forEdits.onclick = () => void this._use('edits', entry.id, result, forEdits);
    buttons.append(test, use, forEdits);
    return row;
  }

  /**
   * A row's name with what it is doing: "(in use)" on the row that serves, whatever its source
   * (the custom form's too), the saved choice when it differs, "(edits)".
   */
  private _nameText(entry: IModelEntry): string {
    const trans = this._trans;
    // the saved choice differs from what serves when it was changed elsewhere (a terminal's
    // `jupyter codecomplete models use`): say when it applies
    const saved = this._listing?.saved;
    const savedHere =
      !entry.active && !!saved && saved === entry.id && saved !== this._listing?.active;
    return (
      entry.name +
      (entry.active
        ? ' ' + trans.__('(in use)')
        : savedHere
          ? ' ' + trans.__('(saved choice: applies at the next start)')
          : '') +
      (entry.edit_active ? ' ' + trans.__('(edits)') : '')
    );
  }

  /**
   * Which format edit predictions ask a model in: its own next-edit format, or the generic one.
   */
  private _editFormatText(style: string | null, native: boolean | null): string {
    const trans = this._trans;
    if (!style) {
      return '';
    }
    return native
      ? trans.__('Edit predictions ask it in its next-edit format (%1).', style)
      : trans.__(
          'It has no next-edit format: edit predictions ask it in the generic format (%1).',
          style
        );
  }

  /**
   * Use a model for the suggestions, or for edit predictions.
   */
  private async _use(
    task: 'completions' | 'edits',
    id: string,
    result: HTMLElement,
    button: HTMLButtonElement,
    custom?: ICustomEndpoint
  ): Promise<void> {
    const trans = this._trans;
    const onError = (reason: unknown) => {
      if (needsLlamaCpp(reason)) {
        void this._offerEngine(result);
      }
    };
    await this._act(
      button,
      result,
      trans.__('Checking the model…'),
      async () => {
        let answer: string;
        if (task === 'edits') {
          const out = await this._client.useForEdits(id, custom);
          const serving: IServingModel = out.edit_serving;
          answer = trans.__(
            'Edit predictions now use %1. %2 %3',
            serving.name,
            this._editFormatText(serving.style ?? null, serving.native ?? null),
            this._reportText(out.report)
          );
        } else {
          const out = await this._client.use(id, custom);
          this._onSwitched(out.serving);
          answer = trans.__('Now using %1. %2', out.serving.name, this._reportText(out.report));
        }
        this._say(answer, false);
        await this.refresh();
        // the list was drawn again: the answer goes to the row that was clicked, in its new node
        this._answer(this._resultFor(id) ?? result, answer);
      },
      false,
      onError
    );
  }

  /**
   * Under a model that needs llama.cpp: what installing it costs, and a button that installs it
   * in the background, with its progress (the model can then be used without a restart).
   */
  private async _offerEngine(result: HTMLElement): Promise<void> {
    const trans = this._trans;
    let status: IEngineInstall;
    try {
      status = await this._client.engineStatus();
    } catch {
      return; // the error already shown says what to install
    }
    if (status.installed) {
      return;
    }
    const box = document.createElement('div');
    box.className = 'jp-CodeComplete-engineInstall';
    const note = document.createElement('span');
    note.textContent = trans.__('Installing the llama.cpp engine %1.', status.cost);
    const install = this._button(
      trans.__('Install llama.cpp'),
      'jp-CodeComplete-installEngine',
      false
    );
    const progress = document.createElement('progress');
    progress.max = 1;
    progress.hidden = true;
    const state = document.createElement('span');
    state.className = 'jp-CodeComplete-engineState';
    box.append(note, install, progress, state);
    result.append(box);
    const show = (s: IEngineInstall) => {
      this._onEngineInstall(s);
      progress.hidden = s.state !== 'running';
      if (s.progress !== null) {
        progress.value = s.progress;
      } else {
        progress.removeAttribute('value');
      }
      const seconds = Math.round(s.seconds ?? 0);
      if (s.state === 'running') {
        state.textContent =
          s.progress !== null
            ? trans.__('Building llama.cpp: %1% (%2 s)', Math.round(s.progress * 100), seconds)
            : trans.__('Installing llama.cpp… (%1 s)', seconds);
      } else if (s.state === 'done') {
        state.textContent = trans.__(
          'llama.cpp is installed (%1 s): Use the model again.',
          seconds
        );
      } else if (s.state !== 'idle') {
        state.textContent = trans.__('The install did not finish: %1', s.last_line ?? s.state);
        install.disabled = false;
      }
    };
    const run = async (start: boolean) => {
      install.disabled = true;
      try {
        show(start ? await this._client.installEngine() : status);
        show(await this._client.followEngineInstall(show));
      } catch (reason) {
        state.textContent = this._errorText(reason);
        install.disabled = false;
      }
    };
    install.onclick = () => void run(true);
    if (status.state === 'running') {
      void run(false); // started before (another tab, an earlier dialog): follow it
    }
  }

  /**
   * One button's action: the button disabled and `working` shown meanwhile; a failure shows
   * its error and enables the button again (success too, with `again`). Whether it succeeded.
   */
  private async _act(
    button: HTMLButtonElement,
    result: HTMLElement,
    working: string,
    act: () => Promise<void>,
    again = false,
    onError?: (reason: unknown) => void
  ): Promise<boolean> {
    button.disabled = true;
    result.textContent = working;
    try {
      await act();
    } catch (reason) {
      button.disabled = false;
      this._answer(result, this._errorText(reason));
      onError?.(reason);
      return false;
    }
    if (again) {
      button.disabled = false;
    }
    return true;
  }

  private _button(label: string, cls: string, disabled: boolean): HTMLButtonElement {
    const b = document.createElement('button');
    b.className = `jp-Button jp-mod-styled jp-mod-reject ${cls}`;
    b.textContent = label;
    b.disabled = disabled;
    return b;
  }

  private _reportText(report: IProbeReport): string {
    const trans = this._trans;
    if (!report.ok) {
      return trans.__('Failed: %1', report.error ?? '');
    }
    if (report.warning) {
      return trans.__('Warning: %1', report.warning);
    }
    const ttft =
      report.first_token_s !== null && report.first_token_s !== undefined
        ? trans.__('first token %1 ms', Math.round(report.first_token_s * 1000))
        : trans.__('first token -');
    const tps = report.tokens_per_s
      ? trans.__('%1 tokens/s', report.tokens_per_s.toFixed(1))
      : trans.__('- tokens/s');
    return trans.__('OK: %1, %2, %3', ttft, tps, this._promptText(report));
  }

  /**
   * How the model is prompted, in a user's words: a chat model is asked by instructions (not
   * "style chat, FIM"); a completion model by its prompt style, with or without the middle.
   */
  private _promptText(report: IProbeReport): string {
    const trans = this._trans;
    const fim = report.fim;
    if (fim?.chat) {
      return trans.__('a chat model: asked by instructions, the code after the cursor included');
    }
    const how = !report.fim_supported
      ? trans.__('no fill-in-the-middle')
      : fim?.native_suffix
        ? trans.__('fill-in-the-middle by the server')
        : trans.__('fill-in-the-middle');
    return trans.__('prompt style %1, %2', report.style ?? '-', how);
  }

  private async _test(
    id: string,
    result: HTMLElement,
    button: HTMLButtonElement,
    custom?: ICustomEndpoint
  ): Promise<void> {
    await this._act(
      button,
      result,
      this._trans.__('Testing…'),
      async () => {
        this._answer(result, this._reportText(await this._client.test(id, custom)));
      },
      true
    );
  }

  private async _download(parts: Private.IDownloadRow): Promise<void> {
    const { entry, download, result } = parts;
    const started = await this._act(
      download,
      result,
      this._trans.__('Starting the download…'),
      async () => {
        await this._client.startDownload(entry.id);
      }
    );
    if (started) {
      await this._follow(parts);
    }
  }

  private async _follow(parts: Private.IDownloadRow): Promise<void> {
    const { entry, progress, download, cancel, result } = parts;
    const trans = this._trans;
    download.disabled = true;
    progress.hidden = false;
    cancel.hidden = false;
    cancel.disabled = false;
    const show = (d: IDownload) => {
      progress.value = d.fraction ?? 0;
      const moved =
        d.state === 'verifying'
          ? trans.__('Checking the checksum…')
          : trans.__('%1 of %2', formatBytes(d.done) || '0 B', formatBytes(d.total));
      // the server's notice (a 503 it resumes from by itself) is said beside the progress
      result.textContent = d.notice ? `${moved} ${d.notice}` : moved;
    };
    let last: IDownload;
    try {
      last = await this._client.followDownload(entry.id, show);
    } catch (reason) {
      this._answer(result, this._errorText(reason));
      download.disabled = false;
      cancel.hidden = true;
      cancel.disabled = true;
      return;
    }
    cancel.hidden = true;
    cancel.disabled = true;
    if (last.state === 'done') {
      progress.value = 1;
      result.textContent = trans.__('Downloaded; switching…');
      await this._use('completions', entry.id, result, download);
      return;
    }
    progress.hidden = true;
    download.disabled = false;
    // bytes kept that the next pull resumes from: the button says Resume
    download.textContent = last.resumable ? trans.__('Resume') : trans.__('Download');
    this._answer(
      result,
      last.state === 'cancelled'
        ? trans.__('Cancelled.')
        : trans.__('Failed: %1', last.error?.message ?? '')
    );
  }

  private _customSection(listing: IModelListing): HTMLElement {
    const trans = this._trans;
    const section = this._section('custom', trans.__('Custom'));
    const saved = listing.entries.find(e => e.source === 'custom');
    const form = document.createElement('form');
    form.className = 'jp-CodeComplete-customForm';
    if (saved) {
      // the saved endpoint, marked like every other row when it serves
      const name = document.createElement('div');
      name.className = 'jp-CodeComplete-modelName';
      name.textContent = this._nameText(saved);
      form.classList.toggle('jp-mod-active', !!saved.active);
      form.classList.toggle('jp-mod-editActive', !!saved.edit_active);
      form.append(name);
    }
    const field = (label: string, input: HTMLElement) => {
      const l = document.createElement('label');
      l.textContent = label;
      l.append(input);
      form.append(l);
    };
    const backend = document.createElement('select');
    backend.name = 'backend';
    for (const b of listing.custom_backends) {
      const o = document.createElement('option');
      o.value = o.textContent = b;
      backend.append(o);
    }
    backend.value = saved?.backend ?? 'openai';
    const baseUrl = document.createElement('input');
    baseUrl.name = 'base_url';
    baseUrl.placeholder = 'http://host:8000/v1';
    baseUrl.value = saved?.base_url ?? '';
    const model = document.createElement('input');
    model.name = 'model';
    model.value = saved?.model ?? '';
    const key = document.createElement('input');
    key.name = 'api_key';
    key.type = 'password';
    key.autocomplete = 'off';
    key.placeholder = saved?.api_key_masked
      ? trans.__('saved (%1); type to replace', saved.api_key_masked)
      : trans.__('optional');
    field(trans.__('Backend'), backend);
    field(trans.__('Base URL'), baseUrl);
    field(trans.__('Model'), model);
    field(trans.__('API key'), key);
    const result = Private.resultNode();
    result.dataset.id = 'custom';
    const buttons = document.createElement('div');
    buttons.className = 'jp-CodeComplete-rowButtons';
    const test = this._button(
      trans.__('Test'),
      'jp-CodeComplete-test',
      !listing.policy.allow_user_choice
    );
    const use = this._button(
      saved?.active ? trans.__('In use') : trans.__('Use'),
      'jp-CodeComplete-use',
      !listing.policy.allow_user_choice
    );
    const read = (): ICustomEndpoint => {
      const c: ICustomEndpoint = {
        backend: backend.value,
        base_url: baseUrl.value.trim(),
        model: model.value.trim()
      };
      if (key.value) {
        c.api_key = key.value;
      }
      return c;
    };
    const forEdits = this._button(
      trans.__('Use for edits'),
      'jp-CodeComplete-useForEdits',
      !listing.policy.allow_user_choice
    );
    test.type = use.type = forEdits.type = 'button';
    test.onclick = () => void this._test('custom', result, test, read());
    use.onclick = () => {
      const custom = read();
      key.value = ''; // sent once; the server keeps it
      void this._use('completions', 'custom', result, use, custom);
    };
    forEdits.onclick = () => {
      const custom = read();
      key.value = '';
      void this._use('edits', 'custom', result, forEdits, custom);
    };
    buttons.append(test, use, forEdits);
    form.append(buttons, result);
    form.onsubmit = event => event.preventDefault();
    section.append(form);
    return section;
  }

  /**
   * The answer to a click, where the user clicked: in that row's result, which is a live region
   * (screen readers announce it), scrolled into view and focused.
   */
  private _answer(result: HTMLElement, text: string): void {
    result.textContent = text;
    if (!result.isConnected) {
      return;
    }
    result.scrollIntoView?.({ block: 'nearest' });
    result.focus({ preventScroll: true });
  }

  /**
   * The result node of the row of `id` ('custom': the custom form's) in the list as drawn now.
   */
  private _resultFor(id: string): HTMLElement | null {
    const nodes = this._sections.querySelectorAll<HTMLElement>(
      '.jp-CodeComplete-modelRow, .jp-CodeComplete-rowResult[data-id="custom"]'
    );
    for (const node of Array.from(nodes)) {
      if (node.dataset.id === id) {
        return node.classList.contains('jp-CodeComplete-rowResult')
          ? node
          : node.querySelector<HTMLElement>('.jp-CodeComplete-rowResult');
      }
    }
    return null;
  }

  private _say(text: string, error: boolean): void {
    this._message.textContent = text;
    this._message.classList.toggle('jp-mod-error', error);
  }

  private _errorText(reason: unknown): string {
    if (reason instanceof ModelsError) {
      return this._trans.__('Error (%1): %2', reason.type, reason.message);
    }
    return String(reason);
  }

  private _client: ModelsClient;
  private _onSwitched: (model: IServingModel) => void;
  private _onEngineInstall: (state: IEngineInstall) => void;
  private _trans: TranslationBundle;
  private _listing: IModelListing | null = null;
  private _message: HTMLElement;
  private _sections: HTMLElement;
}

/**
 * The chooser's statics.
 */
export namespace ModelChooser {
  export interface IOptions {
    client: ModelsClient;
    /**
     * Called with the new serving model after a switch (the status item updates at once).
     */
    onSwitched: (model: IServingModel) => void;
    /**
     * Called with each state of a llama.cpp engine install started or followed here (the status
     * item shows its progress, also after the dialog is closed).
     */
    onEngineInstall?: (state: IEngineInstall) => void;
    translator?: ITranslator;
  }
}

/**
 * Open the dialog.
 */
export function showModelDialog(options: ModelChooser.IOptions): Promise<void> {
  const trans = (options.translator ?? nullTranslator).load('jupyter_codecomplete');
  const body = new ModelChooser(options);
  return showDialog({
    title: trans.__('Choose a Code Completion Model'),
    body,
    buttons: [Dialog.okButton({ label: trans.__('Close') })]
  }).then(() => undefined);
}

namespace Private {
  /**
   * A row's result: a polite live region that can take focus (not in the tab order).
   */
  export function resultNode(): HTMLElement {
    const result = document.createElement('div');
    result.className = 'jp-CodeComplete-rowResult';
    result.setAttribute('role', 'status');
    result.setAttribute('aria-live', 'polite');
    result.tabIndex = -1;
    return result;
  }

  /**
   * The parts of a downloadable model's row.
   */
  export interface IDownloadRow {
    entry: IModelEntry;
    progress: HTMLProgressElement;
    download: HTMLButtonElement;
    cancel: HTMLButtonElement;
    result: HTMLElement;
  }
}
