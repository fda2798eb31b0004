import { EditorSelection } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

import {
  FreshLineTrigger,
  IFreshLineState,
  INLINE_COMPLETER_ACTIVE_CLASS,
  shouldTrigger,
  TAB_COMPLETER_ACTIVE_CLASS
} from '../completion/freshline';
import { DEFAULT_SETTINGS, ISettings, normalizeSettings } from '../settings';

const settings = (over: Partial<ISettings> = {}): ISettings =>
  normalizeSettings({ ...DEFAULT_SETTINGS, ...over });

const state = (over: Partial<IFreshLineState> = {}): IFreshLineState => ({
  before: '    ',
  after: '',
  edit: 'newline',
  language: 'python',
  tabCompleterOpen: false,
  suggestionShown: false,
  hasSelection: false,
  ...over
});

describe('shouldTrigger (the fresh-line rules)', () => {
  it('asks on a line with only indentation after Enter or after deleting back to it', () => {
    expect(shouldTrigger(state(), settings())).toBe(true);
    expect(shouldTrigger(state({ before: '' }), settings())).toBe(true);
    expect(shouldTrigger(state({ before: '\t\t' }), settings())).toBe(true);
    expect(shouldTrigger(state({ edit: 'delete' }), settings())).toBe(true);
    // Enter between brackets leaves only a closer after the cursor
    expect(shouldTrigger(state({ after: ')' }), settings())).toBe(true);
  });

  it('does not ask when text precedes the cursor (JupyterLab asks there itself)', () => {
    expect(shouldTrigger(state({ before: '    x' }), settings())).toBe(false);
    expect(shouldTrigger(state({ before: 'def f():' }), settings())).toBe(false);
  });

  it('does not ask in the middle of a line or for other edits', () => {
    expect(shouldTrigger(state({ after: 'foo()' }), settings())).toBe(false);
    expect(shouldTrigger(state({ edit: 'other' }), settings())).toBe(false);
  });

  it('does not ask while the Tab completer is open or a suggestion is shown', () => {
    expect(shouldTrigger(state({ tabCompleterOpen: true }), settings())).toBe(false);
    expect(shouldTrigger(state({ suggestionShown: true }), settings())).toBe(false);
    expect(shouldTrigger(state({ hasSelection: true }), settings())).toBe(false);
  });

  it('does not ask in markdown unless markdown is enabled', () => {
    expect(shouldTrigger(state({ language: 'markdown' }), settings())).toBe(false);
    expect(
      shouldTrigger(state({ language: 'markdown' }), settings({ disabledLanguages: [] }))
    ).toBe(true);
  });

  it('follows the switches: global, fresh-line setting, manual-only trigger', () => {
    expect(shouldTrigger(state(), settings({ enabled: false }))).toBe(false);
    expect(shouldTrigger(state(), settings({ freshLineSuggestions: false }))).toBe(false);
    expect(shouldTrigger(state(), settings({ trigger: 'manual' }))).toBe(false);
    expect(shouldTrigger(state(), settings({ disabledLanguages: ['python'] }))).toBe(false);
  });
});

describe('FreshLineTrigger in a CodeMirror editor', () => {
  let host: HTMLElement;
  let view: EditorView;
  let requests: number;
  let current: ISettings;

  beforeEach(() => {
    jest.useFakeTimers();
    requests = 0;
    current = settings();
    const trigger = new FreshLineTrigger({
      settings: () => current,
      delay: () => 200,
      language: () => 'python',
      request: () => {
        requests += 1;
      }
    });
    host = document.createElement('div');
    document.body.appendChild(host);
    view = new EditorView({
      doc: 'def add(a, b):',
      parent: host,
      extensions: [trigger.extension()]
    });
    // jsdom has no real focus for a contenteditable: the view is "focused" for these tests
    Object.defineProperty(view, 'hasFocus', { get: () => true });
  });

  afterEach(() => {
    view.destroy();
    host.remove();
    jest.useRealTimers();
  });

  const type = (text: string, userEvent = 'input') => {
    const head = view.state.selection.main.head;
    view.dispatch({
      changes: { from: head, insert: text },
      selection: EditorSelection.cursor(head + text.length),
      userEvent
    });
  };

  it('asks once after the debounce when Enter leaves an indented empty line', () => {
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ');
    expect(requests).toBe(0);
    jest.advanceTimersByTime(199);
    expect(requests).toBe(0);
    jest.advanceTimersByTime(1);
    expect(requests).toBe(1);
  });

  it('a keystroke within the debounce cancels the request', () => {
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ');
    jest.advanceTimersByTime(100);
    type('r');
    jest.advanceTimersByTime(1000);
    expect(requests).toBe(0);
  });

  it('programmatic edits (not the user) never ask', () => {
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ', 'other.programmatic');
    jest.advanceTimersByTime(1000);
    expect(requests).toBe(0);
  });

  it('does not ask while the Tab completer is open', () => {
    host.classList.add(TAB_COMPLETER_ACTIVE_CLASS);
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ');
    jest.advanceTimersByTime(1000);
    expect(requests).toBe(0);
  });

  it('does not ask in a language that is switched off', () => {
    current = settings({ disabledLanguages: ['python'] });
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ');
    jest.advanceTimersByTime(1000);
    expect(requests).toBe(0);
  });

  // issue 23: at a person's pace the header's own suggestion is still on screen when Enter is
  // pressed (JupyterLab removes it after this listener has seen the Enter), and after Tab
  // accepted one JupyterLab leaves the "active" class and an empty ghost text node behind
  const ghostText = (text: string): HTMLElement => {
    const ghost = document.createElement('span');
    ghost.className = 'jp-GhostText';
    ghost.textContent = text;
    view.contentDOM.appendChild(ghost);
    return ghost;
  };

  it('Enter while the line above still shows its suggestion asks once that one is gone', () => {
    host.classList.add(INLINE_COMPLETER_ACTIVE_CLASS);
    const ghost = ghostText('  # the n-th Fibonacci number');
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ');
    ghost.remove(); // JupyterLab clears the stale suggestion right after the Enter
    jest.advanceTimersByTime(200);
    expect(requests).toBe(1);
  });

  it('the "active" class and an empty ghost text node left by Tab do not stop the request', () => {
    host.classList.add(INLINE_COMPLETER_ACTIVE_CLASS);
    ghostText('');
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ');
    jest.advanceTimersByTime(200);
    expect(requests).toBe(1);
  });

  it('does not ask while ghost text is really shown on the fresh line (typed through)', () => {
    view.dispatch({ selection: EditorSelection.cursor(view.state.doc.length) });
    type('\n    ');
    ghostText('return a + b');
    jest.advanceTimersByTime(1000);
    expect(requests).toBe(0);
  });
});
