/**
 * The edit prediction plugins: the edit history (`IEditHistory`), and the wiring of the
 * edit-prediction feature (`edits/feature.ts`): its CodeMirror extension in every editor, the
 * "Predict Next Edit" command, its keys, the notebooks' cell changes and runs, and the usage
 * tracker following each prediction's life; the feature is the `IEditPredictions` token.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { EditHistories } from '../context/edithistory';
import { runRecord } from '../context/runs';
import { EditPredictionFeature } from '../edits/feature';
import {
  CommandIDs,
  ICodeCompleteSettings,
  ICompletionConnection,
  IEditHistory,
  IEditPredictions,
  ILanguageResolver,
  IUsageTracker
} from '../tokens';
import { addEditorExtension } from './editorextension';

/**
 * The edit history of the documents open in this tab (its own plugin: the inline completion
 * provider reads it, the edit prediction plugin records into it).
 */
export const editHistoryPlugin: JupyterFrontEndPlugin<IEditHistory> = {
  id: 'jupyter-codecomplete:edit-history',
  description: 'The recent edits of each open notebook and file, sent with requests.',
  autoStart: true,
  provides: IEditHistory,
  activate: (): IEditHistory => new EditHistories()
};

export const editPredictionPlugin: JupyterFrontEndPlugin<IEditPredictions> = {
  id: 'jupyter-codecomplete:edit-prediction',
  description:
    'Edit predictions: the next change around the cursor, shown as a diff; Tab applies it.',
  autoStart: true,
  provides: IEditPredictions,
  requires: [ICompletionConnection, ICodeCompleteSettings, IEditorExtensionRegistry, IEditHistory],
  optional: [ILanguageResolver, ITranslator, INotebookTracker, IUsageTracker],
  activate: (
    app: JupyterFrontEnd,
    socket: ICompletionConnection,
    settings: ICodeCompleteSettings,
    registry: IEditorExtensionRegistry,
    histories: IEditHistory,
    languages: ILanguageResolver | null,
    translator: ITranslator | null,
    notebooks: INotebookTracker | null,
    usage: IUsageTracker | null
  ): IEditPredictions => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    const panels = (): NotebookPanel[] => {
      const out: NotebookPanel[] = [];
      notebooks?.forEach(panel => out.push(panel));
      return out;
    };
    const feature = new EditPredictionFeature({
      socket,
      settings: () => settings.current,
      histories,
      trans,
      locator: {
        panels,
        mainWidgets: () => app.shell.widgets('main'),
        currentWidget: () => app.shell.currentWidget,
        resolveLanguage: mime => languages?.resolve(mime) ?? null,
        editorLanguage: () => languages?.editorLanguage() ?? null,
        settings: () => settings.current
      }
    });
    if (usage) {
      usage.followEdits(feature.lifecycle);
    }
    addEditorExtension(registry, 'jupyter-codecomplete:edit-prediction', () => feature.extension());
    app.commands.addCommand(CommandIDs.predictEdit, {
      label: trans.__('Predict Next Edit'),
      caption: trans.__(
        'Suggest the next change around the cursor (Tab applies it, Escape dismisses it)'
      ),
      isEnabled: () => settings.current.editPredictions !== 'off',
      execute: () => feature.predictAtFocus()
    });
    feature.keys();
    if (!notebooks) {
      return feature;
    }
    notebooks.widgetAdded.connect((_, panel) => {
      panel.context.ready
        .then(() =>
          panel.model?.cells.changed.connect((__, change) =>
            feature.cellsChanged(
              panel,
              change.type === 'remove' ? change.oldValues.map(cell => cell.id) : []
            )
          )
        )
        .catch(() => undefined);
    });
    NotebookActions.executionScheduled.connect((_, { cell }) => {
      runRecord.ran(cell.model, cell.model.sharedModel.getSource());
    });
    NotebookActions.executed.connect((_, run) =>
      feature.cellRan(
        run,
        notebooks.find(p => p.content === run.notebook)
      )
    );
    return feature;
  }
};
