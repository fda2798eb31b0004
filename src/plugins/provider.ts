/**
 * The provider plugin: registers the inline completion provider with JupyterLab's completer,
 * and partial accept (word / line) of its suggestions.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICompletionProviderManager, IInlineCompletionContext } from '@jupyterlab/completer';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { editorState } from '../completion/editorstate';
import { KernelCompleter } from '../context/kernel';
import { registerPartialAccept } from '../completion/partial';
import { registerAcceptFollowUp } from '../completion/prefetch';
import { CodeCompleteProvider } from '../completion/provider';
import {
  ICodeCompleteProvider,
  ICodeCompleteSettings,
  ICompletionConnection,
  IEditHistory,
  ILanguageResolver
} from '../tokens';
import { collectCells, collectOpenDocuments } from '../context/widgets';

export const providerPlugin: JupyterFrontEndPlugin<ICodeCompleteProvider> = {
  id: 'jupyter-codecomplete:provider',
  description: 'The inline completion provider (ghost text) of jupyter_codecomplete.',
  autoStart: true,
  provides: ICodeCompleteProvider,
  requires: [
    ICompletionProviderManager,
    ICompletionConnection,
    ICodeCompleteSettings,
    ILanguageResolver
  ],
  optional: [ITranslator, INotebookTracker, IEditHistory],
  activate: (
    app: JupyterFrontEnd,
    manager: ICompletionProviderManager,
    socket: ICompletionConnection,
    settings: ICodeCompleteSettings,
    languages: ILanguageResolver,
    translator: ITranslator | null,
    notebooks: INotebookTracker | null,
    history: IEditHistory | null
  ): ICodeCompleteProvider => {
    const resolveLanguage = (
      mime: string | null,
      context?: IInlineCompletionContext
    ): string | null => languages.resolve(mime, context);
    const kernelCompleter = new KernelCompleter();
    const provider = new CodeCompleteProvider({
      client: socket,
      settings: () => settings.current,
      translator: translator ?? nullTranslator,
      resolveLanguage,
      collectCells: context => collectCells(context, resolveLanguage),
      collectDocuments: () => collectOpenDocuments(app, resolveLanguage),
      editorState: context => editorState(context.widget),
      prefetchDelay: () => settings.debounce,
      // the edit history goes with completions only to a server that reads it
      recentEdits: context =>
        history && context.widget && socket.hello?.features?.includes('edit_history')
          ? (history.peek(context.widget)?.edits() ?? [])
          : [],
      kernelCandidates: (request, context, language) =>
        kernelCompleter.candidates(
          context.session?.kernel,
          request.text.slice(0, request.offset),
          language
        )
    });
    manager.registerInlineProvider(provider);
    // The kernel's completer is primed while the notebook's kernel is idle, so that the first
    // `df[` the user types already carries the kernel's candidates (kernel.ts, `prime`; not the
    // model server's warm-up, warm.ts).
    notebooks?.widgetAdded.connect((_, panel) => {
      const session = panel.sessionContext;
      const prime = () => {
        if (settings.current.enabled && settings.current.kernelCandidates) {
          kernelCompleter.prime(
            session.session?.kernel,
            resolveLanguage(panel.content.codeMimetype)
          );
        }
      };
      session.statusChanged.connect((_, status) => {
        if (status === 'idle') {
          prime();
        }
      });
    });
    // Typing through, partial accept (issue 17): one block.
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    registerPartialAccept({
      app,
      manager,
      provider,
      trans,
      suggestAfterAccept: () => settings.current.suggestAfterAccept
    });
    // The suggestion after an accept (issue 29): asked for at once after Tab.
    registerAcceptFollowUp({
      app,
      manager,
      lifecycle: provider.lifecycle,
      expectAutomatic: text => provider.expectAutomatic(text),
      settings: () => settings.current
    });
    // Suggestions remembered from another model must not come back.
    socket.modelChanged.connect(() => provider.forget());
    return provider;
  }
};
