/**
 * The status plugins: the status model (connection, model, last request, language switched
 * off) fed by the connection and the provider, and the status item that shows it: in the
 * status bar in JupyterLab, in the notebook and editor toolbars where there is no status bar
 * (Notebook 7).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IDocumentWidget } from '@jupyterlab/docregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { Notification } from '@jupyterlab/apputils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { displayLanguage } from '../context/context';
import { isLanguageEnabled } from '../settings';
import { StatusModel, StatusWidget } from '../status/status';
import {
  CommandIDs,
  ICodeCompleteProvider,
  ICodeCompleteSettings,
  ICodeCompleteStatus,
  ICompletionConnection,
  ILanguageResolver,
  MENU_COMMANDS
} from '../tokens';

export const statusPlugin: JupyterFrontEndPlugin<ICodeCompleteStatus> = {
  id: 'jupyter-codecomplete:status-model',
  description: 'The state of inline code completion that the status item shows.',
  autoStart: true,
  provides: ICodeCompleteStatus,
  requires: [
    ICompletionConnection,
    ICodeCompleteProvider,
    ICodeCompleteSettings,
    ILanguageResolver
  ],
  optional: [ITranslator],
  activate: (
    app: JupyterFrontEnd,
    socket: ICompletionConnection,
    provider: ICodeCompleteProvider,
    settings: ICodeCompleteSettings,
    languages: ILanguageResolver,
    translator: ITranslator | null
  ): ICodeCompleteStatus => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    const status = new StatusModel({ translator: translator ?? nullTranslator });

    status.setConnection(socket.state);
    status.model = socket.model;
    socket.stateChanged.connect((_, state) => {
      const delay = socket.reconnectDelay;
      status.setConnection(
        state,
        delay !== null ? trans.__('Next attempt in %1 s.', Math.round(delay / 1000)) : ''
      );
    });
    // What the server wants the user to know about the model that serves (a local server was
    // found but cannot fill in the middle, so the demo model serves): once per distinct text.
    const noticed = new Set<string>();
    const tell = (notice: string | null | undefined): void => {
      if (!notice || noticed.has(notice)) {
        return;
      }
      noticed.add(notice);
      Notification.info(notice, {
        autoClose: 15000,
        actions: app.commands.hasCommand(CommandIDs.chooseModel)
          ? [
              {
                label: trans.__('Choose Model…'),
                callback: () => void app.commands.execute(CommandIDs.chooseModel)
              }
            ]
          : []
      });
    };
    tell(socket.model?.notice);
    socket.modelChanged.connect((_, model) => {
      status.model = model;
      tell(model?.notice);
    });
    socket.unmatchedError.connect((_, info) => {
      status.failed(-1, info);
    });
    status.follow(provider);

    // The status item says when completions are off for the current editor's language.
    const refreshLanguageStatus = (): void => {
      const language = languages.editorLanguage();
      status.languageOff =
        language && !isLanguageEnabled(settings.current, language)
          ? displayLanguage(language)
          : null;
    };
    const applySettings = (): void => {
      status.enabled = settings.current.enabled;
      status.providerEnabled = settings.providerEnabled ?? true;
      refreshLanguageStatus();
    };
    applySettings();
    settings.changed.connect(applySettings);
    const shellChanged = (app.shell as { currentChanged?: { connect(fn: () => void): void } })
      .currentChanged;
    shellChanged?.connect(() => refreshLanguageStatus());
    provider.activity.connect(() => refreshLanguageStatus());
    return status;
  }
};

export const statusItemPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:status-item',
  description:
    'Shows the state of inline code completion in the status bar, or in the toolbars of ' +
    'notebooks and editors where there is no status bar.',
  autoStart: true,
  requires: [ICodeCompleteStatus],
  optional: [IStatusBar],
  activate: (
    app: JupyterFrontEnd,
    status: ICodeCompleteStatus,
    statusBar: IStatusBar | null
  ): void => {
    const makeItem = (compact: boolean) =>
      new StatusWidget({
        model: status,
        commands: app.commands,
        menuCommands: [...MENU_COMMANDS],
        compact
      });
    if (statusBar) {
      statusBar.registerStatusItem('jupyter-codecomplete:status', {
        item: makeItem(false),
        align: 'right',
        rank: 100
      });
      return;
    }
    const addToToolbar = (widget: IDocumentWidget) => {
      const item = makeItem(true);
      const toolbar = widget.toolbar as { addItem(name: string, w: Widget): boolean } | undefined;
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
};
