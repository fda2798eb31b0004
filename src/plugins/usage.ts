/**
 * The usage plugin: records what becomes of each suggestion (src/usage/usage.ts) and sends it to the
 * server over the completion socket. Hooks: the provider's `shown`, `partlyAccepted` and
 * `dismissed` signals, its `started` activity, and JupyterLab's Tab accept command; a document
 * closing (and the page unloading) gives what is still there of suggestions accepted < 30 s ago.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorTracker } from '@jupyterlab/fileeditor';
import { INotebookTracker } from '@jupyterlab/notebook';

import { editorState } from '../completion/editorstate';
import {
  ICodeCompleteProvider,
  ICodeCompleteSettings,
  ICompletionConnection,
  IUsageTracker
} from '../tokens';
import { UsageTracker } from '../usage/usage';

/**
 * JupyterLab's command that accepts the inline suggestion shown (bound to Tab).
 */
export const INLINE_ACCEPT_COMMAND = 'inline-completer:accept';

export const usagePlugin: JupyterFrontEndPlugin<IUsageTracker> = {
  id: 'jupyter-codecomplete:usage',
  description: 'Records, on this machine, what becomes of each code suggestion shown.',
  autoStart: true,
  provides: IUsageTracker,
  requires: [ICodeCompleteProvider, ICompletionConnection, ICodeCompleteSettings],
  optional: [INotebookTracker, IEditorTracker],
  activate: (
    app: JupyterFrontEnd,
    provider: ICodeCompleteProvider,
    socket: ICompletionConnection,
    settings: ICodeCompleteSettings,
    notebooks: INotebookTracker | null,
    editors: IEditorTracker | null
  ): IUsageTracker => {
    // The text of a document by the key the provider uses: `path#cellId` in a notebook or a
    // console (found by cell id, so a moved cell or a renamed notebook is still found), the
    // path of a file editor; null when it is not open.
    const readText = (key: string): string | null => {
      const hash = key.lastIndexOf('#');
      if (hash >= 0) {
        const cellId = key.slice(hash + 1);
        let found: string | null = null;
        let open = false;
        notebooks?.forEach(panel => {
          if (found !== null) {
            return;
          }
          open = open || panel.context.path === key.slice(0, hash);
          for (const cell of panel.content.widgets) {
            if (cell.model.id === cellId) {
              found = cell.model.sharedModel.getSource();
              return;
            }
          }
        });
        // the notebook is open and the cell is gone: nothing kept
        return found ?? (open ? '' : null);
      }
      let text: string | null = null;
      editors?.forEach(widget => {
        if (text === null && widget.context.path === key) {
          text = widget.content.model.sharedModel.getSource();
        }
      });
      return text;
    };
    const tracker = new UsageTracker({
      send: events => socket.sendUsage(events),
      readText,
      settings: () => settings.current,
      model: () => socket.model,
      editorState: () => editorState(app.shell.currentWidget)
    });
    provider.activity.connect((_, activity) => {
      if (activity.kind === 'started' || activity.kind === 'skipped') {
        tracker.observe();
      }
      if (activity.kind === 'started') {
        tracker.started(activity.number);
      }
    });
    provider.shown.connect((_, { suggestion, rest, language, trigger }) =>
      tracker.shown(suggestion, rest, language, trigger)
    );
    provider.partlyAccepted.connect((_, { kind, part }) => tracker.acceptedPart(kind, part));
    provider.dismissed.connect(() => tracker.dismissed());
    app.commands.commandExecuted.connect((_, { id }) => {
      if (id === INLINE_ACCEPT_COMMAND) {
        tracker.acceptedWhole();
      }
    });
    socket.stateChanged.connect((_, state) => {
      if (state === 'connected') {
        tracker.flush();
      }
    });
    // a document's tab closes: read it while it still can be (the trackers forget it first)
    notebooks?.widgetAdded.connect((_, panel) => {
      const path = () => panel.context.path;
      panel.disposed.connect(() =>
        tracker.closing(key => {
          const hash = key.lastIndexOf('#');
          if (hash < 0 || key.slice(0, hash) !== path()) {
            return null;
          }
          const cell = panel.content.widgets.find(c => c.model.id === key.slice(hash + 1));
          return cell ? cell.model.sharedModel.getSource() : '';
        })
      );
    });
    editors?.widgetAdded.connect((_, widget) => {
      widget.disposed.connect(() =>
        tracker.closing(key =>
          key === widget.context.path ? widget.content.model.sharedModel.getSource() : null
        )
      );
    });
    window.addEventListener('beforeunload', () => tracker.dispose());
    return tracker;
  }
};
