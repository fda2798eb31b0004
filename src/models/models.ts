/**
 * The REST client of the model service (`api/codecomplete/models/...`): list the models one can use,
 * download catalogue models (progress as server-sent events), test, switch, save a custom endpoint.
 * API keys go to the server once and never come back (entries carry only `api_key_masked`).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { IServingModel } from '../connection/protocol';

/**
 * One row of the model list.
 */
export interface IModelEntry {
  id: string;
  source: 'configured' | 'detected' | 'disk' | 'catalogue' | 'custom';
  name: string;
  backend: string;
  model: string;
  base_url: string | null;
  where: string;
  size_bytes: number | null;
  style: string | null;
  fim: boolean | null;
  license: string | null;
  memory_gb: number | null;
  good_for: string | null;
  status: string;
  path: string | null;
  repo: string | null;
  file: string | null;
  revision: string | null;
  quantization: string | null;
  verified: string | null;
  /**
   * A catalogue file's bytes kept from a pull that stopped (the next pull resumes: Resume).
   */
  partial_bytes?: number;
  active: boolean;
  /**
   * This entry serves edit predictions.
   */
  edit_active?: boolean;
  /**
   * The format edit predictions would ask this model in (e.g. `sweep-next-edit`; `edit-chat`: the
   * generic format, for models without a next-edit format of their own).
   */
  edit_style?: string | null;
  /**
   * `edit_style` is the model's own next-edit format.
   */
  edit_native?: boolean | null;
  locked: boolean;
  locked_reason: string | null;
  api_key_set: boolean;
  api_key_masked: string | null;
}

/**
 * The progress of one download.
 */
export interface IDownload {
  id: string;
  state: 'running' | 'verifying' | 'done' | 'failed' | 'cancelled';
  done: number;
  total: number | null;
  fraction: number | null;
  bytes_per_s: number | null;
  /**
   * Where this pull started: bytes kept from an earlier one.
   */
  resumed_from?: number;
  path: string | null;
  error: { type: string; message: string } | null;
  /**
   * Said while it runs and after (the hub answered 503 and the pull resumed by itself; it sent more
   * than the size and reading stopped there).
   */
  notice?: string | null;
  /**
   * It failed with bytes kept: the next pull resumes from them.
   */
  resumable?: boolean;
}

/**
 * What the server lists.
 */
export interface IModelListing {
  entries: IModelEntry[];
  /**
   * The entry that serves now (in a running server; the saved choice otherwise).
   */
  active: string | null;
  /**
   * The saved choice: applies at the next start (it differs from `active` when it was
   * changed elsewhere, e.g. by `jupyter codecomplete models use` in a terminal).
   */
  saved?: string | null;
  serving: IServingModel | null;
  /**
   * The entry that serves edit predictions (null: the administrator's model serves them).
   */
  edit_active?: string | null;
  /**
   * The saved choice for edits.
   */
  edit_saved?: string | null;
  /**
   * The model that serves edit predictions now and the format it is asked in.
   */
  edit_serving?: IServingModel | null;
  policy: {
    allow_user_choice: boolean;
    allow_downloads: boolean;
    allowed_backends: string[];
    allowed_hosts: string[];
    allowed_catalogue: string[];
  };
  /**
   * The backend kinds the Custom form offers (each kind declares it on the server).
   */
  custom_backends: string[];
  models_dir: string;
  offline_hint: string;
  downloads: IDownload[];
  /**
   * What is wrong with the user's saved store: an unusable file, a custom endpoint that was skipped,
   * a saved choice that does not apply (the server's own messages).
   */
  warnings?: string[];
}

/**
 * What a switch of the edit model answers.
 */
export interface IEditSwitch {
  edit_active: string;
  edit_serving: IServingModel;
  report: IProbeReport;
}

/**
 * The `jupyter codecomplete check` report of one model. A field the check did not reach is null.
 */
export interface IProbeReport {
  name: string;
  backend: string;
  base_url?: string | null;
  model?: string | null;
  ok: boolean;
  error?: string | null;
  /**
   * It answered, but not well enough to call it OK (e.g. it wrote nothing for the sample).
   */
  warning?: string | null;
  /**
   * Where it runs (in the server's process, on this machine, in a private network, elsewhere),
   * whether it is shared, what it is sent (the privacy policy, in words), and whether the server
   * warms it.
   */
  locality?: 'process' | 'machine' | 'network' | 'remote' | null;
  shared?: boolean | null;
  privacy?: string | null;
  warm?: boolean | null;
  reachable?: boolean | null;
  serves?: string | null;
  style?: string | null;
  fim_supported?: boolean | null;
  /**
   * How the middle is filled: the backend's own suffix field, the style's FIM tokens, or (a chat
   * model) the instructions.
   */
  fim?: IFimReport | null;
  first_token_s?: number | null;
  tokens_per_s?: number | null;
  tokens?: number | null;
  sample?: string | null;
}

/**
 * How a model fills in the middle; `reported`: what its server says of its suffix field.
 */
export interface IFimReport {
  style_tokens: boolean;
  native_suffix: boolean;
  chat: boolean;
  reported: boolean | null;
}

/**
 * What `POST models/test` answers.
 */
export interface ITestReply {
  report: IProbeReport;
}

/**
 * What a switch of the completion model answers.
 */
export interface IUseReply {
  active: string;
  serving: IServingModel;
  report: IProbeReport;
}

/**
 * What saving the custom endpoint answers: its row.
 */
export interface ICustomSaved {
  entry: IModelEntry | null;
}

/**
 * A custom endpoint as the user enters it.
 */
export interface ICustomEndpoint {
  backend: string;
  base_url: string;
  model: string;
  api_key?: string;
  style?: string | null;
}

/**
 * The background install of the llama.cpp engine (llama-cpp-python), `api/codecomplete/models/engine`.
 */
export interface IEngineInstall {
  state: 'idle' | 'running' | 'done' | 'failed' | 'cancelled';
  /**
   * llama-cpp-python can be imported by the server now.
   */
  installed: boolean;
  requirement: string;
  /**
   * What installing it costs, in words (it compiles llama.cpp).
   */
  cost: string;
  seconds: number | null;
  /**
   * 0..1 when the build's output says how far it is.
   */
  progress: number | null;
  returncode: number | null;
  last_line: string | null;
  log: string[];
}

/**
 * Whether an error says the model needs the llama.cpp engine, which is not installed.
 */
export function needsLlamaCpp(reason: unknown): boolean {
  const text = reason instanceof Error ? reason.message : String(reason);
  return /needs llama\.cpp|llama\.cpp engine is not installed/.test(text);
}

export class ModelsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status: number
  ) {
    super(message);
  }
}

/**
 * The client.
 */
export class ModelsClient {
  constructor(options: ModelsClient.IOptions = {}) {
    this._settings = options.serverSettings ?? ServerConnection.makeSettings();
  }

  list(detect = true): Promise<IModelListing> {
    return this._json('GET', `choices?detect=${detect ? 1 : 0}`);
  }

  use(id: string, custom?: ICustomEndpoint): Promise<IUseReply> {
    return this._json('POST', 'use', { id, custom });
  }

  /**
   * Check a model and make it the model of edit predictions (the completion model stays).
   */
  useForEdits(id: string, custom?: ICustomEndpoint): Promise<IEditSwitch> {
    return this._json('POST', 'use', { id, custom, role: 'edit' });
  }

  async test(id: string, custom?: ICustomEndpoint): Promise<IProbeReport> {
    const out = await this._json<ITestReply>('POST', 'test', {
      id,
      custom
    });
    return out.report;
  }

  async saveCustom(custom: ICustomEndpoint): Promise<IModelEntry | null> {
    const out = await this._json<ICustomSaved>('PUT', 'custom', custom);
    return out.entry;
  }

  startDownload(id: string): Promise<IDownload> {
    return this._json('POST', 'downloads', { id });
  }

  cancelDownload(id: string): Promise<IDownload> {
    return this._json('DELETE', `downloads/${encodeURIComponent(id)}`);
  }

  /**
   * Follow a download's server-sent progress until it ends; the last state is returned.
   */
  followDownload(id: string, onProgress: (d: IDownload) => void): Promise<IDownload> {
    return this._follow(`downloads/${encodeURIComponent(id)}?stream=1`, onProgress);
  }

  engineStatus(): Promise<IEngineInstall> {
    return this._json('GET', 'engine');
  }

  /**
   * Start installing the llama.cpp engine in the server's environment (it compiles llama.cpp).
   */
  installEngine(): Promise<IEngineInstall> {
    return this._json('POST', 'engine', {});
  }

  /**
   * Follow the engine install's server-sent progress until it ends; the last state is returned.
   */
  followEngineInstall(onProgress: (s: IEngineInstall) => void): Promise<IEngineInstall> {
    return this._follow('engine?stream=1', onProgress);
  }

  private async _follow<T>(path: string, onProgress: (state: T) => void): Promise<T> {
    const url = this._url(path);
    const response = await ServerConnection.makeRequest(url, { method: 'GET' }, this._settings);
    if (!response.ok || !response.body) {
      throw await this._error(response);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let last: T | null = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (event.startsWith('data: ')) {
          last = JSON.parse(event.slice(6)) as T;
          onProgress(last);
        }
      }
    }
    if (!last) {
      throw new ModelsError('network', 'The progress stream ended early.', 0);
    }
    return last;
  }

  private _url(path: string): string {
    return URLExt.join(this._settings.baseUrl, 'api/codecomplete/models', path);
  }

  private async _json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'Content-Type': 'application/json' };
    }
    const response = await ServerConnection.makeRequest(this._url(path), init, this._settings);
    if (!response.ok) {
      throw await this._error(response);
    }
    return (await response.json()) as T;
  }

  private async _error(response: Response): Promise<ModelsError> {
    try {
      const data = await response.json();
      return new ModelsError(
        data.error?.type ?? 'error',
        data.error?.message ?? response.statusText,
        response.status
      );
    } catch {
      return new ModelsError('error', response.statusText, response.status);
    }
  }

  private _settings: ServerConnection.ISettings;
}

/**
 * The client's statics.
 */
export namespace ModelsClient {
  export interface IOptions {
    /**
     * Server settings (base URL, token); default `ServerConnection.makeSettings()`.
     */
    serverSettings?: ServerConnection.ISettings;
  }
}

/**
 * Bytes for people.
 */
export function formatBytes(n: number | null | undefined): string {
  if (!n) {
    return '';
  }
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}
