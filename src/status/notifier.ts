/**
 * Error notifications, one per distinct error rather than one per keystroke.
 */
import { IErrorInfo, isBusyError, isQuietError } from '../connection/protocol';

/**
 * Shows each distinct error once until completions work again.
 */
export class ErrorNotifier {
  constructor(options: ErrorNotifier.IOptions) {
    this._show = options.show;
  }

  /**
   * Show the error unless the same error was already shown since the last success.
   *
   * @returns whether a notification was shown
   */
  notify(info: IErrorInfo): boolean {
    if (isQuietError(info)) {
      return false;
    }
    const key = ErrorNotifier.keyOf(info);
    if (this._shown.has(key)) {
      return false;
    }
    this._shown.add(key);
    this._show(info);
    return true;
  }

  /**
   * Forget what was shown (called when a completion succeeds).
   */
  reset(): void {
    this._shown.clear();
  }

  /**
   * How many distinct errors were shown since the last reset.
   */
  get shownCount(): number {
    return this._shown.size;
  }

  private _show: (info: IErrorInfo) => void;
  private _shown = new Set<string>();
}

/**
 * A namespace for ErrorNotifier statics.
 */
export namespace ErrorNotifier {
  export interface IOptions {
    /**
     * Show one notification.
     */
    show: (info: IErrorInfo) => void;
  }

  /**
   * What makes two errors "the same": type, title and message with numbers ignored
   * (a retry delay or a byte count must not make a new notification); every pause of a busy
   * model service is one.
   */
  export function keyOf(info: IErrorInfo): string {
    if (isBusyError(info)) {
      // a 429, a 503 that says when, and every request answered during the pause: one notice
      return 'model_busy';
    }
    const message = (info.message ?? '').replace(/\d+(\.\d+)?/g, '#');
    return `${info.type}\u0000${info.title}\u0000${message}`;
  }
}
