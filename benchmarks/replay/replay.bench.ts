/**
 * The replay of a typing session (run by `python benchmarks/bench_restraint.py`, which reads what
 * this writes). Virtual time: a simulated user types a text one key at a time; JupyterLab's fixed
 * debounce (150 ms) passes the last keystroke of a pause to the client, which asks the scripted
 * model (fixed), or first waits the rest of the adaptive debounce (adaptive), or also asks the
 * gate (gated); what the model answers is shown when it arrives and the user has not typed away
 * from it. The user accepts a suggestion when it is what they were going to type (Tab), the
 * words of it that are (Ctrl+Right), or accepts a mostly right one and deletes its wrong tail.
 *
 * The restraint classes (`src/completion/restraint.ts`), the usage tracker (`src/usage/usage.ts`, with its kept
 * measurement) and the line kinds are the extension's own; only the editor, JupyterLab's
 * debounce and the model are simulated.
 *
 * Input (environment): REPLAY_IN, a JSON file {text, modes, gates: {mode: gate}, seed}; REPLAY_OUT, where the
 * results go: per mode {calls, shown, typed, events}. A mode `gated*_pauses` also holds for the
 * pauses its gate learned (`pauses`) instead of starting from none.
 */
import { IUsageEvent } from '../../src/connection/protocol';
import { IGateModel, Restraint } from '../../src/completion/restraint';
import { DEFAULT_SETTINGS } from '../../src/settings';
import { Suggestion } from '../../src/completion/typing';
import { lineKind, UsageTracker } from '../../src/usage/usage';

// Node's own modules (the project has no Node type definitions)
declare const require: (name: string) => any;
const fs = require('fs');
const env: { [name: string]: string | undefined } = (globalThis as any).process.env;

const JUPYTERLAB_DEBOUNCE = 150;
// how long a person needs to see a ghost text before acting on it (a simple visual reaction
// time is about 200–250 ms); a key pressed sooner was already on its way
const REACTION_MS = 200;

type Mode = string; // fixed, adaptive, or gated* (the gate of that name)

class Rng {
  constructor(private _s: number) {}
  next(): number {
    // mulberry32
    this._s = (this._s + 0x6d2b79f5) | 0;
    let t = Math.imul(this._s ^ (this._s >>> 15), 1 | this._s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  normal(mean: number, sd: number): number {
    const u = Math.max(1e-9, this.next());
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

class Loop {
  now = 0;
  private _queue: { at: number; seq: number; f: () => void | Promise<void> }[] = [];
  private _seq = 0;
  setTimeout = (f: () => void | Promise<void>, ms: number) => {
    const item = { at: this.now + Math.max(0, ms), seq: ++this._seq, f };
    this._queue.push(item);
    return item;
  };
  clearTimeout = (item: any) => {
    this._queue = this._queue.filter(x => x !== item);
  };
  // a step that calls the real server (upstream mode) holds virtual time until it has answered
  async run(): Promise<void> {
    while (this._queue.length) {
      this._queue.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const item = this._queue.shift()!;
      this.now = item.at;
      const done = item.f();
      if (done) {
        await done;
      }
    }
  }
}

/**
 * The scripted model: the text that really follows, to the end of the line (or the next line
 * after a line break), right with a chance that depends on the kind of place; a wrong one keeps
 * a right start and then goes astray.
 */
function modelAnswer(rng: Rng, text: string, offset: number, kind: string): string {
  let end = text.indexOf('\n', offset + (text[offset] === '\n' ? 1 : 0));
  end = end < 0 ? text.length : end;
  const truth = text.slice(offset, Math.min(end, offset + 120));
  if (!truth.trim()) {
    return '';
  }
  const right: { [k: string]: number } = {
    code: 0.45,
    empty: 0.35,
    mid_line: 0.1,
    comment: 0.05,
    string: 0.1
  };
  if (rng.next() < (right[kind] ?? 0.3)) {
    return truth;
  }
  // astray early more often than late
  const keep = Math.floor(truth.length * rng.next() * rng.next() * 0.8);
  return (
    truth.slice(0, keep) +
    'zz_wrong(' +
    truth
      .slice(keep, keep + 5)
      .split('')
      .reverse()
      .join('') +
    ')'
  );
}

/**
 * The real engine (upstream mode): a Jupyter server with this extension, its model the scripted
 * OpenAI-compatible upstream answering each place with `modelAnswer`'s text at its own latency.
 */
interface IUpstream {
  url: string;
  token: string;
}

async function askServer(
  upstream: IUpstream,
  before: string,
  after: string
): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${upstream.url}/api/codecomplete/completions`, {
    method: 'POST',
    headers: { Authorization: `token ${upstream.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      prompt: before,
      suffix: after,
      language: 'python',
      file_path: 'session.py'
    })
  });
  const body = await response.json();
  const text = response.ok ? String(body?.choices?.[0]?.text ?? '') : '';
  return { text, ms: Date.now() - started };
}

async function replay(
  text: string,
  mode: Mode,
  gateModel: IGateModel | null,
  seed: number,
  latencyMs: number,
  upstream: IUpstream | null
) {
  // Common random numbers: each draw depends on the seed, the place in the text and what it is
  // for, not on how many draws came before, so that the modes differ by their decisions alone
  // (one more or one fewer suggestion does not reshuffle the rest of the session).
  const uses = new Map<string, number>();
  const draw = (purpose: number): Rng => {
    const name = `${target}:${purpose}`;
    const k = (uses.get(name) ?? 0) + 1;
    uses.set(name, k);
    return new Rng(seed * 7_919 + target * 104_729 + purpose * 1_299_709 + k * 15_485_863);
  };
  const loop = new Loop();
  const key = 'session.py';
  let doc = '';
  let cursor = 0;
  let target = 0; // how much of `text` the user has written
  let calls = 0;
  let shownCount = 0;
  let cleaned = 0;
  let lost = 0;
  let typed = 0;
  const events = new Map<string, IUsageEvent>();
  const tracker = new UsageTracker({
    send: batch => {
      for (const e of batch) {
        events.set(e.id, { ...e });
      }
      return true;
    },
    readText: () => doc,
    settings: () => ({ ...DEFAULT_SETTINGS }),
    model: () => ({ name: 'completion', backend: 'openai', reported: 'scripted', style: 'raw' }),
    now: () => loop.now,
    setTimeout: loop.setTimeout,
    clearTimeout: loop.clearTimeout,
    editorState: () => ({ key, text: doc, offset: cursor }),
    tabId: mode
  });
  // the extension's own decision (src/completion/restraint.ts), as the restraint plugin wires it
  const restraint = new Restraint();
  const { debounce, gate } = restraint;
  let lastKey = 0;
  tracker.rhythm = () => debounce.rhythm;
  tracker.held = () => restraint.held;
  tracker.pause = () => loop.now - lastKey;
  tracker.onAccept = (kind, pauseMs, held) => {
    if (pauseMs !== null) {
      restraint.accepted(kind, pauseMs, held);
    }
  };
  gate.model = mode.startsWith('gated') ? gateModel : null;
  // the pauses the server learned from the history (`pauses`), as the restraint plugin passes
  // them, only in the modes that ask for them: the others start with no pauses, as a page did
  // before the pauses were stored
  restraint.pauses.model = mode.endsWith('_pauses') ? gateModel : null;
  let pending: any = null;
  let generation = 0;
  let shown: { suggestion: Suggestion; number: number; at: number } | null = null;
  let number = 0;

  const rest = (): string | null => {
    if (!shown) {
      return null;
    }
    return shown.suggestion.rest({ key, text: doc, offset: cursor });
  };

  const ask = (freshLine: boolean): void | Promise<void> => {
    const asked = ++generation;
    const kind = lineKind(doc, cursor, 'python');
    const send = (): void | Promise<void> => {
      if (asked !== generation) {
        return;
      }
      calls++;
      const n = ++number;
      tracker.started(n);
      // the same place gets the same answer in every mode
      const simulated = modelAnswer(new Rng(seed * 1_000_003 + target), text, target, kind);
      const before = doc.slice(0, cursor);
      const after = doc.slice(cursor);
      if (upstream) {
        // through the engine: what its cleaning makes of the upstream's answer, and its real time
        return askServer(upstream, before, after).then(({ text: answer, ms }) => {
          // what the engine's cleaning changed of the upstream's answer (or lost: an error, a timeout)
          cleaned += answer !== simulated ? 1 : 0;
          lost += simulated && !answer ? 1 : 0;
          arrive(answer, ms);
        });
      }
      arrive(
        simulated,
        Math.max(latencyMs / 2, draw(1).normal(latencyMs + simulated.length * 4, latencyMs / 3.5))
      );
    };
    const arrive = (answer: string, latency: number) => {
      const n = number;
      const before = doc.slice(0, cursor);
      const after = doc.slice(cursor);
      loop.setTimeout(() => {
        if (asked !== generation || !answer) {
          return;
        }
        const s = new Suggestion({ key, before, after, number: n });
        s.update(answer, true);
        const r = s.rest({ key, text: doc, offset: cursor });
        if (!r) {
          return;
        }
        shown = { suggestion: s, number: n, at: loop.now };
        shownCount++;
        debounce.latency(latency);
        tracker.shown(s, r, 'python', freshLine ? 'fresh_line' : 'typing');
      }, latency);
    };
    if (mode === 'fixed') {
      return send();
    }
    const { skip, after } = restraint.decide({
      key,
      text: doc,
      offset: cursor,
      trigger: freshLine ? 'fresh_line' : 'typing',
      lineKind: kind,
      typingMs: debounce.rhythm
    });
    if (skip) {
      return;
    }
    const wait = after - (loop.now - lastKey);
    if (wait <= 0) {
      return send();
    }
    loop.setTimeout(send, wait);
  };

  const insert = (s: string) => {
    doc = doc.slice(0, cursor) + s + doc.slice(cursor);
    cursor += s.length;
  };

  // the user's next step: read the ghost text, accept what is right, else type a key
  const step = () => {
    if (target >= text.length) {
      return;
    }
    const r = rest();
    // a ghost text that appeared less than a reaction time ago is not read: the key is on its way
    if (r && shown && loop.now - shown.at >= REACTION_MS) {
      const intended = text.slice(target, target + r.length);
      let right = 0;
      while (right < r.length && r[right] === intended[right]) {
        right++;
      }
      if (right === r.length) {
        tracker.acceptedWhole();
        insert(r);
        target += r.length;
        shown = null;
        loop.setTimeout(step, 300 + draw(2).next() * 300);
        return;
      }
      if (right >= 0.7 * r.length && right >= 4) {
        // mostly right: take it all, then delete the wrong tail
        tracker.acceptedWhole();
        insert(r);
        doc = doc.slice(0, cursor - (r.length - right)) + doc.slice(cursor);
        cursor -= r.length - right;
        target += right;
        shown = null;
        loop.setTimeout(step, 800 + draw(2).next() * 400);
        return;
      }
      // the whole words that are right
      let words = '';
      for (;;) {
        const m = /^(\s*[A-Za-z0-9_]+|\s*[^A-Za-z0-9_\s]+|\s+)/.exec(r.slice(words.length));
        if (!m || words.length + m[0].length > right) {
          break;
        }
        words += m[0];
      }
      if (words.length >= 4) {
        tracker.acceptedPart('word', words);
        insert(words);
        target += words.length;
        const left = rest();
        if (left) {
          tracker.shown(shown!.suggestion, left, 'python', 'typing');
        }
        loop.setTimeout(step, 250 + draw(2).next() * 200);
        return;
      }
    }
    // type one key
    const ch = text[target];
    insert(ch);
    target++;
    typed++;
    lastKey = loop.now;
    debounce.keystroke(loop.now);
    const left = rest();
    if (shown && left !== null) {
      if (left) {
        tracker.shown(shown.suggestion, left, 'python', 'typing');
      } else {
        tracker.observe();
        shown = null;
      }
    } else {
      shown = null;
    }
    // JupyterLab's debounce: the last key of a pause reaches the client
    generation++;
    if (pending) {
      loop.clearTimeout(pending);
    }
    pending = loop.setTimeout(() => {
      pending = null;
      if (shown && rest()) {
        return; // typing through: answered from the suggestion, no model call
      }
      return ask(ch === '\n');
    }, JUPYTERLAB_DEBOUNCE);
    // a person's rhythm: faster inside words, slower after a line, now and then a pause to think
    const pace = draw(3);
    const gap =
      ch === '\n'
        ? 400 + pace.next() * 800
        : pace.next() < 0.03
          ? 1500 + pace.next() * 2500
          : Math.max(40, pace.normal(170, 60));
    loop.setTimeout(step, gap);
  };
  loop.setTimeout(step, 0);
  await loop.run();
  tracker.dispose();
  await loop.run();
  return { calls, shown: shownCount, typed, cleaned, lost, events: [...events.values()] };
}

describe('replay', () => {
  it('replays the session', async () => {
    const input = JSON.parse(fs.readFileSync(env.REPLAY_IN!, 'utf-8'));
    const out: { [mode: string]: unknown } = {};
    if (input.answers) {
      // the simulated model's answer at each place, for the scripted upstream's rules
      const seed = input.seed ?? 1;
      const text: string = input.text;
      out.answers = Array.from({ length: text.length + 1 }, (_, target) =>
        modelAnswer(
          new Rng(seed * 1_000_003 + target),
          text,
          target,
          lineKind(text.slice(0, target), target, 'python')
        )
      );
    }
    for (const mode of input.modes as Mode[]) {
      out[mode] = await replay(
        input.text,
        mode,
        input.gates?.[mode] ?? null,
        input.seed ?? 1,
        input.latency_ms ?? 140,
        input.upstream ?? null
      );
    }
    fs.writeFileSync(env.REPLAY_OUT!, JSON.stringify(out));
  }, 3_600_000);
});
