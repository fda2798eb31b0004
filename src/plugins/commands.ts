/**
 * The commands plugin: switch completions on and off (everywhere or for a language), ask for a
 * suggestion, reconnect, open the settings; and their command palette entries.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { NotebookPanel } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { EditorView } from '@codemirror/view';
import { Widget } from '@lumino/widgets';

import { displayLanguage } from '../context/context';
import { EditorFocusTracker } from '../completion/focus';
import { codeCompleteIcon } from '../status/icon';
import { isLanguageEnabled, disabledLanguagesWith } from '../settings';
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

    // The editor being edited, remembered while a menu or the palette has the focus.
    const focus = new EditorFocusTracker();
    const editingWidget = (): { widget: Widget; editor: HTMLElement } | null => {
      const editor = focus.editor;
      const widget = app.shell.currentWidget;
      if (!editor || !widget || !widget.node.contains(editor)) {
        return null;
      }
      return { widget, editor };
    };

    app.commands.addCommand(CommandIDs.toggleEnabled, {
      label: () =>
        settings.current.enabled
          ? trans.__('Disable Code Completions')
          : trans.__('Enable Code Completions'),
      caption: trans.__('Switch inline code completions on or off everywhere'),
      execute: () => settings.save('enabled', !settings.current.enabled)
    });
    app.commands.addCommand(CommandIDs.toggleLanguage, {
      label: () => {
        const language = currentLanguage();
        if (!language) {
          return trans.__('Disable Code Completions for This Language');
        }
        const name = displayLanguage(language);
        return isLanguageEnabled(settings.current, language)
          ? trans.__('Disable Code Completions for %1', name)
          : trans.__('Enable Code Completions for %1', name);
      },
      caption: trans.__('Switch inline code completions on or off for the current language'),
      isEnabled: () => currentLanguage() !== null,
      execute: () => {
        const language = currentLanguage();
        if (!language) {
          return;
        }
        const current = settings.current;
        return settings.save(
          'disabledLanguages',
          disabledLanguagesWith(
            current.disabledLanguages,
            language,
            !isLanguageEnabled(current, language)
          )
        );
      }
    });
    app.commands.addCommand(CommandIDs.request, {
      label: trans.__('Request Code Completion'),
      caption: trans.__(
        'Ask for a suggestion at the cursor of the editor being edited now (Alt+\\)'
      ),
      // (Alt+\\ is bound to this command in editors, so the menus show the key: in an editor
      // it is always enabled, and does what JupyterLab's own Alt+\\ does where ours cannot)
      isEnabled: () => editingWidget() !== null || Private.inEditor(),
      execute: () => {
        // Only an editor the user is editing gets a suggestion: never a notebook cell in
        // command mode. A menu took the focus: give it back (and edit mode) first.
        const target = editingWidget();
        if (!target) {
          if (Private.inEditor() && app.commands.hasCommand('inline-completer:invoke')) {
            return app.commands.execute('inline-completer:invoke');
          }
          return;
        }
        const { widget, editor } = target;
        if (widget instanceof NotebookPanel) {
          const notebook = widget.content;
          const index = notebook.widgets.findIndex(cell => cell.node.contains(editor));
          if (index < 0) {
            return;
          }
          notebook.activeCellIndex = index;
          notebook.mode = 'edit';
        }
        EditorView.findFromDOM(editor)?.focus();
        if (manager.inline) {
          manager.inline.invoke(widget.id);
        } else if (app.commands.hasCommand('inline-completer:invoke')) {
          return app.commands.execute('inline-completer:invoke');
        }
      }
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

    // Alt+\ where completions are off: say why nothing comes, with the switch one click away
    // (once per language and state until it changes, not on every press).
    let told: string | null = null;
    settings.changed.connect(() => {
      told = null;
    });
    provider.activity.connect((_, activity) => {
      if (activity.kind !== 'skipped' || !activity.manual || !activity.reason) {
        return;
      }
      const key = `${activity.reason}:${activity.language ?? ''}`;
      if (key === told) {
        return;
      }
      told = key;
      if (activity.reason === 'language-off' && activity.language) {
        const language = activity.language;
        const name = displayLanguage(language);
        Notification.info(trans.__('Code completions are off for %1.', name), {
          autoClose: 8000,
          actions: [
            {
              label: trans.__('Enable for %1', name),
              caption: trans.__('Switch inline code completions back on for %1', name),
              callback: () => {
                const current = settings.current;
                void settings.save(
                  'disabledLanguages',
                  disabledLanguagesWith(current.disabledLanguages, language, true)
                );
              }
            }
          ]
        });
      } else if (activity.reason === 'disabled') {
        Notification.info(trans.__('Code completions are off everywhere.'), {
          autoClose: 8000,
          actions: [
            {
              label: trans.__('Enable'),
              caption: trans.__('Switch inline code completions back on'),
              callback: () => void settings.save('enabled', true)
            }
          ]
        });
      }
    });

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
   * Whether the focus is in a code editor.
   */
  export function inEditor(): boolean {
    const active = document.activeElement;
    return !!active && typeof active.closest === 'function' && !!active.closest('.cm-editor');
  }
}
