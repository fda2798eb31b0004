import { CommandRegistry } from '@lumino/commands';

import { ErrorNotifier } from '../notifier';
import { StatusModel, StatusWidget } from '../status';

const backendDown = {
  type: 'backend_unavailable',
  title: 'Backend down',
  message: 'refused (port 8911)'
};

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
  it('says when completions are off for the current language, and clears it', () => {
    const model = new StatusModel();
    model.setConnection('connected');
    model.model = { name: 'qwen', backend: 'ollama', demo: false };
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
    const model = new StatusModel();
    model.setConnection('connected');
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

describe('StatusWidget', () => {
  it('reflects the model in data-state, label and hover text', () => {
    const model = new StatusModel();
    model.setConnection('connected');
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
