/**
 * Escape dismisses a visible suggestion and keeps the editor in edit mode.
 *
 * JupyterLab 4.6 has no "dismiss" action for inline completions: in a file editor Escape
 * leaves the ghost text, in a notebook it dismisses it only by leaving edit mode. The
 * `codecomplete:dismiss` command is bound to Escape with the selector JupyterLab puts on an
 * editor while ghost text is shown (`.jp-mod-inline-completer-active`), so it wins over the
 * notebook's Escape only then; with no suggestion shown, Escape does what JupyterLab does.
 */
import { CompletionHandler, ICompletionProviderManager } from '@jupyterlab/completer';

/**
 * The completion handler JupyterLab's manager keeps for a notebook, console or editor widget.
 *
 * The manager has no public accessor for it (4.6); its private map is read defensively and
 * `null` is returned when its shape changes.
 */
export function inlineCompleterOf(
  manager: ICompletionProviderManager,
  widgetId: string
): CompletionHandler['inlineCompleter'] | null {
  const handlers = (manager as unknown as { _panelHandlers?: unknown })._panelHandlers;
  if (!(handlers instanceof Map)) {
    return null;
  }
  const handler = handlers.get(widgetId) as CompletionHandler | undefined;
  return handler?.inlineCompleter ?? null;
}

/**
 * Dismiss the suggestion shown in a widget; true when one was shown.
 */
export function dismissSuggestion(
  manager: ICompletionProviderManager,
  widgetId: string
): boolean {
  const inline = inlineCompleterOf(manager, widgetId);
  if (!inline || !inline.isActive || !inline.model) {
    return false;
  }
  // Clears the ghost text and the "active" class (the model emits its `clear` event).
  inline.model.reset();
  if (!inline.isHidden) {
    inline.hide();
  }
  return true;
}
