import {
  AcceptPauses,
  AdaptiveDebounce,
  DEFAULT_RHYTHMS,
  EditBackoff,
  Gate,
  IGateModel,
  Restraint,
  rhythmBin
} from '../completion/restraint';

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

describe('AcceptPauses', () => {
  it("is the lower quartile of the user's pauses before taking a suggestion, by line kind", () => {
    const pauses = new AcceptPauses();
    expect(pauses.hold('comment')).toBe(AcceptPauses.DEFAULT_MS); // none yet
    for (const ms of [3000, 1200, 2400, 1800]) {
      pauses.record('comment', ms);
    }
    expect(pauses.hold('comment')).toBe(AcceptPauses.DEFAULT_MS); // four: not enough
    pauses.record('comment', 2000);
    // sorted 1200, 1800, 2000, 2400, 3000: the lower quartile is the second
    expect(pauses.hold('comment')).toBe(1800);
    expect(pauses.hold('string')).toBe(AcceptPauses.DEFAULT_MS); // another kind: its own
    pauses.record('code', Number.NaN);
    pauses.record('code', -5);
    for (let i = 0; i < 5; i++) {
      pauses.record('code', 50); // a quick Tab: never under MIN_MS
    }
    expect(pauses.hold('code')).toBe(AcceptPauses.MIN_MS);
    for (let i = 0; i < AcceptPauses.MAX_SAMPLES; i++) {
      pauses.record('code', 60_000); // only the last MAX_SAMPLES count, and at most MAX_MS
    }
    expect(pauses.hold('code')).toBe(AcceptPauses.MAX_MS);
  });
});

describe('AcceptPauses and the pauses the server learned', () => {
  const learned = (pauses?: IGateModel['pauses']): IGateModel => ({
    level: 'normal',
    active: true,
    events: 300,
    skip: [],
    after_dismissal: true,
    hold: true,
    pauses
  });

  it("falls back to the model's pause for a kind, then to the default", () => {
    const pauses = new AcceptPauses();
    pauses.model = learned({ comment: 1300, string: 60_000, code: 10 });
    expect(pauses.hold('comment')).toBe(1300); // a reload: the server's, not 2 s
    expect(pauses.hold('string')).toBe(AcceptPauses.MAX_MS); // clamped, whatever it sends
    expect(pauses.hold('code')).toBe(AcceptPauses.MIN_MS);
    expect(pauses.hold('mid_line')).toBe(AcceptPauses.DEFAULT_MS); // not learned there
    pauses.model = learned(); // an older server: no pauses
    expect(pauses.hold('comment')).toBe(AcceptPauses.DEFAULT_MS);
    pauses.model = null;
    expect(pauses.hold('comment')).toBe(AcceptPauses.DEFAULT_MS);
  });

  it("uses the page's own pauses once it has enough of them", () => {
    const pauses = new AcceptPauses();
    pauses.model = learned({ comment: 1300 });
    for (const ms of [3000, 2400, 2600, 2800]) {
      pauses.record('comment', ms);
    }
    expect(pauses.hold('comment')).toBe(1300); // four of its own: the server's still
    pauses.record('comment', 2500);
    expect(pauses.hold('comment')).toBe(2500); // five: sorted 2400, 2500, …: its own win
  });

  it('holds a gated place for the learned pause, less the time to show', () => {
    const r = new Restraint();
    r.gate.model = {
      ...learned({ comment: 1300 }),
      skip: [{ trigger: 'typing', line_kind: 'comment' }]
    };
    r.pauses.model = r.gate.model;
    r.debounce.latency(300);
    const at = { key: 'a.py', text: '# a ', offset: 4, trigger: 'typing' as const };
    expect(r.decide({ ...at, lineKind: 'comment' })).toEqual({ skip: null, after: 1000 });
    expect(r.held).toBe(true);
    expect(r.decide({ ...at, text: 'x = ', lineKind: 'code' }).skip).toBeNull();
    expect(r.held).toBe(false);
  });
});

describe('Restraint', () => {
  const model: IGateModel = {
    level: 'normal',
    active: true,
    events: 300,
    skip: [{ trigger: 'typing', line_kind: 'comment' }],
    after_dismissal: true,
    hold: true
  };
  const at = (text: string, lineKind: any, trigger: 'typing' | 'fresh_line' = 'typing') => ({
    key: 'a.py',
    text,
    offset: text.length,
    trigger,
    lineKind
  });

  it('holds a low-value place for the pause, skips it at "less", debounces elsewhere', () => {
    const r = new Restraint();
    // nothing learned: the adaptive debounce (end of line after a non-word: 1.5 × 200)
    expect(r.decide(at('# a ', 'comment'))).toEqual({ skip: null, after: 300 });
    expect(r.decide(at('x\n', 'empty', 'fresh_line'))).toEqual({ skip: null, after: 0 });
    r.gate.model = model;
    // the gate's place: asked only after the default pause, less the model's time to show
    expect(r.decide(at('# a ', 'comment'))).toEqual({
      skip: null,
      after: AcceptPauses.DEFAULT_MS
    });
    r.debounce.latency(400);
    expect(r.decide(at('# a ', 'comment')).after).toBe(AcceptPauses.DEFAULT_MS - 400);
    expect(r.decide(at('x = ', 'code')).after).toBeLessThan(1000); // not held
    // "suggest less" (hold false) and an older server (no hold): skipped
    r.gate.model = { ...model, hold: false };
    expect(r.decide(at('# a ', 'comment'))).toEqual({ skip: 'gate', after: 0 });
    r.gate.model = { ...model, hold: undefined };
    expect(r.decide(at('# a ', 'comment')).skip).toBe('gate');
    // a dismissal is never held, always skipped
    r.gate.model = model;
    r.gate.dismissedAt('a.py', 'x = 1', 5);
    expect(r.decide(at('x = 1', 'code')).skip).toBe('after-dismissal');
  });

  it("learns the hold from the user's pauses, not from suggestions it held", () => {
    const r = new Restraint();
    // before the gate: the user takes comment suggestions after pauses of 1.5–2.5 s
    for (const ms of [1500, 1600, 2200, 2400, 2500]) {
      expect(r.decide(at('# a ', 'comment')).skip).toBeNull();
      r.accepted('comment', ms);
    }
    r.gate.model = model;
    expect(r.decide(at('# a ', 'comment')).after).toBe(1600);
    // taken after the hold: would only lengthen it, so not counted
    for (let i = 0; i < 10; i++) {
      r.decide(at('# a ', 'comment'));
      r.accepted('comment', 4000);
    }
    expect(r.decide(at('# a ', 'comment')).after).toBe(1600);
    // one not held (code) counts, at its own kind
    r.decide(at('x = ', 'code'));
    r.accepted('code', 900);
    expect(r.pauses.hold('comment')).toBe(1600);
  });

  it("goes by the accepted suggestion's own request, not the last decision", () => {
    const r = new Restraint();
    r.gate.model = model;
    // a held request's suggestion is taken after another, not held, decision was made
    r.decide(at('# a ', 'comment'));
    r.decide(at('x = ', 'code'));
    for (let i = 0; i < 5; i++) {
      r.accepted('comment', 600, true);
    }
    expect(r.pauses.hold('comment')).toBe(AcceptPauses.DEFAULT_MS);
    // and one not held is learned even when the last decision held
    r.decide(at('# a ', 'comment'));
    for (let i = 0; i < 5; i++) {
      r.accepted('comment', 900, false);
    }
    expect(r.pauses.hold('comment')).toBe(900);
  });
});

describe('EditBackoff', () => {
  it('holds after a run of predictions turned down at each level, doubling up to the most', () => {
    const b = new EditBackoff();
    expect(b.heldUntil('less')).toBe(0);
    b.ended('dismissed', 1000);
    expect(b.heldUntil('less')).toBe(0);
    b.ended('typed-through', 2000);
    expect(b.heldUntil('less')).toBe(2000 + EditBackoff.HOLD_MS);
    expect(b.heldUntil('on')).toBe(0);
    b.ended('discarded', 3000); // replaced: not counted, nor its time
    expect(b.heldUntil('less')).toBe(2000 + EditBackoff.HOLD_MS);
    for (let i = 0; i < 10; i++) {
      b.ended('dismissed', 5000);
    }
    expect(b.heldUntil('less')).toBe(5000 + EditBackoff.MAX_HOLD_MS);
    expect(b.heldUntil('off')).toBe(0);
    b.ended('accepted', 6000);
    expect(b.heldUntil('less')).toBe(0);
  });
});
