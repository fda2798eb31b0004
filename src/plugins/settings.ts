/**
 * The settings plugin: reads this extension's settings (`schema/plugin.json`) and the debounce of
 * JupyterLab's inline completer for our provider, and stores changes made by commands.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { JSONValue } from '@lumino/coreutils';
import { ISignal, Signal } from '@lumino/signaling';

import { DEFAULT_DEBOUNCE_MS, PROVIDER_ID } from '../completion/provider';
import { DEFAULT_SETTINGS, ISettings, normalizeSettings } from '../settings';
import { ICodeCompleteSettings, PLUGIN_ID } from '../tokens';

/**
 * The settings of JupyterLab's inline completer (where the per-provider debounce lives).
 */
const INLINE_COMPLETER_PLUGIN = '@jupyterlab/completer-extension:inline-completer';

/**
 * The debounce when the inline completer does not set one for our provider, in ms.
 */
const DEFAULT_DEBOUNCE = DEFAULT_DEBOUNCE_MS;

/**
 * The settings in force, fed by the setting registry when there is one.
 */
export class CodeCompleteSettings implements ICodeCompleteSettings {
  get current(): ISettings {
    return this._current;
  }

  get changed(): ISignal<this, ISettings> {
    return this._changed;
  }

  get debounce(): number {
    return this._debounce;
  }

  /**
   * Take the settings from the registry's entry, now and whenever it changes.
   */
  attach(stored: ISettingRegistry.ISettings): void {
    this._stored = stored;
    this.apply(stored.composite);
    stored.changed.connect(() => this.apply(stored.composite));
  }

  /**
   * Put raw settings in force.
   */
  apply(raw: unknown): void {
    this._current = normalizeSettings(raw);
    this._changed.emit(this._current);
  }

  /**
   * Read the debounce of our provider from the inline completer's settings.
   */
  readDebounce(composite: unknown): void {
    const providers = (
      composite as { providers?: Record<string, { debouncerDelay?: unknown }> } | null
    )?.providers;
    const delay = providers?.[PROVIDER_ID]?.debouncerDelay;
    this._debounce = typeof delay === 'number' && delay >= 0 ? delay : DEFAULT_DEBOUNCE;
    // switched off there (the recipe beside another provider): the status item says so
    const enabled = (providers?.[PROVIDER_ID] as { enabled?: unknown } | undefined)?.enabled;
    const on = enabled !== false;
    if (on !== this._providerEnabled) {
      this._providerEnabled = on;
      this._changed.emit(this._current);
    }
  }

  get providerEnabled(): boolean {
    return this._providerEnabled;
  }

  async save<K extends keyof ISettings>(key: K, value: ISettings[K]): Promise<void> {
    if (this._stored) {
      // The settings are plain JSON (see `schema/plugin.json`).
      await this._stored.set(key, value as unknown as JSONValue);
    } else {
      this.apply({ ...this._current, [key]: value });
    }
  }

  private _current: ISettings = normalizeSettings(DEFAULT_SETTINGS);
  private _changed = new Signal<this, ISettings>(this);
  private _debounce = DEFAULT_DEBOUNCE;
  private _providerEnabled = true;
  private _stored: ISettingRegistry.ISettings | null = null;
}

/**
 * The settings plugin (its id is the settings schema's id).
 */
export const settingsPlugin: JupyterFrontEndPlugin<ICodeCompleteSettings> = {
  id: PLUGIN_ID,
  description: 'The settings of inline code completion (jupyter_codecomplete).',
  autoStart: true,
  provides: ICodeCompleteSettings,
  optional: [ISettingRegistry],
  activate: (app: JupyterFrontEnd, registry: ISettingRegistry | null): ICodeCompleteSettings => {
    const settings = new CodeCompleteSettings();
    if (registry) {
      // Loaded once the app is restored: the inline completer registers its settings transform
      // then, and a load before it is refused ("no transformers yet"), which left the
      // fresh-line trigger on the default delay whatever the user's debounce.
      void app.restored
        .then(() => registry.load(INLINE_COMPLETER_PLUGIN))
        .then(loaded => {
          settings.readDebounce(loaded.composite);
          loaded.changed.connect(() => settings.readDebounce(loaded.composite));
        })
        .catch(() => {
          /* no inline completer settings: keep the default debounce */
        });
      void registry
        .load(PLUGIN_ID)
        .then(loaded => settings.attach(loaded))
        .catch(reason => {
          console.error('jupyter-codecomplete: cannot load the settings', reason);
        });
    }
    return settings;
  }
};
