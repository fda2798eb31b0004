/**
 * The JupyterLab / Notebook 7 plugin: registers the inline completion provider, the status
 * item (status bar in JupyterLab, notebook and editor toolbars in Notebook 7), the commands
 * and the settings.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  ICommandPalette,
  Notification,
  showErrorMessage
} from '@jupyterlab/apputils';
import {
  EditorExtensionRegistry,
  IEditorExtensionRegistry,
  IEditorLanguageRegistry
} from '@jupyterlab/codemirror';
import { EditorView } from '@codemirror/view';
import {
  ICompletionProviderManager,
  IInlineCompletionContext
} from '@jupyterlab/completer';
import { IDocumentWidget } from '@jupyterlab/docregistry';
import { NotebookPanel } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { displayLanguage, languageFromMime } from './context';
import { dismissSuggestion, EscapeListener } from './dismiss';
import { editorState } from './editorstate';
import { EditorFocusTracker } from './focus';
import { FreshLineTrigger } from './freshline';
import { codeCompleteIcon } from './icon';
import { showModelDialog } from './modeldialog';
import { ModelsClient } from './models';
import { KernelCompleter } from './kernel';
import { ErrorNotifier } from './notifier';
import { registerPartialAccept } from './partial';
import { IErrorInfo } from './protocol';
import { CodeCompleteProvider, DEFAULT_DEBOUNCE_MS, PROVIDER_ID } from './provider';
import {
  DEFAULT_SETTINGS,
  isLanguageEnabled,
  ISettings,
  normalizeSettings,
  toggleLanguage
} from './settings';
import { CompletionSocket } from './socket';
import { StatusModel, StatusWidget } from './status';
import {
  collectCells,
  collectOpenDocuments,
  currentEditorMime,
  kernelLanguage
} from './widgets';

export { CodeCompleteProvider, PROVIDER_ID } from './provider';
export { CompletionSocket } from './socket';

/**
 * The plugin id; also the id of the settings schema `schema/plugin.json`.
 */
export const PLUGIN_ID = 'jupyter-codecomplete:plugin';

/**
 * Command ids.
 */
export namespace CommandIDs {
  export const toggleEnabled = 'codecomplete:toggle-enabled';
  export const toggleLanguage = 'codecomplete:toggle-language';
  export const request = 'codecomplete:request';
  export const reconnect = 'codecomplete:reconnect';
  export const openSettings = 'codecomplete:open-settings';
  export const dismiss = 'codecomplete:dismiss';
  export const chooseModel = 'codecomplete:choose-model';
}

/**
 * The settings of JupyterLab's inline completer (where the per-provider debounce lives).
 */
const INLINE_COMPLETER_PLUGIN = '@jupyterlab/completer-extension:inline-completer';

/**
 * The title of this extension's settings (distinct from JupyterLab's "Code Completion").
 */
const SETTINGS_TITLE = 'Inline Code Suggestions (jupyter_codecomplete)';

const MENU_COMMANDS = [
  CommandIDs.chooseModel,
  '-',
  CommandIDs.toggleEnabled,
  CommandIDs.toggleLanguage,
  '-',
  CommandIDs.request,
  CommandIDs.reconnect,
  '-',
  CommandIDs.openSettings
];

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'Inline code completion (ghost text) from the jupyter_codecomplete server.',
  autoStart: true,
  requires: [ICompletionProviderManager],
  optional: [
    ISettingRegistry,
    ITranslator,
    IStatusBar,
    ICommandPalette,
    IEditorLanguageRegistry,
    IEditorExtensionRegistry
  ],
  activate: (
    app: JupyterFrontEnd,
    manager: ICompletionProviderManager,
    settingRegistry: ISettingRegistry | null,
    translator: ITranslator | null,
    statusBar: IStatusBar | null,
    palette: ICommandPalette | null,
    languages: IEditorLanguageRegistry | null,
    extensions: IEditorExtensionRegistry | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    let settings: ISettings = normalizeSettings(DEFAULT_SETTINGS);
    let stored: ISettingRegistry.ISettings | null = null;

    const resolveLanguage = (
      mime: string | null,
      context?: IInlineCompletionContext
    ): string | null => {
      const found = mime ? languages?.findByMIME(mime) : null;
      const language = mime ? languageFromMime(mime, found?.name ?? null) : null;
      if ((!language || language === 'plaintext') && context) {
        // The kernel has not told its language yet: ask the notebook or the session.
        return kernelLanguage(context) ?? language;
      }
      return language;
    };

    const kernelCompleter = new KernelCompleter();
    const socket = new CompletionSocket({
      serverSettings: app.serviceManager.serverSettings
    });
    const provider = new CodeCompleteProvider({
      client: socket,
      settings: () => settings,
      translator: translator ?? nullTranslator,
      resolveLanguage,
      collectCells: context => collectCells(context, resolveLanguage),
      collectDocuments: () => collectOpenDocuments(app, resolveLanguage),
      editorState: context => editorState(context.widget),
      kernelCandidates: (request, context, language) =>
        kernelCompleter.candidates(
          context.session?.kernel,
          request.text.slice(0, request.offset),
          language
        )
    });
    manager.registerInlineProvider(provider);
    // Typing through, partial accept (issue 17): one block.
    registerPartialAccept({ app, manager, provider, trans });
    socket.modelChanged.connect(() => provider.forget());

    // Status.
    const status = new StatusModel({ translator: translator ?? nullTranslator });
    const notifier = new ErrorNotifier({
      show: (info: IErrorInfo) => {
        Notification.emit(
          trans.__('Code completion failed: %1', info.title),
          'error',
          {
            autoClose: 10000,
            actions: [
              {
                label: trans.__('Details'),
                caption: trans.__('Show the error reported by the server'),
                callback: () => {
                  void showErrorMessage(
                    trans.__('Code completion failed: %1', info.title),
                    {
                      message: `${info.message}\n\n${trans.__('Error type: %1', info.type)}${
                        info.retry_after
                          ? '\n' + trans.__('Retry after %1 s', info.retry_after)
                          : ''
                      }`
                    }
                  );
                }
              }
            ]
          }
        );
      }
    });
    const reportError = (info: IErrorInfo) => {
      if (settings.notifyErrors) {
        notifier.notify(info);
      }
    };

    status.setConnection(socket.state);
    status.model = socket.model;
    socket.stateChanged.connect((_, state) => {
      const delay = socket.reconnectDelay;
      status.setConnection(
        state,
        delay !== null ? trans.__('Next attempt in %1 s.', Math.round(delay / 1000)) : ''
      );
      app.commands.notifyCommandChanged(CommandIDs.reconnect);
    });
    socket.modelChanged.connect((_, model) => {
      status.model = model;
    });
    socket.unmatchedError.connect((_, info) => {
      status.failed(-1, info);
      reportError(info);
    });
    provider.activity.connect((_, activity) => {
      switch (activity.kind) {
        case 'started':
          status.started(activity.number);
          break;
        case 'succeeded':
          status.succeeded(activity.number);
          notifier.reset();
          break;
        case 'cancelled':
          status.failed(activity.number, null);
          break;
        case 'skipped':
          status.skipped();
          break;
        case 'failed':
          status.failed(activity.number, activity.error ?? null);
          if (activity.error) {
            reportError(activity.error);
          }
          break;
      }
      app.commands.notifyCommandChanged(CommandIDs.toggleLanguage);
    });

    const applySettings = (raw: unknown) => {
      settings = normalizeSettings(raw);
      status.enabled = settings.enabled;
      refreshLanguageStatus();
      app.commands.notifyCommandChanged();
    };

    const saveSetting = async (key: keyof ISettings, value: any) => {
      if (stored) {
        await stored.set(key, value);
      } else {
        applySettings({ ...settings, [key]: value });
      }
    };

    // The language of the editor in the current widget (null: no editor there).
    const editorLanguage = (): string | null => {
      const widget = app.shell.currentWidget;
      const mime = currentEditorMime(widget);
      const context = widget
        ? ({ widget, triggerKind: 1 } as IInlineCompletionContext)
        : undefined;
      return mime ? resolveLanguage(mime, context) : null;
    };
    const currentLanguage = (): string | null =>
      editorLanguage() ?? provider.lastLanguage;

    // The status item says when completions are off for the current editor's language.
    function refreshLanguageStatus(): void {
      const language = editorLanguage();
      status.languageOff =
        language && !isLanguageEnabled(settings, language)
          ? displayLanguage(language)
          : null;
    }
    const shellChanged = (
      app.shell as { currentChanged?: { connect(fn: () => void): void } }
    ).currentChanged;
    shellChanged?.connect(() => refreshLanguageStatus());
    provider.activity.connect(() => refreshLanguageStatus());

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

    // Commands.
    app.commands.addCommand(CommandIDs.toggleEnabled, {
      label: () =>
        settings.enabled
          ? trans.__('Disable Code Completions')
          : trans.__('Enable Code Completions'),
      caption: trans.__('Switch inline code completions on or off everywhere'),
      execute: () => saveSetting('enabled', !settings.enabled)
    });
    app.commands.addCommand(CommandIDs.toggleLanguage, {
      label: () => {
        const language = currentLanguage();
        if (!language) {
          return trans.__('Disable Code Completions for This Language');
        }
        const name = displayLanguage(language);
        return isLanguageEnabled(settings, language)
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
        return saveSetting(
          'disabledLanguages',
          toggleLanguage(
            settings.disabledLanguages,
            language,
            !isLanguageEnabled(settings, language)
          )
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
    // Escape: dismiss the suggestion shown in the current widget, stay in the editor.
    const dismiss = (editor?: HTMLElement): boolean => {
      const current = app.shell.currentWidget;
      if (!current || (editor && !current.node.contains(editor))) {
        return false;
      }
      if (!dismissSuggestion(manager, current.id)) {
        return false;
      }
      provider.cancelLatest();
      return true;
    };
    app.commands.addCommand(CommandIDs.dismiss, {
      label: trans.__('Dismiss Code Suggestion'),
      caption: trans.__('Hide the suggestion shown and stay in the editor (Escape)'),
      execute: () => {
        dismiss();
      }
    });
    new EscapeListener({ dismiss: editor => dismiss(editor) });

    // Fresh-line suggestions: after Enter on a line with only indentation.
    let debounce = DEFAULT_DEBOUNCE_MS;
    const freshLine = new FreshLineTrigger({
      settings: () => settings,
      delay: () => debounce,
      language: () => editorLanguage(),
      request: view => {
        const current = app.shell.currentWidget;
        if (!current || !current.node.contains(view.dom) || !manager.inline) {
          return;
        }
        provider.expectAutomatic(view.state.doc.toString());
        manager.inline.invoke(current.id);
      }
    });
    if (extensions) {
      extensions.addExtension({
        name: 'jupyter-codecomplete:fresh-line',
        factory: () =>
          EditorExtensionRegistry.createImmutableExtension(freshLine.extension())
      });
    }
    app.commands.addCommand(CommandIDs.reconnect, {
      label: trans.__('Reconnect to the Completion Server'),
      isEnabled: () => socket.state === 'disconnected',
      execute: () => socket.connect()
    });
    app.commands.addCommand(CommandIDs.openSettings, {
      label: trans.__('Code Completion Settings…'),
      icon: codeCompleteIcon,
      execute: () =>
        app.commands.execute('settingeditor:open', { query: SETTINGS_TITLE })
    });
    app.commands.addCommand(CommandIDs.chooseModel, {
      label: trans.__('Choose Model…'),
      caption: trans.__('Pick, download or enter the model that writes the suggestions'),
      execute: () =>
        showModelDialog({
          client: new ModelsClient({
            serverSettings: app.serviceManager.serverSettings
          }),
          translator: translator ?? nullTranslator,
          onSwitched: model => {
            status.model = model;
          }
        })
    });
    if (palette) {
      const category = trans.__('Code Completion');
      for (const command of MENU_COMMANDS) {
        if (command !== '-') {
          palette.addItem({ command, category });
        }
      }
    }

    // The status item: status bar in JupyterLab; toolbars where there is no status bar.
    const makeItem = (compact: boolean) =>
      new StatusWidget({
        model: status,
        commands: app.commands,
        menuCommands: MENU_COMMANDS,
        compact
      });
    if (statusBar) {
      statusBar.registerStatusItem('jupyter-codecomplete:status', {
        item: makeItem(false),
        align: 'right',
        rank: 100
      });
    } else {
      const addToToolbar = (widget: IDocumentWidget) => {
        const item = makeItem(true);
        const toolbar = widget.toolbar as
          | { addItem(name: string, w: Widget): boolean }
          | undefined;
        if (!toolbar) {
          item.dispose();
          return;
        }
        toolbar.addItem('codecomplete-status', item);
        return item;
      };
      for (const factory of ['Notebook', 'Editor']) {
        app.docRegistry.addWidgetExtension(factory, {
          createNew: widget => addToToolbar(widget as IDocumentWidget)
        });
      }
    }

    // Settings.
    if (settingRegistry) {
      const readDebounce = (composite: unknown) => {
        const providers = (composite as { providers?: Record<string, any> } | null)
          ?.providers;
        const delay = providers?.[PROVIDER_ID]?.debouncerDelay;
        debounce = typeof delay === 'number' && delay >= 0 ? delay : DEFAULT_DEBOUNCE_MS;
      };
      // Loaded once the app is restored: the inline completer registers its settings transform
      // then, and a load before it is refused ("no transformers yet"), which left the
      // fresh-line trigger on the default delay whatever the user's debounce.
      void app.restored
        .then(() => settingRegistry.load(INLINE_COMPLETER_PLUGIN))
        .then(loaded => {
          readDebounce(loaded.composite);
          loaded.changed.connect(() => readDebounce(loaded.composite));
        })
        .catch(() => {
          /* no inline completer settings: keep the default debounce */
        });
      void settingRegistry
        .load(PLUGIN_ID)
        .then(loaded => {
          stored = loaded;
          applySettings(loaded.composite);
          loaded.changed.connect(() => applySettings(loaded.composite));
        })
        .catch(reason => {
          console.error('jupyter-codecomplete: cannot load the settings', reason);
        });
    }
  }
};

export default plugin;
