/**
 * The tokens the plugins of this extension provide to each other, the plugin and command ids,
 * and the commands of the status item's menu.
 *
 * One plugin owns each concern (see `plugins/`); the others reach it through its token here.
 */
import { IInlineCompletionContext } from '@jupyterlab/completer';
import { ISignal } from '@lumino/signaling';
import { Token } from '@lumino/coreutils';

import { EditHistory } from './edithistory';
import { CodeCompleteProvider } from './provider';
import { ISettings } from './settings';
import { CompletionSocket } from './socket';
import { StatusModel } from './status';
import { UsageTracker } from './usage';

/**
 * The id of the settings plugin; also the id of the settings schema `schema/plugin.json`
 * (user settings and the settings menu depend on it: never change it).
 */
export const PLUGIN_ID = 'jupyter-codecomplete:plugin';

/**
 * Command ids.
 */
export namespace CommandIDs {
  export const toggleEnabled = 'codecomplete:toggle-enabled';
  export const toggleLanguage = 'codecomplete:toggle-language';
  export const request = 'codecomplete:request';
  export const reconnect = 'codecomplete:reconnect';
  export const openSettings = 'codecomplete:open-settings';
  export const dismiss = 'codecomplete:dismiss';
  export const chooseModel = 'codecomplete:choose-model';
  export const openStatistics = 'codecomplete:open-statistics';
  export const predictEdit = 'codecomplete:predict-edit';
}

/**
 * The commands of the status item's menu, in order; `-` is a separator.
 */
export const MENU_COMMANDS: ReadonlyArray<string> = [
  CommandIDs.chooseModel,
  '-',
  CommandIDs.toggleEnabled,
  CommandIDs.toggleLanguage,
  '-',
  CommandIDs.request,
  CommandIDs.reconnect,
  '-',
  CommandIDs.openStatistics,
  CommandIDs.openSettings
];

/**
 * The user's settings of this extension, as they are now.
 */
export interface ICodeCompleteSettings {
  /**
   * The settings in force (the defaults until the setting registry answers).
   */
  readonly current: ISettings;
  /**
   * Emitted with the new settings whenever they change.
   */
  readonly changed: ISignal<ICodeCompleteSettings, ISettings>;
  /**
   * The debounce of JupyterLab's inline completer for this provider, in ms.
   */
  readonly debounce: number;
  /**
   * Store one setting (in the setting registry when there is one).
   */
  save<K extends keyof ISettings>(key: K, value: ISettings[K]): Promise<void>;
}

/**
 * The settings token.
 */
export const ICodeCompleteSettings = new Token<ICodeCompleteSettings>(
  'jupyter-codecomplete:ICodeCompleteSettings',
  'The settings of inline code completion, with a signal when they change.'
);

/**
 * The websocket connection to the completion server.
 */
export const ICompletionConnection = new Token<CompletionSocket>(
  'jupyter-codecomplete:ICompletionConnection',
  'The websocket connection to the jupyter_codecomplete server.'
);

/**
 * Finds the language of an editor.
 */
export interface ILanguageResolver {
  /**
   * The language of an editor with this MIME type; with a context, the kernel's language
   * when the MIME type does not tell (yet).
   */
  resolve(mime: string | null, context?: IInlineCompletionContext): string | null;
  /**
   * The language of the editor in the current widget (null: no editor there).
   */
  editorLanguage(): string | null;
}

/**
 * The language resolver token.
 */
export const ILanguageResolver = new Token<ILanguageResolver>(
  'jupyter-codecomplete:ILanguageResolver',
  'Finds the language of an editor from its MIME type, the language registry and the kernel.'
);

/**
 * The inline completion provider registered with JupyterLab's completer.
 */
export const ICodeCompleteProvider = new Token<CodeCompleteProvider>(
  'jupyter-codecomplete:ICodeCompleteProvider',
  'The inline completion provider of jupyter_codecomplete.'
);

/**
 * What the status item shows: connection, model, last request, errors.
 */
export const ICodeCompleteStatus = new Token<StatusModel>(
  'jupyter-codecomplete:ICodeCompleteStatus',
  'The state the status item of jupyter_codecomplete shows.'
);

/**
 * What becomes of the suggestions shown in this tab (recorded on the server, on this machine).
 */
export const IUsageTracker = new Token<UsageTracker>(
  'jupyter-codecomplete:IUsageTracker',
  'Records what becomes of each code suggestion shown.'
);

/**
 * The user's recent edits per document (a notebook panel, a file editor): the edit prediction
 * plugin records them, edit predictions and inline completions send them.
 */
export interface IEditHistory {
  /**
   * The history of a document (created on first use; `path` follows a rename).
   */
  of(document: object, path: string | null): EditHistory;
  /**
   * The history of a document, if it has one.
   */
  peek(document: object): EditHistory | null;
}

/**
 * The edit history token.
 */
export const IEditHistory = new Token<IEditHistory>(
  'jupyter-codecomplete:IEditHistory',
  'The recent edits of each open notebook and file, as unified diffs with their cell.'
);
