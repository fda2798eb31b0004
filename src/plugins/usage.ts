/**
 * The usage plugin: records what becomes of each suggestion (src/usage/usage.ts) and sends it to the
 * server over the completion socket. Hooks: the inline suggestions' lifecycle (asked, shown,
 * accepted, dismissed) and the provider's skipped requests; a document
 * closing (and the page unloading) gives what is still there of suggestions accepted < 30 s ago.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorTracker } from '@jupyterlab/fileeditor';
import { INotebookTracker } from '@jupyterlab/notebook';

import { editorState } from '../completion/editorstate';
import { documentText } from '../context/widgets';
import {
  ICodeCompleteProvider,
  ICodeCompleteSettings,
  ICompletionConnection,
  IUsageTracker
} from '../tokens';
import { UsageTracker } from '../usage/usage';

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
    const all = <T>(each: ((fn: (w: T) => void) => void) | undefined): T[] => {
      const out: T[] = [];
      each?.(w => out.push(w));
      return out;
    };
    const tracker = new UsageTracker({
      send: events => socket.sendUsage(events),
      readText: key =>
        documentText(
          all(fn => notebooks?.forEach(fn)),
          all(fn => editors?.forEach(fn))
        )(key),
      settings: () => settings.current,
      model: () => socket.model,
      editorState: () => editorState(app.shell.currentWidget)
    });
    tracker.follow(provider);
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
