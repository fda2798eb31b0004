import { IUsageEvent } from '../connection/protocol';
import { DEFAULT_SETTINGS, ISettings } from '../settings';
import { IEditorState, Suggestion } from '../completion/typing';
import { hashText, IDLE_MS, keptChars, lineKind, MAX_PAUSE_MS, UsageTracker } from '../usage/usage';

/**
 * A clock and timers the test moves by hand.
 */
class Clock {
  now = 1_000_000;
  timers: { at: number; f: () => void; id: number }[] = [];
  private _id = 0;
  setTimeout = (f: () => void, ms: number) => {
    const id = ++this._id;
    this.timers.push({ at: this.now + ms, f, id });
    return id;
  };
  clearTimeout = (id: number) => {
    this.timers = this.timers.filter(t => t.id !== id);
  };
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) {
        break;
      }
      this.timers.shift();
      this.now = next.at;
      next.f();
    }
    this.now = end;
  }
}

function setup(overrides: Partial<ISettings> = {}) {
  const clock = new Clock();
  const sent: IUsageEvent[][] = [];
  const docs = new Map<string, string>();
  let connected = true;
  let live: IEditorState | null = null;
  const settings: ISettings = { ...DEFAULT_SETTINGS, ...overrides };
  const tracker = new UsageTracker({
    send: events => {
      if (!connected) {
        return false;
      }
      sent.push(events.map(e => ({ ...e })));
      return true;
    },
    readText: key => docs.get(key) ?? null,
    settings: () => settings,
    model: () => ({ name: 'completion', backend: 'openai', reported: 'qwen', style: 'qwen' }),
    now: () => clock.now,
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
    tabId: 'tab',
    editorState: () => live
  });
  const last = (id: string): IUsageEvent | undefined =>
    sent
      .flat()
      .filter(e => e.id === id)
      .pop();
  return {
    clock,
    sent,
    docs,
    tracker,
    last,
    setLive: (state: IEditorState) => (live = state),
    disconnect: () => (connected = false),
    connect: () => (connected = true)
  };
}

const suggestion = (number: number, before: string, text: string, after = '') => {
  const s = new Suggestion({ key: 'nb.ipynb#cell-1', before, after, number });
  s.update(text, true);
  return s;
};

describe('lineKind', () => {
  it('tells code, comments, strings, mid-line and empty lines apart', () => {
    expect(lineKind('x = 1', 5, 'python')).toBe('code');
    expect(lineKind('x = 1  # note', 13, 'python')).toBe('comment');
    expect(lineKind('s = "a # b', 10, 'python')).toBe('string');
    expect(lineKind('f(x, y)', 2, 'python')).toBe('mid_line');
    expect(lineKind('f(x)', 3, 'python')).toBe('code'); // a closing bracket alone
    expect(lineKind('a\n    ', 6, 'python')).toBe('empty');
    expect(lineKind('// hi', 5, 'javascript')).toBe('comment');
    expect(lineKind('-- q', 4, 'sql')).toBe('comment');
  });

  it('reads a docstring as a string, its blank lines too', () => {
    const doc = 'def f():\n    """Wrap the text.\n\n    Each line';
    expect(lineKind(doc, doc.length, 'python')).toBe('string');
    expect(lineKind(doc, doc.indexOf('\n\n') + 1, 'python')).toBe('string');
    const after = 'def f():\n    """Doc."""\n    ';
    expect(lineKind(after, after.length, 'python')).toBe('empty');
  });
});

describe('keptChars', () => {
  it('counts what is still there near the insertion point', () => {
    expect(keptChars('return a + b', 'def f():\n    return a + b\n', 13)).toBe(12);
    expect(keptChars('return a + b', 'def f():\n    return a - b\n', 13)).toBe(11);
    expect(keptChars('return a + b', 'def f():\n    pass\n', 13)).toBeLessThan(5);
    expect(keptChars('', 'anything', 0)).toBe(0);
  });
});

describe('UsageTracker', () => {
  it('records a whole accept with its latency, and the kept figures later', () => {
    const { clock, tracker, docs, last } = setup();
    let rhythm: number | null = 95;
    tracker.rhythm = () => rhythm;
    tracker.started(1); // the rhythm is read when the request goes
    rhythm = 400;
    clock.advance(180);
    const s = suggestion(1, 'def add(a, b):\n    ', 'return a + b');
    tracker.shown(s, s.text, 'python', 'typing');
    tracker.acceptedWhole();
    clock.advance(600);
    const e = last('tab-1')!;
    expect(e).toMatchObject({
      outcome: 'accepted',
      accept_kind: 'whole',
      accepted_chars: 12,
      latency_ms: 180,
      typing_ms: 95,
      length: 12,
      trigger: 'typing',
      line_kind: 'empty',
      model: 'qwen',
      line: 1,
      column: 4,
      kept_30s: null,
      text_hash: hashText('return a + b')
    });
    expect(e.sample).toBeUndefined();
    docs.set('nb.ipynb#cell-1', 'def add(a, b):\n    return a + b  # sum\n');
    clock.advance(30_000);
    expect(last('tab-1')!.kept_30s).toBe(12);
    docs.set('nb.ipynb#cell-1', 'def add(a, b):\n    return 0\n');
    clock.advance(300_000);
    expect(last('tab-1')!.kept_5m).toBeLessThan(12);
    expect(last('tab-1')!.kept_30s).toBe(12);
  });

  it('tells onAccept the line kind once per suggestion, when the user first takes some of it', () => {
    const { tracker } = setup();
    const kinds: string[] = [];
    tracker.onAccept = kind => kinds.push(kind);
    const a = suggestion(1, 'x = 1  # ', 'the first value');
    tracker.shown(a, a.text, 'python', 'typing');
    tracker.acceptedPart('word', 'the');
    tracker.acceptedPart('word', ' first');
    tracker.acceptedWhole();
    expect(kinds).toEqual(['comment']);
    const b = suggestion(2, 'y = ', 'x + 1');
    tracker.shown(b, b.text, 'python', 'typing');
    tracker.shown(b, '', 'python', 'typing'); // typed through: nothing taken
    const c = suggestion(3, 'z = ', 'None');
    tracker.shown(c, c.text, 'python', 'typing');
    tracker.acceptedWhole();
    expect(kinds).toEqual(['comment', 'code']);
    // the user's own Alt+\ is not restraint's business (the server does not learn from it either)
    const d = suggestion(4, '# ', 'a note');
    tracker.shown(d, d.text, 'python', 'manual');
    tracker.acceptedWhole();
    expect(kinds).toEqual(['comment', 'code']);
  });

  it('sends the pause before the first accept, and whether restraint held the request', () => {
    const { clock, tracker, last } = setup();
    let lastKey = clock.now;
    let held = true;
    const told: [string, number | null, boolean][] = [];
    tracker.pause = () => clock.now - lastKey;
    tracker.held = () => held;
    tracker.onAccept = (kind, ms, wasHeld) => told.push([kind, ms, wasHeld]);
    // a held request: `held` is read when it goes
    tracker.started(1);
    held = false;
    clock.advance(400);
    const a = suggestion(1, 'x = 1  # ', 'the first value');
    tracker.shown(a, a.text, 'python', 'typing');
    clock.advance(1100);
    tracker.acceptedPart('word', 'the'); // 1.5 s after the last key
    clock.advance(700);
    tracker.acceptedWhole(); // later accepts do not change it
    clock.advance(600); // the events go
    expect(last('tab-1')).toMatchObject({ accept_pause_ms: 1500, held: true, accept_kind: 'word' });
    // not held, not accepted: no pause
    tracker.started(2);
    const b = suggestion(2, 'y = ', 'x + 1');
    tracker.shown(b, b.text, 'python', 'typing');
    tracker.dismissed();
    clock.advance(600); // the events go
    expect(last('tab-2')).toMatchObject({ accept_pause_ms: null, held: false });
    // a manual request is never held, whatever restraint decided last; its pause is sent
    held = true;
    tracker.started(3);
    lastKey = clock.now;
    const c = suggestion(3, 'z = ', 'None');
    tracker.shown(c, c.text, 'python', 'manual');
    clock.advance(250.4);
    tracker.acceptedWhole();
    clock.advance(600); // the events go
    expect(last('tab-3')).toMatchObject({ accept_pause_ms: 250, held: false, trigger: 'manual' });
    // no keystroke known (NaN), or longer than the server takes: no pause
    held = false;
    tracker.pause = () => Number.NaN;
    tracker.started(4);
    const d = suggestion(4, 'w = ', '42');
    tracker.shown(d, d.text, 'python', 'fresh_line');
    tracker.acceptedWhole();
    clock.advance(600); // the events go
    expect(last('tab-4')).toMatchObject({ accept_pause_ms: null, held: false });
    tracker.pause = () => MAX_PAUSE_MS + 1;
    const e = suggestion(5, 'v = ', '7');
    tracker.shown(e, e.text, 'python', 'typing');
    tracker.acceptedWhole();
    clock.advance(600); // the events go
    expect(last('tab-5')!.accept_pause_ms).toBeNull();
    // restraint learns the same pauses, from automatic suggestions only, each with its own
    // request's `held` (not the last decision's)
    expect(told).toEqual([
      ['comment', 1500, true],
      ['code', null, false],
      ['code', null, false]
    ]);
  });

  it('counts word accepts, typing through and dismissals', () => {
    const { clock, tracker, last } = setup();
    const a = suggestion(1, 'x = ', 'compute(data, axis=1)');
    tracker.shown(a, a.text, 'python', 'fresh_line');
    tracker.acceptedPart('word', 'compute');
    tracker.shown(a, '(data, axis=1)', 'python', 'fresh_line');
    // the user types `(data` themselves
    tracker.shown(a, ', axis=1)', 'python', 'fresh_line');
    const b = suggestion(2, 'y = ', 'x + 1');
    tracker.shown(b, b.text, 'python', 'typing');
    tracker.shown(b, '', 'python', 'typing'); // typed all of it
    const c = suggestion(3, 'z = ', 'None');
    tracker.shown(c, c.text, 'python', 'manual');
    tracker.dismissed();
    const d = suggestion(4, 'w = ', '42');
    tracker.shown(d, d.text, 'python', 'typing');
    clock.advance(IDLE_MS + 600);
    expect(last('tab-1')).toMatchObject({
      outcome: 'accepted',
      accept_kind: 'word',
      accepted_chars: 7,
      typed_chars: 5,
      trigger: 'fresh_line'
    });
    expect(last('tab-2')).toMatchObject({ outcome: 'typed_through', typed_chars: 5 });
    expect(last('tab-3')).toMatchObject({ outcome: 'dismissed', trigger: 'manual' });
    expect(last('tab-4')).toMatchObject({ outcome: 'ignored' });
  });

  it('notices a suggestion typed to its end when the next request starts', () => {
    const { clock, tracker, last, setLive } = setup();
    const a = suggestion(1, 'x = ', 'abc');
    tracker.shown(a, a.text, 'python', 'typing');
    tracker.shown(a, 'c', 'python', 'typing');
    setLive({ key: 'nb.ipynb#cell-1', text: 'x = abc', offset: 7 });
    tracker.observe();
    clock.advance(IDLE_MS + 600);
    expect(last('tab-1')).toMatchObject({ outcome: 'typed_through', typed_chars: 3 });
  });

  it('reports a suggestion once even when it comes back', () => {
    const { clock, tracker, sent } = setup();
    const a = suggestion(1, 'x = ', 'abc');
    tracker.shown(a, a.text, 'python', 'typing');
    const b = suggestion(2, 'y = ', 'def');
    tracker.shown(b, b.text, 'python', 'typing');
    tracker.shown(a, a.text, 'python', 'typing'); // backspace into the first one
    clock.advance(IDLE_MS + 600);
    expect(sent.flat().map(e => e.id)).toEqual(['tab-1', 'tab-2']);
  });

  it('counts what of an applied edit prediction is still there after 30 s and 5 min', () => {
    const { clock, tracker, last } = setup();
    let doc: string | null = 'def total(prices):\n    for p in prices:\n        s += p\n';
    const read = () => doc;
    const id = tracker.editShown({ latencyMs: 300, language: 'python', text: 'pricesprices' })!;
    tracker.editAccepted(id, 12, [
      { text: 'prices', anchor: 10, read },
      { text: 'prices', anchor: 32, read }
    ]);
    tracker.editEnded(id, false);
    clock.advance(1000);
    expect(last(id)).toMatchObject({ outcome: 'accepted', accepted_chars: 12, kept_30s: null });
    clock.advance(30_000);
    expect(last(id)!.kept_30s).toBe(12);
    // the user replaced the cell's text before the five minutes were up: none of it kept
    doc = 'x = 1\n';
    clock.advance(300_000);
    expect(last(id)).toMatchObject({ kept_30s: 12, kept_5m: 0 });
    // a document closed meanwhile: unknown, not zero
    const closed = tracker.editShown({ latencyMs: 1, language: null, text: 'x' })!;
    tracker.editAccepted(closed, 1, [{ text: 'x', anchor: 0, read: () => null }]);
    tracker.editEnded(closed, false);
    clock.advance(301_000);
    expect(last(closed)).toMatchObject({ outcome: 'accepted', kept_30s: null, kept_5m: null });
  });

  it('records edit predictions: shown then accepted, dismissed or ignored, trigger edit', () => {
    const { clock, tracker, sent } = setup();
    const a = tracker.editShown({ latencyMs: 420, language: 'python', text: 'salessales' });
    clock.advance(1000);
    tracker.editAccepted(a, 5);
    tracker.editAccepted(a, 5);
    tracker.editEnded(a, false);
    const b = tracker.editShown({ latencyMs: 100, language: 'python', text: 'price' });
    tracker.editEnded(b, true);
    const c = tracker.editShown({ latencyMs: 100, language: null, text: 'x' });
    tracker.editEnded(c, false);
    tracker.editEnded(c, true); // ended once
    clock.advance(1000);
    const events = sent.flat();
    expect(events.map(e => [e.trigger, e.outcome, e.accepted_chars])).toEqual([
      ['edit', 'accepted', 10],
      ['edit', 'dismissed', 0],
      ['edit', 'ignored', 0]
    ]);
    expect(events[0]).toMatchObject({
      latency_ms: 420,
      length: 10,
      model: 'qwen',
      text_hash: hashText('salessales'),
      accept_kind: 'whole'
    });
    // one still open when the tab closes ends as ignored
    const open = tracker.editShown({ latencyMs: 5, language: null, text: 'y' });
    tracker.dispose();
    expect(
      sent
        .flat()
        .filter(e => e.id === open)
        .map(e => e.outcome)
    ).toEqual(['ignored']);
    // nothing recorded when the setting is off
    const off = setup({ recordUsage: false });
    expect(off.tracker.editShown({ latencyMs: 1, language: null, text: 'x' })).toBeNull();
  });

  it('records nothing when the setting is off', () => {
    const { clock, tracker, sent } = setup({ recordUsage: false });
    const a = suggestion(1, 'x = ', 'abc');
    tracker.shown(a, a.text, 'python', 'typing');
    tracker.acceptedWhole();
    clock.advance(400_000);
    expect(sent).toEqual([]);
    expect(tracker.queued).toEqual([]);
  });

  it('keeps samples only when asked, and waits for the socket', () => {
    const { clock, tracker, sent, disconnect, connect } = setup({
      usageSamples: true,
      usageKeptWindows: [1, 2]
    });
    disconnect();
    const a = suggestion(1, 'x = ', 'abc');
    tracker.shown(a, a.text, 'python', 'typing');
    tracker.acceptedWhole();
    clock.advance(1000);
    expect(sent).toEqual([]);
    expect(tracker.queued.length).toBe(1);
    connect();
    clock.advance(3000);
    const events = sent.flat();
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.parse(events[0].sample!)).toMatchObject({ suggestion: 'abc', accepted: 'abc' });
  });
});

describe('UsageTracker: a tab closed within 30 s of an accept', () => {
  function accepted() {
    const made = setup();
    const s = suggestion(1, 'def add(a, b):\n    ', 'return a + b');
    made.tracker.shown(s, s.text, 'python', 'typing');
    made.tracker.acceptedWhole();
    made.docs.set('nb.ipynb#cell-1', 'def add(a, b):\n    return a + b\n');
    made.clock.advance(600);
    return made;
  }

  it('the page unloads: what is still there is sent as kept at close', () => {
    const { clock, tracker, docs, last } = accepted();
    docs.set('nb.ipynb#cell-1', 'def add(a, b):\n    return a + b  # sum\n');
    clock.advance(10_000);
    tracker.dispose(); // beforeunload
    expect(last('tab-1')).toMatchObject({ kept_30s: null, kept_5m: null, kept_at_close: 12 });
  });

  it("the document's tab closes: read through the closing document, and not again later", () => {
    const { clock, tracker, docs, last, sent } = accepted();
    clock.advance(5_000);
    const text = docs.get('nb.ipynb#cell-1')!;
    docs.delete('nb.ipynb#cell-1'); // the trackers forgot it
    tracker.closing(key => (key === 'nb.ipynb#cell-1' ? text.replace(' + b', '') : null));
    clock.advance(600);
    expect(last('tab-1')!.kept_at_close).toBeGreaterThan(5);
    expect(last('tab-1')!.kept_at_close).toBeLessThan(12);
    const count = sent.flat().length;
    clock.advance(400_000); // the windows end with the document closed: nothing more to say
    expect(sent.flat().length).toBe(count);
  });

  it('closed unseen: the last look while it was open is the figure, not 0', () => {
    const { clock, tracker, docs, last } = accepted();
    docs.set('nb.ipynb#cell-1', 'def add(a, b):\n    return a\n');
    clock.advance(2_000);
    tracker.observe(); // the user types on: a look at what is left
    docs.delete('nb.ipynb#cell-1');
    clock.advance(30_000);
    const e = last('tab-1')!;
    expect(e.kept_30s).toBeNull();
    expect(e.kept_at_close).toBeGreaterThan(0);
    expect(e.kept_at_close).toBeLessThan(12);
  });

  it('a window measured is sent as before, without a figure at close', () => {
    const { clock, tracker, last } = accepted();
    clock.advance(30_000);
    tracker.dispose();
    expect(last('tab-1')!.kept_30s).toBe(12);
    expect(last('tab-1')!.kept_at_close ?? null).toBeNull();
  });
});
