/**
 * Partial accept ("accept next word", "accept next line") and keeping a suggestion visible
 * across Enter. JupyterLab's inline completer only accepts a whole suggestion, and hides the
 * ghost text when the cursor moves to a new line; both are answered here from the suggestion
 * the provider already has, without a model call.
 *
 * Only over our own suggestion: with another provider's ghost text on screen (jupyter-ai,
 * notebook-intelligence; Alt+[ / Alt+] switch between them), Ctrl+→ and Ctrl+Alt+→ are left to
 * the editor, never used to insert our suggestion that is not shown.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { TranslationBundle } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';
import { IDisposable } from '@lumino/disposable';

import { activeEditor, editorState } from './editorstate';
import { ACCEPT_COMMAND } from './prefetch';
import { CodeCompleteProvider } from './provider';
import { nextLine, nextWord } from './typing';

/**
 * Command ids of partial accept.
 */
export namespace PartialAcceptCommandIDs {
  export const acceptWord = 'codecomplete:accept-word';
  export const acceptLine = 'codecomplete:accept-line';
}

/**
 * Whether the ghost text on screen is our suggestion's rest (JupyterLab shows one provider's
 * suggestion at a time). Compared without whitespace: the ghost text's DOM turns line breaks into
 * elements, and a suggestion still streaming may be ahead of or behind what is drawn.
 */
export function ownsGhostText(ghost: string | null, rest: string | null): boolean {
  if (ghost === null || !rest) {
    return false;
  }
  const shown = ghost.replace(/\s+/g, '');
  const ours = rest.replace(/\s+/g, '');
  if (!shown || !ours) {
    return shown === ours;
  }
  return ours.startsWith(shown) || shown.startsWith(ours);
}

/**
 * The ghost text drawn in an editor (JupyterLab's `.jp-GhostText`), or null when none is.
 */
export function shownGhostText(host: HTMLElement | null | undefined): string | null {
  const node = host?.querySelector('.jp-GhostText');
  return node ? (node.textContent ?? '') : null;
}

/**
 * Register the partial-accept commands and the Enter continuation, and tell the provider's
 * lifecycle of JupyterLab's whole accept (Tab); dispose to undo.
 */
export function registerPartialAccept(options: {
  app: JupyterFrontEnd;
  manager: ICompletionProviderManager;
  provider: CodeCompleteProvider;
  trans: TranslationBundle;
  /**
   * Whether accepting all of the suggestion asks for the next one at once (issue 29).
   */
  suggestAfterAccept?: () => boolean;
}): IDisposable {
  const { app, manager, provider, trans } = options;

  /**
   * Show the rest of the suggestion again at the cursor (answered from the provider's memory).
   */
  const reshow = () => {
    const widget = app.shell.currentWidget;
    const state = editorState(widget);
    if (widget && state && manager.inline) {
      // not the user's Alt+\: answered from the remembered suggestion
      provider.expectAutomatic(state.text);
      manager.inline.invoke(widget.id);
    }
  };

  const accept = (take: (rest: string) => string, kind: 'word' | 'line') => {
    const widget = app.shell.currentWidget;
    const found = activeEditor(widget);
    const state = editorState(widget);
    const rest = state ? provider.rest(state) : null;
    if (!found || !state || !rest || !ownsGhostText(shownGhostText(found.editor.host), rest)) {
      return; // another provider's suggestion (or none) is shown: not ours to insert
    }
    const part = take(rest);
    const { editor } = found;
    editor.model.sharedModel.updateSource(state.offset, state.offset, part);
    const position = editor.getPositionAt(state.offset + part.length);
    if (position) {
      editor.setCursorPosition(position);
    }
    if (provider.notePartialAccept(kind, part, state)) {
      return; // all of a finished suggestion taken: its lifecycle's accepted end asks what follows
    }
    // the rest of the suggestion, or (all there is so far taken) what streams on: at once
    if (part.length < rest.length || (options.suggestAfterAccept?.() ?? false)) {
      reshow();
    }
  };

  const word = app.commands.addCommand(PartialAcceptCommandIDs.acceptWord, {
    label: trans.__('Accept Next Word of the Suggestion'),
    caption: trans.__('Insert the next word of the ghost text; the rest stays'),
    execute: () => accept(nextWord, 'word')
  });
  const line = app.commands.addCommand(PartialAcceptCommandIDs.acceptLine, {
    label: trans.__('Accept Next Line of the Suggestion'),
    caption: trans.__('Insert the ghost text up to the end of its line; the rest stays'),
    execute: () => accept(nextLine, 'line')
  });

  // The editor (CodeMirror) handles Ctrl+Arrow keys itself before JupyterLab's shortcuts
  // see them: while ghost text is shown, run the partial-accept shortcuts first.
  const PARTIAL = new Set<string>([
    PartialAcceptCommandIDs.acceptWord,
    PartialAcceptCommandIDs.acceptLine
  ]);
  const partialShortcut = (event: KeyboardEvent): boolean => {
    const target = event.target as Element | null;
    if (!target || typeof target.closest !== 'function') {
      return false;
    }
    // only over our own suggestion: else the key is the editor's (word and line moves)
    const widget = app.shell.currentWidget;
    const found = activeEditor(widget);
    const state = editorState(widget);
    if (
      !found ||
      !state ||
      !ownsGhostText(shownGhostText(found.editor.host), provider.rest(state))
    ) {
      return false;
    }
    const keystroke = CommandRegistry.keystrokeForKeydownEvent(event);
    if (!keystroke) {
      return false;
    }
    for (const binding of app.commands.keyBindings) {
      if (
        PARTIAL.has(binding.command) &&
        binding.keys.length === 1 &&
        CommandRegistry.normalizeKeystroke(binding.keys[0]) === keystroke &&
        target.closest(binding.selector)
      ) {
        event.preventDefault();
        event.stopPropagation();
        void app.commands.execute(binding.command, binding.args);
        return true;
      }
    }
    return false;
  };

  // Enter inside a multi-line suggestion: JupyterLab hides the ghost text when the cursor
  // moves to the next line and asks nothing on an empty line; show the rest again.
  const onKeyDown = (event: KeyboardEvent) => {
    if (partialShortcut(event)) {
      return;
    }
    if (
      event.key !== 'Enter' ||
      event.shiftKey ||
      event.ctrlKey ||
      event.altKey ||
      event.metaKey ||
      event.isComposing
    ) {
      return;
    }
    const widget = app.shell.currentWidget;
    if (!activeEditor(widget)?.editor.hasFocus()) {
      return;
    }
    // After the editor has inserted the line break and its indentation.
    window.setTimeout(() => {
      const state = editorState(app.shell.currentWidget);
      if (state && provider.rest(state)) {
        reshow();
      }
    }, 0);
  };
  document.addEventListener('keydown', onKeyDown, true);

  // Tab accepts all of the suggestion: JupyterLab's command, said to the lifecycle here
  const onCommand = (_: unknown, { id }: { id: string }) => {
    if (id === ACCEPT_COMMAND) {
      provider.noteAccepted();
    }
  };
  app.commands.commandExecuted.connect(onCommand);

  let disposed = false;
  return {
    get isDisposed() {
      return disposed;
    },
    dispose() {
      if (disposed) {
        return;
      }
      disposed = true;
      word.dispose();
      line.dispose();
      document.removeEventListener('keydown', onKeyDown, true);
      app.commands.commandExecuted.disconnect(onCommand);
    }
  };
}
