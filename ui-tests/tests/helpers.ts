import type { Page } from '@playwright/test';

export const STATUS = '.jp-CodeComplete-status';

/**
 * An empty Python notebook (one empty code cell), to PUT through the contents API.
 */
export const EMPTY_PYTHON_NOTEBOOK = {
  cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: '' }],
  metadata: {
    kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
    language_info: { name: 'python' }
  },
  nbformat: 4,
  nbformat_minor: 5
};
export const GHOST = '.jp-GhostText';
// Screenshots taken during tests stay with the test results (the docs' screenshots come from
// `scripts/screenshots.sh`, which shows what a new user sees).
export const SHOTS = 'test-results/screenshots';

/**
 * The request/skip counters of the status item, to wait for a decision deterministically.
 */
export async function counters(page: Page): Promise<{ requests: number; skipped: number }> {
  const node = page.locator(STATUS).first();
  return {
    requests: Number(await node.getAttribute('data-requests')),
    skipped: Number(await node.getAttribute('data-skipped'))
  };
}

/**
 * Record every text the ghost text shows (to see a stream arrive progressively).
 */
export async function recordGhostTexts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as any).__ghostTexts = seen;
    const observer = new MutationObserver(() => {
      document.querySelectorAll('.jp-GhostText').forEach(node => {
        const text = node.textContent ?? '';
        if (text && seen[seen.length - 1] !== text) {
          seen.push(text);
        }
      });
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

export async function ghostTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as any).__ghostTexts ?? []);
}

/**
 * Type the way a person types: one key at a time (Enter for a line break), each key a random
 * `minMs`–`maxMs` after the previous one (120–250 ms by default). The editor's own
 * auto-indentation applies after Enter, so `text` carries no indentation after a line break.
 */
export async function typeLikeAPerson(
  page: Page,
  text: string,
  options: { minMs?: number; maxMs?: number } = {}
): Promise<void> {
  const min = options.minMs ?? 120;
  const max = options.maxMs ?? 250;
  for (const ch of text) {
    await page.keyboard.press(ch === '\n' ? 'Enter' : ch === ' ' ? 'Space' : ch);
    await page.waitForTimeout(min + Math.random() * (max - min));
  }
}
