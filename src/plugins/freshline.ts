/**
 * The fresh-line plugin: asks for a suggestion after Enter on a line with only indentation.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { ICompletionProviderManager } from '@jupyterlab/completer';

import { FreshLineTrigger } from '../completion/freshline';
import { addEditorExtension } from './editorextension';
import { ICodeCompleteProvider, ICodeCompleteSettings, ILanguageResolver } from '../tokens';

export const freshLinePlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:fresh-line',
  description: 'Suggestions on a fresh line, after Enter.',
  autoStart: true,
  requires: [
    ICompletionProviderManager,
    ICodeCompleteProvider,
    ICodeCompleteSettings,
    ILanguageResolver
  ],
  optional: [IEditorExtensionRegistry],
  activate: (
    app: JupyterFrontEnd,
    manager: ICompletionProviderManager,
    provider: ICodeCompleteProvider,
    settings: ICodeCompleteSettings,
    languages: ILanguageResolver,
    extensions: IEditorExtensionRegistry | null
  ): void => {
    const freshLine = new FreshLineTrigger({
      settings: () => settings.current,
      delay: () => settings.debounce,
      language: () => languages.editorLanguage(),
      request: view => {
        const current = app.shell.currentWidget;
        if (!current || !current.node.contains(view.dom) || !manager.inline) {
          return;
        }
        provider.expectAutomatic(view.state.doc.toString());
        manager.inline.invoke(current.id);
      }
    });
    addEditorExtension(extensions, 'jupyter-codecomplete:fresh-line', () => freshLine.extension());
  }
};
