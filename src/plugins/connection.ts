/**
 * The connection plugin: the one websocket to the completion server.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';

import { CompletionSocket } from '../connection/socket';
import { ICompletionConnection } from '../tokens';

export const connectionPlugin: JupyterFrontEndPlugin<ICompletionConnection> = {
  id: 'jupyter-codecomplete:connection',
  description: 'The websocket connection to the jupyter_codecomplete server.',
  autoStart: true,
  provides: ICompletionConnection,
  activate: (app: JupyterFrontEnd): ICompletionConnection =>
    new CompletionSocket({ serverSettings: app.serviceManager.serverSettings })
};
