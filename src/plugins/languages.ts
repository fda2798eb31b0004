/**
 * The languages plugin: the language of an editor, from its MIME type, JupyterLab's language
 * registry and, while the MIME type does not tell yet, the kernel.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { IInlineCompletionContext } from '@jupyterlab/completer';

import { languageFromMime } from '../context/context';
import { ILanguageResolver } from '../tokens';
import { currentEditorMime, kernelLanguage } from '../context/widgets';

export const languagesPlugin: JupyterFrontEndPlugin<ILanguageResolver> = {
  id: 'jupyter-codecomplete:languages',
  description: 'Finds the language of the editors that ask for completions.',
  autoStart: true,
  provides: ILanguageResolver,
  optional: [IEditorLanguageRegistry],
  activate: (
    app: JupyterFrontEnd,
    languages: IEditorLanguageRegistry | null
  ): ILanguageResolver => {
    const resolve = (mime: string | null, context?: IInlineCompletionContext): string | null => {
      const found = mime ? languages?.findByMIME(mime) : null;
      const language = mime ? languageFromMime(mime, found?.name ?? null) : null;
      if ((!language || language === 'plaintext') && context) {
        // The kernel has not told its language yet: ask the notebook or the session.
        return kernelLanguage(context) ?? language;
      }
      return language;
    };
    const editorLanguage = (): string | null => {
      const widget = app.shell.currentWidget;
      const mime = currentEditorMime(widget);
      const context = widget ? ({ widget, triggerKind: 1 } as IInlineCompletionContext) : undefined;
      return mime ? resolve(mime, context) : null;
    };
    return { resolve, editorLanguage };
  }
};
