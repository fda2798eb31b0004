/**
 * The JupyterLab / Notebook 7 extension: small plugins, one job each, that reach each other
 * through the tokens in `tokens.ts`, each typed by an interface (as JupyterLab's own completer
 * extension does).
 *
 * - `jupyter-codecomplete:plugin`: the settings (`schema/plugin.json`)
 * - `jupyter-codecomplete:connection`: the websocket to the server
 * - `jupyter-codecomplete:languages`: the language of an editor
 * - `jupyter-codecomplete:provider`: the inline completion provider, partial accept
 * - `jupyter-codecomplete:status-model`, `jupyter-codecomplete:status-item`: the status item
 * - `jupyter-codecomplete:errors`: error notifications
 * - `jupyter-codecomplete:commands`, `jupyter-codecomplete:dismiss`: commands, Escape
 * - `jupyter-codecomplete:fresh-line`: suggestions after Enter
 * - `jupyter-codecomplete:warm`: the context sent ahead for the model server's cache
 * - `jupyter-codecomplete:model-dialog`: "Choose Model…"
 * - `jupyter-codecomplete:edit-prediction`: edit predictions (the diff view, Tab / Escape)
 * - `jupyter-codecomplete:usage`: what becomes of each suggestion (recorded on the server)
 * - `jupyter-codecomplete:statistics`: "Code Suggestions — Statistics"
 * - `jupyter-codecomplete:restraint`: adaptive debounce and the learned gate
 */
import { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { commandsPlugin } from './plugins/commands';
import { connectionPlugin } from './plugins/connection';
import { dismissPlugin } from './plugins/dismiss';
import { editHistoryPlugin, editPredictionPlugin } from './plugins/editprediction';
import { errorsPlugin } from './plugins/errors';
import { freshLinePlugin } from './plugins/freshline';
import { warmPlugin } from './plugins/warm';
import { languagesPlugin } from './plugins/languages';
import { modelDialogPlugin } from './plugins/modeldialog';
import { providerPlugin } from './plugins/provider';
import { restraintPlugin } from './plugins/restraint';
import { settingsPlugin } from './plugins/settings';
import { statisticsPlugin } from './plugins/statistics';
import { statusItemPlugin, statusPlugin } from './plugins/status';
import { usagePlugin } from './plugins/usage';

export { CodeCompleteProvider, PROVIDER_ID } from './completion/provider';
export { CompletionSocket } from './connection/socket';
export * from './tokens';

const plugins: JupyterFrontEndPlugin<any>[] = [
  settingsPlugin,
  connectionPlugin,
  languagesPlugin,
  providerPlugin,
  statusPlugin,
  statusItemPlugin,
  errorsPlugin,
  commandsPlugin,
  dismissPlugin,
  freshLinePlugin,
  warmPlugin,
  modelDialogPlugin,
  editHistoryPlugin,
  editPredictionPlugin,
  usagePlugin,
  statisticsPlugin,
  restraintPlugin
];

export default plugins;
