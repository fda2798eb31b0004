/**
 * The dismiss plugin: Escape (and a command) hides the suggestion shown and stays in the editor.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { dismissSuggestion, EscapeListener } from '../completion/dismiss';
import { CommandIDs, ICodeCompleteProvider } from '../tokens';

export const dismissPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:dismiss',
  description: 'Escape dismisses the inline suggestion shown.',
  autoStart: true,
  requires: [ICompletionProviderManager, ICodeCompleteProvider],
  optional: [ITranslator],
  activate: (
    app: JupyterFrontEnd,
    manager: ICompletionProviderManager,
    provider: ICodeCompleteProvider,
    translator: ITranslator | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    // Dismiss the suggestion shown in the current widget (in this editor when one is given).
    const dismiss = (editor?: HTMLElement): boolean => {
      const current = app.shell.currentWidget;
      if (!current || (editor && !current.node.contains(editor))) {
        return false;
      }
      if (!dismissSuggestion(manager, current.id)) {
        return false;
      }
      provider.cancelLatest();
      return true;
    };
    app.commands.addCommand(CommandIDs.dismiss, {
      label: trans.__('Dismiss Code Suggestion'),
      caption: trans.__('Hide the suggestion shown and stay in the editor (Escape)'),
      execute: () => {
        dismiss();
      }
    });
    new EscapeListener({ dismiss: editor => dismiss(editor) });
  }
};
