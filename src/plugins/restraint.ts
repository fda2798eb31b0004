/**
 * The restraint plugin: an adaptive debounce and a gate for automatic requests (src/completion/restraint.ts),
 * set on the provider. The gate's model (with the user's pauses before taking a suggestion) is
 * learned on the server from this user's own events (`GET api/codecomplete/usage/gate`) and
 * asked for again every few minutes.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { editorState } from '../completion/editorstate';
import { busySeconds, isBusyError } from '../connection/protocol';
import { AdaptiveDebounce, IGateModel, Restraint } from '../completion/restraint';
import { RestraintMode } from '../settings';
import { ICodeCompleteProvider, ICodeCompleteSettings, IUsageTracker } from '../tokens';
import { lineKind } from '../usage/usage';

/**
 * The route of the gate's model.
 */
export const GATE_PATH = 'api/codecomplete/usage/gate';

/**
 * How often the gate's model is asked for again (ms).
 */
export const GATE_REFRESH_MS = 5 * 60 * 1000;

const LEVELS: { [mode in RestraintMode]: string } = {
  off: 'off',
  on: 'normal',
  more: 'more',
  less: 'less'
};

export const restraintPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:restraint',
  description: 'Adaptive debounce and a gate learned from your own statistics.',
  autoStart: true,
  requires: [ICodeCompleteProvider, ICodeCompleteSettings],
  optional: [IUsageTracker],
  activate: (
    app: JupyterFrontEnd,
    provider: ICodeCompleteProvider,
    settings: ICodeCompleteSettings,
    tracker: IUsageTracker | null
  ): void => {
    const restraint = new Restraint();
    const { debounce, gate, pauses } = restraint;
    let lastKey = 0;
    if (tracker) {
      // each usage event carries the typing rhythm its request came after (the gate learns it)
      tracker.rhythm = () => debounce.rhythm;
      // and whether restraint held it (its pause before an accept is then not the user's own)
      tracker.held = () => settings.current.restraint !== 'off' && restraint.held;
      // how long the user pauses before taking a suggestion (held places wait that long): the
      // event carries it for the server to learn, and this page learns it at once
      tracker.pause = () => (lastKey ? Date.now() - lastKey : Number.NaN);
      tracker.onAccept = (kind, pauseMs, held) => {
        if (pauseMs !== null) {
          restraint.accepted(kind, pauseMs, held);
        }
      };
    }
    document.addEventListener(
      'keydown',
      event => {
        const target = event.target as Element | null;
        if (
          target &&
          typeof target.closest === 'function' &&
          target.closest('.cm-editor') &&
          (event.key.length === 1 || event.key === 'Backspace' || event.key === 'Enter')
        ) {
          lastKey = Date.now();
          debounce.keystroke(lastKey);
        }
      },
      true
    );
    // the model's time to show: from a request to its first ghost text
    const started = new Map<number, number>();
    provider.activity.connect((_, activity) => {
      if (activity.kind === 'failed' && isBusyError(activity.error)) {
        // a shared model asked for a pause: fewer requests for a while after it, too
        debounce.strain(
          Date.now() + busySeconds(activity.error!) * 1000 + AdaptiveDebounce.STRAIN_AFTER_MS
        );
      }
      if (activity.kind === 'started') {
        started.set(activity.number, Date.now());
        if (started.size > 64) {
          started.delete(started.keys().next().value as number);
        }
      }
    });
    provider.shown.connect((_, { suggestion, rest }) => {
      const t = started.get(suggestion.number);
      if (t !== undefined && rest) {
        started.delete(suggestion.number);
        debounce.latency(Date.now() - t);
      }
    });
    provider.dismissed.connect(() => {
      const state = editorState(app.shell.currentWidget);
      if (state) {
        gate.dismissedAt(state.key, state.text, state.offset);
      }
    });

    const serverSettings = app.serviceManager.serverSettings;
    let asked = '';
    const learn = async () => {
      const mode = settings.current.restraint;
      asked = mode;
      if (mode === 'off' || !settings.current.recordUsage) {
        gate.model = null;
        pauses.model = null;
        return;
      }
      const url = `${URLExt.join(serverSettings.baseUrl, GATE_PATH)}?level=${LEVELS[mode]}`;
      try {
        const response = await ServerConnection.makeRequest(url, {}, serverSettings);
        gate.model = response.ok ? ((await response.json()) as IGateModel) : null;
      } catch {
        gate.model = null; // an older server: no gate
      }
      // the pauses the server learned from the stored events (until this page has its own)
      pauses.model = gate.model;
    };
    void learn();
    window.setInterval(() => void learn(), GATE_REFRESH_MS);
    settings.changed.connect((_, current) => {
      if (current.restraint !== asked) {
        void learn();
      }
    });

    provider.setRestraint(async ({ state, freshLine, language }) => {
      if (settings.current.restraint === 'off') {
        return null;
      }
      const { skip, after } = restraint.decide({
        key: state.key,
        text: state.text,
        offset: state.offset,
        trigger: freshLine ? 'fresh_line' : 'typing',
        lineKind: lineKind(state.text, state.offset, language),
        typingMs: debounce.rhythm
      });
      if (skip) {
        return skip;
      }
      // JupyterLab's own debounce has passed; wait the rest of the adaptive one (or the hold)
      const extra = after - (Date.now() - lastKey);
      if (extra > 0) {
        await new Promise(resolve => window.setTimeout(resolve, extra));
        // the user left the editor while the request waited (command mode, a menu): not wanted
        const focused = document.activeElement;
        if (!focused || typeof focused.closest !== 'function' || !focused.closest('.cm-editor')) {
          return 'left-editor';
        }
      }
      return null;
    });
  }
};
