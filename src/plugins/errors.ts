/**
 * The errors plugin: a notification for each distinct failure (when the settings ask for them),
 * with the server's details one click away.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification, showErrorMessage } from '@jupyterlab/apputils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { ErrorNotifier } from '../status/notifier';
import { busySeconds, IErrorInfo, isBusyError } from '../connection/protocol';
import { ICodeCompleteProvider, ICodeCompleteSettings, ICompletionConnection } from '../tokens';

export const errorsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-codecomplete:errors',
  description: 'Notifies the user of inline code completion failures.',
  autoStart: true,
  requires: [ICompletionConnection, ICodeCompleteProvider, ICodeCompleteSettings],
  optional: [ITranslator],
  activate: (
    _app: JupyterFrontEnd,
    socket: ICompletionConnection,
    provider: ICodeCompleteProvider,
    settings: ICodeCompleteSettings,
    translator: ITranslator | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_codecomplete');
    const details = (info: IErrorInfo): string =>
      `${info.message}\n\n${trans.__('Error type: %1', info.type)}${
        info.retry_after ? '\n' + trans.__('Retry after %1 s', info.retry_after) : ''
      }`;
    const notifier = new ErrorNotifier({
      show: (info: IErrorInfo) => {
        if (isBusyError(info)) {
          // a shared model's pause: said once, as information (the status item counts it down)
          Notification.info(trans.__('Model busy, retrying in %1 s', busySeconds(info)), {
            autoClose: Math.min(15000, busySeconds(info) * 1000 + 2000)
          });
          return;
        }
        const title = trans.__('Code completion failed: %1', info.title);
        Notification.emit(title, 'error', {
          autoClose: 10000,
          actions: [
            {
              label: trans.__('Details'),
              caption: trans.__('Show the error reported by the server'),
              callback: () => {
                void showErrorMessage(title, { message: details(info) });
              }
            }
          ]
        });
      }
    });
    const report = (info: IErrorInfo): void => {
      if (settings.current.notifyErrors) {
        notifier.notify(info);
      }
    };
    socket.unmatchedError.connect((_, info) => report(info));
    provider.activity.connect((_, activity) => {
      if (activity.kind === 'succeeded') {
        notifier.reset();
      } else if (activity.kind === 'failed' && activity.error) {
        report(activity.error);
      }
    });
  }
};
