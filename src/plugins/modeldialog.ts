/**
 * The model dialog plugin: the "Choose Model…" command (pick, download or enter a model).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { showModelDialog } from '../models/modeldialog';
import { ModelsClient } from '../models/models';
import { CommandIDs, ICodeCompleteStatus } from '../tokens';

export const modelDialogPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:model-dialog',
  description: 'The dialog that chooses the model writing the suggestions.',
  autoStart: true,
  requires: [ICodeCompleteStatus],
  optional: [ITranslator, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    status: ICodeCompleteStatus,
    translator: ITranslator | null,
    palette: ICommandPalette | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
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
            status.switched(model);
          },
          onEngineInstall: state => status.engineInstall(state)
        })
    });
    palette?.addItem({
      command: CommandIDs.chooseModel,
      category: trans.__('Code Completion')
    });
  }
};
