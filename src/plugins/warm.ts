/**
 * The warm-up plugin: sends the context ahead when an editor gets the focus or the user pauses.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { InlineCompletionTriggerKind } from '@jupyterlab/completer';
import { Text } from '@jupyterlab/coreutils';

import { activeEditor } from '../completion/editorstate';
import { ICodeCompleteProvider } from '../tokens';
import { WarmTrigger } from '../completion/warm';
import { addEditorExtension } from './editorextension';

export const warmPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:warm',
  description: 'Warms the model server with the context of the next suggestion.',
  autoStart: true,
  requires: [ICodeCompleteProvider],
  optional: [IEditorExtensionRegistry],
  activate: (
    app: JupyterFrontEnd,
    provider: ICodeCompleteProvider,
    extensions: IEditorExtensionRegistry | null
  ): void => {
    const trigger = new WarmTrigger({
      warm: view => {
        const widget = app.shell.currentWidget;
        const found = activeEditor(widget);
        if (!widget || !found || !widget.node.contains(view.dom)) {
          return false;
        }
        const text = view.state.doc.toString();
        const offset = Text.jsIndexToCharIndex(view.state.selection.main.head, text);
        return provider.warm(
          { text, offset, mimeType: found.editor.model.mimeType },
          { widget, triggerKind: InlineCompletionTriggerKind.Automatic }
        );
      }
    });
    addEditorExtension(extensions, 'jupyter-codecomplete:warm', () => trigger.extension());
  }
};
