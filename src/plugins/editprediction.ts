/**
 * The edit prediction plugin: the view in every CodeMirror editor, the "Predict Next Edit"
 * command, automatic requests (the `editPredictions` setting), and Tab / Escape on a prediction.
 */
import { EditorView } from '@codemirror/view';
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import {
  applyPrediction,
  currentPrediction,
  dismissPrediction,
  EditPredictionKeys,
  editPredictionExtension
} from '../editprediction';
import { EditPredictionController } from '../editrequest';
import { CompletionSocket } from '../socket';
import {
  CommandIDs,
  ICodeCompleteSettings,
  ICompletionConnection,
  ILanguageResolver
} from '../tokens';
import { addEditorExtension } from './editorextension';

/**
 * The editor that has the focus, if it is a CodeMirror editor.
 */
function focusedView(): EditorView | null {
  const active = document.activeElement;
  const dom = active && typeof active.closest === 'function' ? active.closest('.cm-editor') : null;
  return dom ? EditorView.findFromDOM(dom as HTMLElement) : null;
}

function pathOf(app: JupyterFrontEnd): string | null {
  const widget = app.shell.currentWidget as unknown as { context?: { path?: unknown } } | null;
  const path = widget?.context?.path;
  return typeof path === 'string' ? path : null;
}

export const editPredictionPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:edit-prediction',
  description:
    'Edit predictions: the next change around the cursor, shown as a diff; Tab applies it.',
  autoStart: true,
  requires: [ICompletionConnection, ICodeCompleteSettings, IEditorExtensionRegistry],
  optional: [ILanguageResolver, ITranslator],
  activate: (
    app: JupyterFrontEnd,
    socket: CompletionSocket,
    settings: ICodeCompleteSettings,
    registry: IEditorExtensionRegistry,
    languages: ILanguageResolver | null,
    translator: ITranslator | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    const controller = new EditPredictionController({
      socket,
      mode: () => settings.current.editPredictions,
      context: () => ({ path: pathOf(app), language: languages?.editorLanguage() ?? null })
    });
    addEditorExtension(registry, 'jupyter-codecomplete:edit-prediction', () =>
      editPredictionExtension((view, update) => controller.changed(view, update))
    );
    app.commands.addCommand(CommandIDs.predictEdit, {
      label: trans.__('Predict Next Edit'),
      caption: trans.__(
        'Suggest the next change around the cursor (Tab applies it, Escape dismisses it)'
      ),
      isEnabled: () => settings.current.editPredictions !== 'off',
      execute: async () => {
        const view = focusedView();
        return view ? controller.request(view, 'manual') : false;
      }
    });
    new EditPredictionKeys({
      apply: view => applyPrediction(view),
      dismiss: view => dismissPrediction(view),
      shown: view => currentPrediction(view) !== null
    });
  }
};
