/**
 * The commands plugin: switch completions on and off (everywhere or for a language), ask for a
 * suggestion, reconnect, open the settings; and their command palette entries.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { ITranslator, nullTranslator, TranslationBundle } from '@jupyterlab/translation';

import { displayLanguage } from '../context/context';
import { CompletionRequester } from '../completion/request';
import { codeCompleteIcon } from '../status/icon';
import { disabledLanguagesWith, isLanguageEnabled, ISettings } from '../settings';
import { OffNotice } from '../status/offnotice';
import {
  CommandIDs,
  ICodeCompleteProvider,
  ICodeCompleteSettings,
  ICompletionConnection,
  ILanguageResolver,
  MENU_COMMANDS
} from '../tokens';

/**
 * The title of this extension's settings (distinct from JupyterLab's "Code Completion").
 */
const SETTINGS_TITLE = 'Inline Code Suggestions (jupyter_codecomplete)';

export const commandsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:commands',
  description: 'The commands of inline code completion.',
  autoStart: true,
  requires: [
    ICompletionProviderManager,
    ICompletionConnection,
    ICodeCompleteProvider,
    ICodeCompleteSettings,
    ILanguageResolver
  ],
  optional: [ITranslator, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    manager: ICompletionProviderManager,
    socket: ICompletionConnection,
    provider: ICodeCompleteProvider,
    settings: ICodeCompleteSettings,
    languages: ILanguageResolver,
    translator: ITranslator | null,
    palette: ICommandPalette | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    const currentLanguage = (): string | null =>
      languages.editorLanguage() ?? provider.lastLanguage;
    const inlineInvoke = () =>
      app.commands.hasCommand('inline-completer:invoke')
        ? app.commands.execute('inline-completer:invoke')
        : undefined;
    const requester = new CompletionRequester({
      currentWidget: () => app.shell.currentWidget,
      invoke: id => {
        manager.inline?.invoke(id);
        return !!manager.inline;
      },
      fallback: inlineInvoke
    });

    Private.addSwitches(app, settings, trans, currentLanguage);
    app.commands.addCommand(CommandIDs.request, {
      label: trans.__('Request Code Completion'),
      caption: trans.__(
        'Ask for a suggestion at the cursor of the editor being edited now (Alt+\\)'
      ),
      // (Alt+\\ is bound to this command in editors, so the menus show the key: in an editor
      // it is always enabled, and does what JupyterLab's own Alt+\\ does where ours cannot)
      isEnabled: () => requester.enabled,
      execute: () => requester.request()
    });
    app.commands.addCommand(CommandIDs.reconnect, {
      label: trans.__('Reconnect to the Completion Server'),
      isEnabled: () => socket.state === 'disconnected',
      execute: () => socket.connect()
    });
    app.commands.addCommand(CommandIDs.openSettings, {
      label: trans.__('Code Completion Settings…'),
      icon: codeCompleteIcon,
      execute: () => app.commands.execute('settingeditor:open', { query: SETTINGS_TITLE })
    });

    // Alt+\ where completions are off: say why nothing comes
    const notice = new OffNotice({
      trans,
      settings: () => settings.current,
      save: (key, value) => settings.save(key, value)
    });
    settings.changed.connect(() => notice.reset());
    provider.activity.connect((_, activity) => notice.activity(activity));

    // Labels and enabled states follow the settings, the connection and the last request.
    settings.changed.connect(() => app.commands.notifyCommandChanged());
    socket.stateChanged.connect(() => app.commands.notifyCommandChanged(CommandIDs.reconnect));
    provider.activity.connect(() => app.commands.notifyCommandChanged(CommandIDs.toggleLanguage));

    if (palette) {
      const category = trans.__('Code Completion');
      for (const command of MENU_COMMANDS) {
        if (command !== '-' && command !== CommandIDs.chooseModel) {
          palette.addItem({ command, category });
        }
      }
    }
  }
};

namespace Private {
  /**
   * The switches: completions on or off everywhere, and for the current language.
   */
  export function addSwitches(
    app: JupyterFrontEnd,
    settings: ICodeCompleteSettings,
    trans: TranslationBundle,
    currentLanguage: () => string | null
  ): void {
    app.commands.addCommand(CommandIDs.toggleEnabled, {
      label: () =>
        settings.current.enabled
          ? trans.__('Disable Code Completions')
          : trans.__('Enable Code Completions'),
      caption: trans.__('Switch inline code completions on or off everywhere'),
      execute: () => settings.save('enabled', !settings.current.enabled)
    });
    app.commands.addCommand(CommandIDs.toggleLanguage, {
      label: () => Private.languageLabel(trans, settings.current, currentLanguage()),
      caption: trans.__('Switch inline code completions on or off for the current language'),
      isEnabled: () => currentLanguage() !== null,
      execute: () => {
        const language = currentLanguage();
        const current = settings.current;
        return language
          ? settings.save(
              'disabledLanguages',
              disabledLanguagesWith(
                current.disabledLanguages,
                language,
                !isLanguageEnabled(current, language)
              )
            )
          : undefined;
      }
    });
  }

  /**
   * The label of the per-language switch.
   */
  export function languageLabel(
    trans: TranslationBundle,
    settings: ISettings,
    language: string | null
  ): string {
    if (!language) {
      return trans.__('Disable Code Completions for This Language');
    }
    const name = displayLanguage(language);
    return isLanguageEnabled(settings, language)
      ? trans.__('Disable Code Completions for %1', name)
      : trans.__('Enable Code Completions for %1', name);
  }
}
