import { AdaptiveDebounce, DEFAULT_RHYTHMS, Gate, IGateModel, rhythmBin } from '../restraint';

describe('AdaptiveDebounce', () => {
  it('waits rate × base − expected latency, clamped', () => {
    const d = new AdaptiveDebounce();
    const endOfLine = AdaptiveDebounce.place('x = f(', 6);
    expect(endOfLine).toEqual({ afterNonWord: true, lineEnd: true, documentEnd: true });
    // no rhythm yet: base 200, score 1 → rate 1.5
    expect(d.delay(endOfLine)).toBe(300);
    const midWord = AdaptiveDebounce.place('value\nnext', 3);
    expect(d.delay(midWord)).toBe(600); // score 0 → rate 3
    // a fast typist (100 ms between keys) and a model that takes 150 ms
    for (let t = 0; t <= 3000; t += 100) {
      d.keystroke(t);
    }
    d.keystroke(10_000); // a pause: not a typing interval
    expect(d.base).toBe(100);
    d.latency(150);
    expect(d.delay(endOfLine)).toBe(100); // 150 − 150, clamped up to 100
    expect(d.delay(midWord)).toBe(150);
    // a slow typist is never asked to wait more than 1 s
    const slow = new AdaptiveDebounce();
    for (let t = 0; t <= 30 * 390; t += 390) {
      slow.keystroke(t);
    }
    expect(slow.delay(midWord)).toBe(1000);
  });
});

describe('Gate', () => {
  const model: IGateModel = {
    level: 'normal',
    active: true,
    events: 100,
    skip: [{ trigger: 'typing', line_kind: 'comment' }],
    after_dismissal: true
  };
  const request = (text: string, offset = text.length, lineKind: any = 'code') => ({
    key: 'a.py',
    text,
    offset,
    trigger: 'typing' as const,
    lineKind
  });

  it('skips the places learned, and right after a dismissal at the same place', () => {
    const gate = new Gate();
    expect(gate.skip(request('# note', 6, 'comment'))).toBeNull(); // nothing learned yet
    gate.model = model;
    expect(gate.skip(request('# note', 6, 'comment'))).toBe('gate');
    expect(gate.skip({ ...request('# note', 6, 'comment'), trigger: 'fresh_line' })).toBeNull();
    expect(gate.skip(request('x = 1'))).toBeNull();
    gate.dismissedAt('a.py', 'x = 1', 5);
    expect(gate.skip(request('x = 1'))).toBe('after-dismissal');
    expect(gate.skip(request('x = 1 '))).toBe('after-dismissal');
    expect(gate.skip(request('x = 1 +'))).toBeNull(); // two characters typed since
    expect(gate.skip(request('x = 1\n'))).toBeNull(); // another line
    gate.model = { ...model, active: false };
    expect(gate.skip(request('# note', 6, 'comment'))).toBeNull();
  });
});

describe('the typing rhythm', () => {
  it('is the mean of the last keystroke intervals, pauses included', () => {
    const d = new AdaptiveDebounce();
    expect(d.rhythm).toBeNull();
    for (const t of [0, 80, 160, 240, 320]) {
      d.keystroke(t);
    }
    expect(d.rhythm).toBe(80);
    d.keystroke(2320); // a pause counts here (not in the debounce's base)
    expect(d.rhythm).toBe(560);
    expect(rhythmBin(80)).toBe('burst');
    expect(rhythmBin(150)).toBe('steady');
    expect(rhythmBin(560)).toBe('slow');
    expect(rhythmBin(null)).toBe('unknown');
  });

  it('lets the gate skip a place at one rhythm only', () => {
    const gate = new Gate();
    gate.model = {
      level: 'normal',
      active: true,
      events: 300,
      skip: [{ trigger: 'typing', line_kind: 'code', rhythm: 'burst' }],
      after_dismissal: false,
      rhythms: DEFAULT_RHYTHMS
    };
    const at = (typingMs: number | null) => ({
      key: 'a.py',
      text: 'x = ',
      offset: 4,
      trigger: 'typing' as const,
      lineKind: 'code' as const,
      typingMs
    });
    expect(gate.skip(at(70))).toBe('gate');
    expect(gate.skip(at(170))).toBeNull();
    expect(gate.skip(at(null))).toBeNull();
  });
});
