import { EscapeListener } from '../completion/dismiss';

describe('EscapeListener', () => {
  const press = (target: Element, init: KeyboardEventInit = {}) => {
    const event = new KeyboardEvent('keydown', {
      key: 'Escape',
      bubbles: true,
      cancelable: true,
      ...init
    });
    target.dispatchEvent(event);
    return event;
  };

  it('dismisses only while a suggestion is shown in the focused editor, and stops the key', () => {
    document.body.innerHTML = `
      <div id="host"><div class="cm-editor"><div class="cm-content" id="content"></div></div></div>`;
    const dismissed: HTMLElement[] = [];
    const listener = new EscapeListener({
      dismiss: editor => {
        dismissed.push(editor);
        return true;
      }
    });
    const seenBelow: string[] = [];
    const content = document.getElementById('content')!;
    content.addEventListener('keydown', () => seenBelow.push('editor'));

    // no suggestion shown: Escape goes on as usual
    let event = press(content);
    expect(dismissed).toHaveLength(0);
    expect(event.defaultPrevented).toBe(false);
    expect(seenBelow).toEqual(['editor']);

    // the "active" class with an empty ghost text node (JupyterLab leaves both after Tab) is
    // no suggestion: Escape goes on as usual
    document.getElementById('host')!.classList.add('jp-mod-inline-completer-active');
    const ghost = document.createElement('span');
    ghost.className = 'jp-GhostText';
    content.appendChild(ghost);
    event = press(content);
    expect(dismissed).toHaveLength(0);
    expect(event.defaultPrevented).toBe(false);
    expect(seenBelow).toEqual(['editor', 'editor']);

    // suggestion shown: dismissed, nobody else sees the key
    ghost.textContent = 'return a + b';
    event = press(content);
    expect(dismissed).toEqual([document.querySelector('.cm-editor')]);
    expect(event.defaultPrevented).toBe(true);
    expect(seenBelow).toEqual(['editor', 'editor']);

    // Shift+Escape and other keys are not ours
    press(content, { shiftKey: true });
    press(content, { key: 'Enter' });
    expect(dismissed).toHaveLength(1);

    listener.dispose();
    press(content);
    expect(dismissed).toHaveLength(1);
  });
});
