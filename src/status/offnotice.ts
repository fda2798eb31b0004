/**
 * Alt+\ where completions are off: say why nothing comes, with the switch one click away (once
 * per reason and language until the settings change, not on every press).
 */
import { Notification } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';

import { CodeCompleteProvider } from '../completion/provider';
import { displayLanguage } from '../context/context';
import { disabledLanguagesWith, ISettings } from '../settings';

/**
 * The notice.
 */
export class OffNotice {
  constructor(options: OffNotice.IOptions) {
    this._options = options;
  }

  /**
   * The settings changed: the next press may say it again.
   */
  reset(): void {
    this._told = null;
  }

  /**
   * What the provider did: a manual request skipped because completions are off is answered.
   */
  activity(activity: CodeCompleteProvider.IActivity): void {
    if (activity.kind !== 'skipped' || !activity.manual || !activity.reason) {
      return;
    }
    const key = `${activity.reason}:${activity.language ?? ''}`;
    if (key === this._told) {
      return;
    }
    this._told = key;
    const { trans, settings, save } = this._options;
    const notify =
      this._options.notify ?? ((message, options) => Notification.info(message, options));
    if (activity.reason === 'language-off' && activity.language) {
      const language = activity.language;
      const name = displayLanguage(language);
      notify(trans.__('Code completions are off for %1.', name), {
        autoClose: 8000,
        actions: [
          {
            label: trans.__('Enable for %1', name),
            caption: trans.__('Switch inline code completions back on for %1', name),
            callback: () =>
              void save(
                'disabledLanguages',
                disabledLanguagesWith(settings().disabledLanguages, language, true)
              )
          }
        ]
      });
    } else if (activity.reason === 'disabled') {
      notify(trans.__('Code completions are off everywhere.'), {
        autoClose: 8000,
        actions: [
          {
            label: trans.__('Enable'),
            caption: trans.__('Switch inline code completions back on'),
            callback: () => void save('enabled', true)
          }
        ]
      });
    }
  }

  private _options: OffNotice.IOptions;
  private _told: string | null = null;
}

/**
 * The notice's statics.
 */
export namespace OffNotice {
  export interface IOptions {
    trans: TranslationBundle;
    settings: () => ISettings;
    save: <K extends keyof ISettings>(key: K, value: ISettings[K]) => Promise<void>;
    /**
     * How it is said (JupyterLab's notification by default).
     */
    notify?: (message: string, options: Parameters<typeof Notification.info>[1]) => unknown;
  }
}
