/**
 * Browser benchmark (issue 17): keystroke → first ghost text in JupyterLab, against the scripted
 * upstream (50 ms to the first token), for the three triggers (automatic, fresh line, manual) and
 * for several debounce delays; model requests per minute while typing real code at a human
 * rate; and (issue 29) Tab → the next ghost text, with the suggestion after an accept asked for
 * while the accepted one was shown (`suggestAfterAccept`) and without. Not a test: it records numbers (`CODECOMPLETE_BENCH_OUT`), `bench_browser.py` prints them.
 *
 * Clock: the page's (`performance.now()`, the keydown event's `timeStamp`). Per trial:
 *   key   the keydown of the last key (the one that asks: the last character, Enter, Alt+\)
 *   send  the request frame written to the socket (key → send: the debounce and the client)
 *   first the first message with text read from the socket (send → first: server + model)
 *   ghost the ghost text in the DOM with text (first → ghost: the client's rendering)
 */
import * as fs from 'fs';
import * as path from 'path';

import type { Page } from '@playwright/test';
import { expect, galata, test } from '@jupyterlab/galata';

const OUT = process.env.CODECOMPLETE_BENCH_OUT ?? '';
const TRIALS = Number(process.env.CODECOMPLETE_BENCH_TRIALS ?? '20');
const DEBOUNCES = (process.env.CODECOMPLETE_BENCH_DEBOUNCES ?? '100,150,200')
  .split(',')
  .map(Number);
const TYPING_CHARS = Number(process.env.CODECOMPLETE_BENCH_TYPING_CHARS ?? '400');
const UPSTREAM = `http://127.0.0.1:${process.env.CODECOMPLETE_BENCH_UPSTREAM_PORT ?? '8922'}`;
const GHOST = '.jp-GhostText';
const PLUGIN = 'jupyter-codecomplete:plugin';
const INLINE = '@jupyterlab/completer-extension:inline-completer';
const PROVIDER = 'jupyter-codecomplete';

// Real code, typed one key at a time (leading indentation left to the editor).
const CODE = `import csv
from collections import Counter


def read_rows(path):
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return [row for row in reader if row.get("name")]


def summarise(rows, column="city"):
    counts = Counter(row[column] for row in rows)
    total = sum(counts.values())
    shares = {key: value / total for key, value in counts.items()}
    return sorted(shares.items(), key=lambda item: item[1], reverse=True)


if __name__ == "__main__":
    rows = read_rows("people.csv")
    for city, share in summarise(rows)[:5]:
        print(f"{city}: {share:.1%}")
`;

interface ISample {
  key: number;
  send: number | null;
  first: number | null;
  ghost: number;
  text: string;
  after?: unknown;
}

/**
 * Instrument the page before its scripts run: key and ghost-text times, and the frames of the
 * extension's socket.
 */
async function instrument(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as any;
    const bench = {
      keys: [] as number[],
      ghosts: [] as { t: number; text: string }[],
      sends: [] as { t: number; n: number }[],
      cancels: 0,
      superseded: 0,
      firsts: {} as Record<number, number>
    };
    w.__bench = bench;
    if ((window as any).__BENCH_TIMERS__ !== false) {
      const timers: any[] = [];
      (bench as any).timers = timers;
      const native = window.setTimeout.bind(window);
      (window as any).setTimeout = (fn: any, delay?: number, ...rest: any[]) => {
        if (typeof delay === 'number' && delay >= 50) {
          const entry = { at: performance.now(), delay, fired: NaN };
          timers.push(entry);
          const inner = fn;
          fn = (...a: any[]) => {
            entry.fired = performance.now();
            return typeof inner === 'function' ? inner(...a) : undefined;
          };
        }
        return native(fn, delay, ...rest);
      };
    }
    window.addEventListener('keydown', e => bench.keys.push(e.timeStamp), true);
    let last = '';
    const watch = () => {
      const node = document.querySelector('.jp-GhostText');
      const text = node?.textContent ?? '';
      if (text !== last) {
        last = text;
        if (text) {
          bench.ghosts.push({ t: performance.now(), text });
        }
      }
    };
    const start = () =>
      new MutationObserver(watch).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true
      });
    if (document.body) {
      start();
    } else {
      document.addEventListener('DOMContentLoaded', start);
    }
    const Native = window.WebSocket;
    class Recording extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        if (!String(url).includes('codecomplete')) {
          return;
        }
        const send = this.send.bind(this);
        this.send = (data: any) => {
          try {
            const message = JSON.parse(String(data));
            if (message.type === 'inline_completion') {
              bench.sends.push({ t: performance.now(), n: message.number });
            } else if (message.type === 'cancel') {
              bench.cancels++;
            }
          } catch {
            /* not JSON */
          }
          send(data);
        };
        this.addEventListener('message', event => {
          const t = performance.now();
          try {
            const message = JSON.parse(String(event.data));
            const text =
              message.type === 'stream'
                ? message.response?.insertText
                : message.type === 'inline_completion'
                  ? message.list?.items?.[0]?.insertText
                  : '';
            if (message.type === 'error' && message.error?.type === 'superseded') {
              bench.superseded++;
            }
            if (text && bench.firsts[message.reply_to] === undefined) {
              bench.firsts[message.reply_to] = t;
            }
          } catch {
            /* not JSON */
          }
        });
      }
    }
    w.WebSocket = Recording;
  });
}

async function upstreamRequests(page: Page): Promise<number> {
  const response = await page.request.get(`${UPSTREAM}/_stats`);
  return ((await response.json()).requests as unknown[]).length;
}

async function kernelIdle(page: Page): Promise<void> {
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
}

async function clearCell(page: Page, debounce = 200): Promise<void> {
  await page.keyboard.press('Escape');
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Backspace');
  // the emptied line may get a fresh-line suggestion: let it come, then dismiss it
  await page.waitForTimeout(debounce + 150);
  if ((await page.locator(GHOST).count()) > 0) {
    await page.keyboard.press('Escape');
  }
  await expect(page.locator(GHOST)).toHaveCount(0);
  await page.notebook.enterCellEditingMode(0);
}

/**
 * One trial: `ask` types and presses the key that asks; the sample is taken from the last key
 * before the first ghost text that follows.
 */
async function trial(page: Page, ask: () => Promise<void>): Promise<ISample | null> {
  const before = await page.evaluate(() => (window as any).__bench.keys.length);
  await ask();
  const after = await page.evaluate(() => (window as any).__bench.keys.length);
  try {
    await page.waitForFunction(
      from => {
        const bench = (window as any).__bench;
        const key = bench.keys[bench.keys.length - 1];
        return bench.keys.length >= from && bench.ghosts.some((g: any) => g.t > key);
      },
      after,
      { timeout: 10000 }
    );
  } catch {
    return null;
  }
  return page.evaluate(
    ({ before }) => {
      const bench = (window as any).__bench;
      const key: number = bench.keys[bench.keys.length - 1];
      if (bench.keys.length <= before) {
        return null;
      }
      const ghost = bench.ghosts.find((g: any) => g.t > key);
      // the request that was answered: the last one sent before the ghost text (JupyterLab may
      // also send one for the text before the key, which is superseded)
      const sends = bench.sends.filter((s: any) => s.t > key && s.t < ghost.t);
      const send = sends.length ? sends[sends.length - 1] : null;
      const first = send ? (bench.firsts[send.n] ?? null) : null;
      // every request and ghost text after the key, relative to it (to see where time goes)
      const after = {
        sends: bench.sends
          .filter((s: any) => s.t > key)
          .map((s: any) => [s.t - key, (bench.firsts[s.n] ?? NaN) - key]),
        ghosts: bench.ghosts.filter((g: any) => g.t > key).map((g: any) => [g.t - key, g.text]),
        timers: (bench.timers ?? [])
          .filter((t: any) => t.at > key - 150)
          .map((t: any) => [t.at - key, t.delay, t.fired - key])
      };
      return {
        key,
        send: send ? send.t : null,
        first,
        ghost: ghost.t,
        text: ghost.text,
        after
      };
    },
    { before }
  );
}

/** A seeded random number generator (mulberry32), so every run types the same way. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Milliseconds before each key of `text`, as a person types: about 5–6 keys a second (log-normal
 * around 150 ms), a little longer after a space, a pause of 0.4–1.5 s before starting a new
 * line, and now and then (3 %) a pause of 0.5–2 s to think.
 */
function humanDelays(text: string, seed = 17): number[] {
  const rand = random(seed);
  const normal = () => {
    const u = Math.max(rand(), 1e-9);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
  const delays: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let delay = 150 * Math.exp(0.45 * normal());
    const previous = i > 0 ? text[i - 1] : '';
    if (previous === ' ') {
      delay *= 1.3;
    }
    if (previous === '\n') {
      delay += 400 + 1100 * rand();
    }
    if (rand() < 0.03) {
      delay += 500 + 1500 * rand();
    }
    delays.push(Math.round(delay));
  }
  return delays;
}

function write(name: string, data: unknown): void {
  if (OUT) {
    fs.writeFileSync(path.join(OUT, `${name}.json`), JSON.stringify(data, null, 1));
  }
}

function settingsFor(debounce: number, trigger: 'auto' | 'manual') {
  return {
    ...galata.DEFAULT_SETTINGS,
    [INLINE]: {
      providers: {
        [PROVIDER]: { enabled: true, debouncerDelay: debounce, timeout: 20000 }
      }
    },
    [PLUGIN]: { trigger }
  };
}

test.use({ autoGoto: false });
test.setTimeout(600000);

for (const debounce of DEBOUNCES) {
  test.describe(`debounce ${debounce} ms`, () => {
    test.use({ mockSettings: settingsFor(debounce, 'auto') });

    test(`automatic and fresh-line triggers, debounce ${debounce}`, async ({ page }) => {
      await instrument(page);
      await page.goto();
      await page.notebook.createNew(`bench-${debounce}.ipynb`);
      await kernelIdle(page);
      await page.notebook.enterCellEditingMode(0);
      // warm-up: the socket, the server's first request, the model
      for (let i = 0; i < 3; i++) {
        await clearCell(page);
        await trial(page, () => page.keyboard.type(`warm_${i} = `));
      }
      const automatic: ISample[] = [];
      const fresh: ISample[] = [];
      let failed = 0;
      for (let i = 0; i < TRIALS; i++) {
        await clearCell(page, debounce);
        const a = await trial(page, () => page.keyboard.type(`total_${debounce}_${i} = `));
        a ? automatic.push(a) : failed++;
        await clearCell(page, debounce);
        const f = await trial(page, async () => {
          await page.keyboard.type(`def f_${debounce}_${i}(a, b):`);
          await page.keyboard.press('Enter');
        });
        f ? fresh.push(f) : failed++;
      }
      write(`triggers-${debounce}`, { debounce, automatic, fresh, failed });
    });

    test(`typing real code at a human rate, debounce ${debounce}`, async ({ page }) => {
      await instrument(page);
      await page.goto();
      await page.notebook.createNew(`typing-${debounce}.ipynb`);
      await kernelIdle(page);
      await page.notebook.enterCellEditingMode(0);
      const text = CODE.split('\n')
        .map(line => line.trimStart())
        .join('\n')
        .slice(0, TYPING_CHARS);
      const delays = humanDelays(text);
      const asked = await upstreamRequests(page);
      const start = await page.evaluate(() => {
        const bench = (window as any).__bench;
        return {
          t: performance.now(),
          sends: bench.sends.length,
          cancels: bench.cancels,
          superseded: bench.superseded
        };
      });
      for (let i = 0; i < text.length; i++) {
        await page.waitForTimeout(delays[i]);
        await page.keyboard.press(text[i] === '\n' ? 'Enter' : text[i]);
      }
      // the last request's answer
      await page.waitForTimeout(debounce + 1000);
      const end = await page.evaluate(
        ({ start }) => {
          const bench = (window as any).__bench;
          const keys = bench.keys.filter((k: number) => k >= start.t);
          const sends = bench.sends.slice(start.sends);
          // a suggestion shown before the next key: a ghost after a request and before the next key
          let shown = 0;
          for (const send of sends) {
            const next = keys.find((k: number) => k > send.t) ?? Infinity;
            if (bench.ghosts.some((g: any) => g.t > send.t && g.t < next)) {
              shown++;
            }
          }
          return {
            keys: keys.length,
            seconds: (keys[keys.length - 1] - keys[0]) / 1000,
            sends: sends.length,
            cancels: bench.cancels - start.cancels,
            superseded: bench.superseded - start.superseded,
            shown
          };
        },
        { start }
      );
      const upstream = (await upstreamRequests(page)) - asked;
      write(`typing-${debounce}`, { debounce, ...end, upstream, chars: text.length });
    });
  });
}

test.describe('manual trigger', () => {
  test.use({ mockSettings: settingsFor(DEBOUNCES[DEBOUNCES.length - 1], 'manual') });

  test('Alt+\\', async ({ page }) => {
    await instrument(page);
    await page.goto();
    await page.notebook.createNew('bench-manual.ipynb');
    await kernelIdle(page);
    await page.notebook.enterCellEditingMode(0);
    const ask = (i: number | string) => async () => {
      await page.keyboard.type(`total_m_${i} = `);
      await page.waitForTimeout(50);
      await page.keyboard.press('Alt+Backslash');
    };
    for (let i = 0; i < 3; i++) {
      await clearCell(page);
      await trial(page, ask(`warm_${i}`));
    }
    const manual: ISample[] = [];
    let failed = 0;
    for (let i = 0; i < TRIALS; i++) {
      await clearCell(page);
      const m = await trial(page, ask(i));
      m ? manual.push(m) : failed++;
    }
    write('manual', { manual, failed });
  });
});

const ACCEPT_PAUSE_MS = Number(process.env.CODECOMPLETE_BENCH_ACCEPT_PAUSE_MS ?? '500');

for (const prefetch of [true, false]) {
  test.describe(`accept with Tab, suggestAfterAccept ${prefetch}`, () => {
    const debounce = DEBOUNCES.includes(150) ? 150 : DEBOUNCES[0];
    test.use({
      mockSettings: {
        ...settingsFor(debounce, 'auto'),
        [PLUGIN]: { trigger: 'auto', suggestAfterAccept: prefetch }
      }
    });

    test(`Tab → next ghost text, suggestAfterAccept ${prefetch}`, async ({ page }) => {
      await instrument(page);
      await page.goto();
      await page.notebook.createNew(`bench-accept-${prefetch}.ipynb`);
      await kernelIdle(page);
      await page.notebook.enterCellEditingMode(0);
      const tab = async (name: string): Promise<ISample | null> => {
        await clearCell(page, debounce);
        const shown = await trial(page, () => page.keyboard.type(`${name} = `));
        if (!shown) {
          return null;
        }
        // the user reads the suggestion (longer than the model's time to first token), then Tab
        await page.waitForTimeout(ACCEPT_PAUSE_MS);
        return trial(page, () => page.keyboard.press('Tab'));
      };
      for (let i = 0; i < 2; i++) {
        await tab(`warm_${prefetch}_${i}`);
      }
      const accept: ISample[] = [];
      let failed = 0;
      for (let i = 0; i < TRIALS; i++) {
        const sample = await tab(`total_${prefetch ? 'p' : 'n'}_${i}`);
        sample ? accept.push(sample) : failed++;
      }
      write(`accept-${prefetch ? 'prefetch' : 'plain'}`, {
        accept,
        failed,
        pause: ACCEPT_PAUSE_MS
      });
    });
  });
}
