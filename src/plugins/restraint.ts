/**
 * The restraint plugin: an adaptive debounce and a gate for automatic requests
 * (`completion/restrainer.ts`), set on the provider, and a back-off for automatic edit
 * predictions. The gate's model (with the user's pauses before taking a suggestion) is learned
 * on the server from this user's own events (`GET api/codecomplete/usage/gate`) and asked for
 * again every few minutes.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { editorState } from '../completion/editorstate';
import { IGateModel } from '../completion/restraint';
import { RestraintFeature } from '../completion/restrainer';
import {
  ICodeCompleteProvider,
  ICodeCompleteSettings,
  IEditPredictions,
  IUsageTracker
} from '../tokens';

/**
 * The route of the gate's model.
 */
export const GATE_PATH = 'api/codecomplete/usage/gate';

/**
 * How often the gate's model is asked for again (ms).
 */
export const GATE_REFRESH_MS = 5 * 60 * 1000;

export const restraintPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:restraint',
  description: 'Adaptive debounce and a gate learned from your own statistics.',
  autoStart: true,
  requires: [ICodeCompleteProvider, ICodeCompleteSettings],
  optional: [IUsageTracker, IEditPredictions],
  activate: (
    app: JupyterFrontEnd,
    provider: ICodeCompleteProvider,
    settings: ICodeCompleteSettings,
    tracker: IUsageTracker | null,
    edits: IEditPredictions | null
  ): void => {
    const serverSettings = app.serviceManager.serverSettings;
    const feature = new RestraintFeature({
      settings: () => settings.current,
      fetchGate: async level => {
        const url = `${URLExt.join(serverSettings.baseUrl, GATE_PATH)}?level=${level}`;
        const response = await ServerConnection.makeRequest(url, {}, serverSettings);
        return response.ok ? ((await response.json()) as IGateModel) : null;
      },
      editorState: () => editorState(app.shell.currentWidget),
      inEditor: () => {
        const focused = document.activeElement;
        return (
          !!focused && typeof focused.closest === 'function' && !!focused.closest('.cm-editor')
        );
      }
    });
    if (tracker) {
      feature.attach(tracker);
    }
    document.addEventListener('keydown', event => feature.keydown(event), true);
    feature.follow(provider);
    void feature.learn();
    window.setInterval(() => void feature.learn(), GATE_REFRESH_MS);
    settings.changed.connect(() => void feature.learn(false));
    provider.setRestraint(feature.decide);
    if (edits) {
      feature.followEdits(edits.lifecycle);
      edits.setRestraint(feature.decideEdit);
    }
  }
};
