import { EditorFocusTracker } from '../completion/focus';

describe('EditorFocusTracker', () => {
  it('remembers the editor while a menu has the focus and forgets it elsewhere', () => {
    document.body.innerHTML = `
      <div class="cm-editor"><div class="cm-content" tabindex="0" id="content"></div></div>
      <div class="lm-Menu" tabindex="0" id="menu"></div>
      <div class="jp-Notebook" tabindex="0" id="notebook"></div>`;
    const tracker = new EditorFocusTracker();
    const focus = (id: string) => document.getElementById(id)!.focus();
    expect(tracker.editor).toBeNull();
    focus('content');
    const editor = document.querySelector('.cm-editor');
    expect(tracker.editor).toBe(editor);
    focus('menu');
    expect(tracker.editor).toBe(editor);
    // notebook command mode: the notebook node takes the focus
    focus('notebook');
    expect(tracker.editor).toBeNull();
    focus('content');
    expect(tracker.editor).toBe(editor);
    // a removed editor is forgotten
    editor!.remove();
    expect(tracker.editor).toBeNull();
    tracker.dispose();
    expect(tracker.isDisposed).toBe(true);
  });
});
