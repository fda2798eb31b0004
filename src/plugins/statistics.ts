/**
 * The statistics plugin: "Code Suggestions — Statistics" (command palette, the status item's
 * menu, the Settings menu). In JupyterLab the panel opens in the main area; in Notebook 7, whose
 * main area holds the notebook, in the right side panel.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { codeCompleteIcon } from '../status/icon';
import { StatisticsPanel } from '../usage/statspanel';
import { CommandIDs } from '../tokens';

export const statisticsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:statistics',
  description: 'The panel that shows what became of the code suggestions.',
  autoStart: true,
  optional: [IRenderMimeRegistry, ITranslator, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry | null,
    translator: ITranslator | null,
    palette: ICommandPalette | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    let open: {
      widget: MainAreaWidget<StatisticsPanel> | StatisticsPanel;
      panel: StatisticsPanel;
    } | null = null;
    app.commands.addCommand(CommandIDs.openStatistics, {
      label: trans.__('Code Suggestions — Statistics'),
      caption: trans.__('What became of the suggestions: accepted and kept characters, per model'),
      execute: () => {
        if (open && !open.widget.isDisposed) {
          void open.panel.refresh();
          app.shell.activateById(open.widget.id);
          return;
        }
        const panel = new StatisticsPanel({
          rendermime,
          serverSettings: app.serviceManager.serverSettings,
          translator: translator ?? nullTranslator
        });
        panel.title.icon = codeCompleteIcon;
        if (app.name === 'JupyterLab') {
          const widget = new MainAreaWidget({ content: panel });
          widget.id = 'jp-codecomplete-statistics-main';
          widget.title.label = panel.title.label;
          widget.title.icon = codeCompleteIcon;
          widget.title.closable = true;
          app.shell.add(widget, 'main');
          open = { widget, panel };
        } else {
          app.shell.add(panel, 'right');
          open = { widget: panel, panel };
        }
        app.shell.activateById(open.widget.id);
      }
    });
    palette?.addItem({ command: CommandIDs.openStatistics, category: trans.__('Code Completion') });
  }
};
