/**
 * The commands plugin: switch completions on and off (everywhere or for a language), ask for a
 * suggestion, reconnect, open the settings; and their command palette entries.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { NotebookPanel } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { EditorView } from '@codemirror/view';
import { Widget } from '@lumino/widgets';

import { displayLanguage } from '../context';
import { EditorFocusTracker } from '../focus';
import { codeCompleteIcon } from '../icon';
import { CodeCompleteProvider } from '../provider';
import { isLanguageEnabled, toggleLanguage } from '../settings';
import { CompletionSocket } from '../socket';
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
    socket: CompletionSocket,
    provider: CodeCompleteProvider,
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
          toggleLanguage(current.disabledLanguages, language, !isLanguageEnabled(current, language))
        );
      }
    });
    app.commands.addCommand(CommandIDs.request, {
      label: trans.__('Request Code Completion'),
      caption: trans.__(
        'Ask for a suggestion at the cursor of the editor being edited now (Alt+\\)'
      ),
      isEnabled: () => editingWidget() !== null,
      execute: () => {
        // Only an editor the user is editing gets a suggestion: never a notebook cell in
        // command mode. A menu took the focus: give it back (and edit mode) first.
        const target = editingWidget();
        if (!target) {
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
