import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';

import { ErrorNotifier } from '../status/notifier';
import { IServingModel } from '../connection/protocol';
import { StatusModel, StatusWidget } from '../status/status';

const backendDown = {
  type: 'backend_unavailable',
  title: 'Backend down',
  message: 'refused (port 8911)'
};

/**
 * A status model whose socket is connected (serving this model, if given).
 */
function connectedStatus(serving?: IServingModel): StatusModel {
  const model = new StatusModel();
  model.setConnection('connected');
  if (serving) {
    model.model = serving;
  }
  return model;
}

describe('ErrorNotifier', () => {
  it('shows each distinct error once until a success', () => {
    const shown: string[] = [];
    const notifier = new ErrorNotifier({ show: info => shown.push(info.type) });
    for (let i = 0; i < 10; i++) {
      notifier.notify(backendDown);
    }
    // Numbers in the message (ports, delays) do not make a new error.
    notifier.notify({ ...backendDown, message: 'refused (port 9000)' });
    notifier.notify({ type: 'timeout', title: 'Timed out', message: 'slow' });
    expect(shown).toEqual(['backend_unavailable', 'timeout']);
    expect(notifier.shownCount).toBe(2);
    notifier.reset();
    notifier.notify(backendDown);
    expect(shown).toEqual(['backend_unavailable', 'timeout', 'backend_unavailable']);
  });

  it('never shows cancellations', () => {
    const shown: string[] = [];
    const notifier = new ErrorNotifier({ show: info => shown.push(info.type) });
    expect(notifier.notify({ type: 'superseded', title: 'x', message: '' })).toBe(false);
    expect(notifier.notify({ type: 'cancelled', title: 'x', message: '' })).toBe(false);
    expect(shown).toEqual([]);
  });
});

describe('StatusModel', () => {
  it('says why a document gets no suggestions while it is excluded, until a request succeeds', () => {
    const model = connectedStatus({ name: 'qwen', backend: 'ollama', demo: false });
    model.skipped('excluded by .codecompleteignore');
    expect(model.state).toBe('excluded');
    expect(model.label).toBe('qwen · excluded');
    expect(model.message).toContain('excluded by .codecompleteignore');
    expect(model.message).toContain('Nothing of it is sent to any model');
    expect(model.lastError).toBeNull(); // a setting, not an error
    model.skipped(); // another reason (another document, restraint)
    expect(model.state).toBe('idle');
    model.skipped('excluded by default (.env*; see .codecompleteignore)');
    model.started(3);
    model.succeeded(3);
    expect(model.state).toBe('idle');
  });

  it('says when our provider is off in the Inline Completer settings, not "ready"', () => {
    const model = connectedStatus({ name: 'qwen', backend: 'ollama', demo: false });
    model.providerEnabled = false;
    expect(model.state).toBe('provider-off');
    expect(model.label).toBe('qwen · provider off');
    expect(model.message).toContain('switched off in the Inline Completer settings');
    expect(model.message).not.toContain('ready');
    model.providerEnabled = true;
    expect(model.state).toBe('idle');
    expect(model.message).toContain('ready');
  });

  it('says when completions are off for the current language, and clears it', () => {
    const model = connectedStatus({ name: 'qwen', backend: 'ollama', demo: false });
    expect(model.state).toBe('idle');
    model.languageOff = 'Python';
    expect(model.state).toBe('language-off');
    expect(model.label).toContain('off for Python');
    expect(model.message).toContain('off for Python');
    model.languageOff = null;
    expect(model.state).toBe('idle');
    expect(model.label).toBe('qwen');
    expect(model.message).toContain('ready');
  });

  it('goes idle → working → error → recovers', () => {
    const model = connectedStatus();
    expect(model.state).toBe('idle');
    model.started(1);
    expect(model.state).toBe('working');
    model.failed(1, backendDown);
    expect(model.state).toBe('error');
    expect(model.message).toContain('refused');
    model.started(2);
    model.failed(2, { type: 'superseded', title: '', message: '' });
    expect(model.state).toBe('error');
    model.started(3);
    model.succeeded(3);
    expect(model.state).toBe('idle');
  });

  it('shows disabled and offline, and the model name', () => {
    const model = new StatusModel();
    expect(model.label).toBe('Code Completion');
    model.model = { name: 'test-coder', backend: 'openai' };
    expect(model.label).toBe('test-coder');
    model.setConnection('disconnected', 'Next attempt in 2 s.');
    expect(model.state).toBe('offline');
    expect(model.message).toContain('Next attempt in 2 s.');
    model.setConnection('connected');
    expect(model.state).toBe('idle');
    model.enabled = false;
    expect(model.state).toBe('disabled');
  });

  it('labels the bundled demo model honestly', () => {
    const model = new StatusModel();
    model.model = { name: 'codecomplete-demo', backend: 'embedded', demo: true };
    expect(model.label).toBe('codecomplete-demo (demo)');
    expect(model.message).toContain('demo model');
  });

  it('shows what the backend reports and the prompt style', () => {
    const model = new StatusModel();
    model.model = {
      name: 'coder',
      backend: 'openai',
      reported: 'Qwen/Qwen2.5-Coder-7B',
      style: 'qwen2.5-coder'
    };
    expect(model.message).toContain('The server reports: Qwen/Qwen2.5-Coder-7B');
    expect(model.message).toContain('Prompt style: qwen2.5-coder');
  });
});

describe('StatusModel: what the server says about the model (issue 23)', () => {
  it('is not "ready" while the model\'s server did not answer the start-up check', () => {
    const model = connectedStatus({
      name: 'qwen',
      backend: 'ollama',
      problem: 'no answer on 127.0.0.1:11434'
    });
    expect(model.state).toBe('error');
    expect(model.message).toContain('Not ready: no answer on 127.0.0.1:11434');
    expect(model.message).not.toContain('ready.');
    model.model = { name: 'qwen', backend: 'ollama', problem: null };
    expect(model.state).toBe('idle');
  });

  it('shows a llama.cpp engine install while it builds, and how it ended', () => {
    const model = connectedStatus({ name: 'codecomplete-demo', backend: 'embedded', demo: true });
    const base = {
      installed: false,
      requirement: 'llama-cpp-python[server]>=0.3.9',
      cost: 'compiles llama.cpp once: about 15 minutes on 2 cores, and it needs a C compiler',
      returncode: null,
      last_line: null,
      log: []
    };
    model.engineInstall({ ...base, state: 'running', seconds: 60.2, progress: 0.45 });
    expect(model.label).toBe('codecomplete-demo (demo) · building llama.cpp 45%');
    expect(model.message).toContain(
      'Installing the llama.cpp engine in the background (60 s so far; it compiles llama.cpp once'
    );
    model.engineInstall({ ...base, state: 'running', seconds: 1, progress: null });
    expect(model.label).toBe('codecomplete-demo (demo) · installing llama.cpp');
    model.engineInstall({ ...base, state: 'done', installed: true, seconds: 840, progress: 1 });
    expect(model.label).toBe('codecomplete-demo (demo)');
    expect(model.message).toContain('The llama.cpp engine is installed (in 840 s).');
    model.engineInstall({
      ...base,
      state: 'failed',
      seconds: 3,
      progress: null,
      last_line: 'error: no C compiler'
    });
    expect(model.message).toContain(
      'Installing the llama.cpp engine did not finish: error: no C compiler'
    );
  });

  it("a switch clears the old model's error at once", () => {
    const model = connectedStatus({ name: 'old', backend: 'openai' });
    model.failed(1, backendDown);
    expect(model.state).toBe('error');
    model.switched({ name: 'new', backend: 'ollama', problem: null });
    expect(model.state).toBe('idle');
    expect(model.label).toBe('new');
  });

  it('shows the notice in the hover', () => {
    const model = connectedStatus({
      name: 'codecomplete-demo',
      backend: 'embedded',
      demo: true,
      notice: 'llamacpp on 127.0.0.1:8080 serves model.gguf, which cannot fill in the middle'
    });
    expect(model.message).toContain('cannot fill in the middle');
    expect(model.label).toBe('codecomplete-demo (demo)');
  });
});

describe('StatusWidget', () => {
  it('reflects the model in data-state, label and hover text', () => {
    const model = connectedStatus();
    const widget = new StatusWidget({
      model,
      commands: new CommandRegistry(),
      menuCommands: []
    });
    expect(widget.node.dataset.state).toBe('idle');
    model.model = { name: 'test-coder', backend: 'openai' };
    model.started(1);
    expect(widget.node.dataset.state).toBe('working');
    expect(widget.node.textContent).toContain('test-coder');
    model.failed(1, backendDown);
    expect(widget.node.dataset.state).toBe('error');
    expect(widget.node.title).toContain('Backend down');
    widget.dispose();
  });

  it('shows "off for Python" in its own element, apart from the name that may be shortened', () => {
    const model = connectedStatus({
      name: 'a-model-name-long-enough-to-be-cut-with-an-ellipsis',
      backend: 'openai'
    });
    const widget = new StatusWidget({ model, commands: new CommandRegistry(), menuCommands: [] });
    const name = widget.node.querySelector('.jp-CodeComplete-statusLabel')!;
    const note = widget.node.querySelector('.jp-CodeComplete-statusNote') as HTMLElement;
    expect(note.hidden).toBe(true);
    model.languageOff = 'Python';
    expect(widget.node.dataset.state).toBe('language-off');
    expect(name.textContent).toBe('a-model-name-long-enough-to-be-cut-with-an-ellipsis');
    expect(note.hidden).toBe(false);
    expect(note.textContent).toBe('· off for Python');
    // the hover says what a click does: it opens the menu
    expect(widget.node.title).toContain('Click for the menu');
    model.languageOff = null;
    model.enabled = false;
    expect(note.textContent).toBe('· off');
    widget.dispose();
  });

  it('keeps the focus where it is on mousedown, and gives it back when the menu closes', async () => {
    const model = new StatusModel();
    const commands = new CommandRegistry();
    commands.addCommand('test:noop', { label: 'Noop', execute: () => undefined });
    const widget = new StatusWidget({ model, commands, menuCommands: ['test:noop'] });
    Widget.attach(widget, document.body);
    const editor = document.createElement('textarea');
    document.body.appendChild(editor);
    editor.focus();
    const down = new MouseEvent('mousedown', { bubbles: true, cancelable: true });
    widget.node.dispatchEvent(down);
    // a notebook cell in edit mode stays in edit mode: nothing moves under the pointer
    expect(down.defaultPrevented).toBe(true);
    widget.node.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const menu = document.querySelector('.jp-CodeComplete-menu');
    expect(menu).not.toBeNull();
    // the menu takes the focus; closing it (here with Escape) must not leave it on <body>
    (menu as HTMLElement).focus();
    menu!.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Escape', keyCode: 27, bubbles: true, cancelable: true })
    );
    await new Promise(resolve => setTimeout(resolve, 10));
    expect(document.querySelector('.jp-CodeComplete-menu')).toBeNull();
    expect(document.activeElement).toBe(editor);
    Widget.detach(widget);
    widget.dispose();
    editor.remove();
  });
});

describe('saying when the model is too slow', () => {
  it('says so once the median time to show passes 1.5 s, with what helps', () => {
    jest.useFakeTimers();
    try {
      const model = new StatusModel();
      model.model = {
        name: 'big-coder',
        backend: 'openai',
        reported: null,
        style: null,
        demo: false
      };
      const ask = (n: number, ms: number) => {
        model.started(n);
        jest.advanceTimersByTime(ms);
        model.shown(n);
        model.succeeded(n);
      };
      for (let i = 0; i < 4; i++) {
        ask(i, 3000);
      }
      expect(model.label).toBe('big-coder'); // too few to judge
      ask(4, 400);
      ask(5, 2500); // median of 3000 x4, 400, 2500: slow
      expect(model.label).toBe('big-coder · slow');
      expect(model.message).toContain('Suggestions take 3.0 s to appear');
      expect(model.message).toContain('speculative decoding');
      // another model is judged afresh
      model.model = {
        name: 'small-coder',
        backend: 'openai',
        reported: null,
        style: null,
        demo: false
      };
      expect(model.label).toBe('small-coder');
    } finally {
      jest.useRealTimers();
    }
  });

  it('stays quiet for a fast model', () => {
    jest.useFakeTimers();
    try {
      const model = new StatusModel();
      for (let i = 0; i < 20; i++) {
        model.started(i);
        jest.advanceTimersByTime(i % 5 === 0 ? 4000 : 300); // now and then a slow one
        model.shown(i);
      }
      expect(model.label).not.toContain('slow');
      expect(model.message).not.toContain('Suggestions take');
    } finally {
      jest.useRealTimers();
    }
  });
});
