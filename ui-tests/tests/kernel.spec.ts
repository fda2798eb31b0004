/**
 * Context only Jupyter has, with a real ipykernel: the outputs of the cells above and what the
 * kernel completes at the cursor (`df[` → the DataFrame's columns) reach the model. Asserted on
 * what the scripted upstream (a real local HTTP server) received; with the settings off they
 * do not.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, galata, test } from '@jupyterlab/galata';

import { typeLikeAPerson } from './helpers';

const UPSTREAM = `http://127.0.0.1:${process.env.CODECOMPLETE_UI_UPSTREAM_PORT ?? '8911'}`;
const PLUGIN = 'jupyter-codecomplete:plugin';

const SETUP = 'import pandas as pd; df = pd.DataFrame({"price": [1.0], "qty": [2]})';
// The "raw" prompt style of the UI-test server writes these comment blocks.
const CANDIDATES = /# The kernel completes df\[ with:\n# 'price', 'qty'\ndf\[/;
const OUTPUTS = /\ndf\n# Out:\n# +price +qty\n# 0 +1\.0 +2\n/;

/**
 * The prompts the upstream received so far.
 */
async function prompts(request: APIRequestContext): Promise<string[]> {
  const response = await request.get(`${UPSTREAM}/_stats`);
  const data = (await response.json()) as { requests: { body: { prompt?: string } }[] };
  return data.requests.map(r => String(r.body.prompt ?? ''));
}

/**
 * A notebook whose kernel has run SETUP and `df` (a table output), the cursor in a third cell.
 */
async function notebookWithDataFrame(page: Page, name: string): Promise<void> {
  await page.notebook.createNew(name);
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle',
    { timeout: 60000 }
  );
  await page.notebook.setCell(0, 'code', SETUP);
  await page.notebook.addCell('code', 'df');
  await page.notebook.run();
  await expect(page.locator('.jp-OutputArea-output').filter({ hasText: 'price' })).toBeVisible();
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
  await page.notebook.addCell('code', '');
  await page.notebook.enterCellEditingMode(2);
}

/**
 * Ask for a completion at the cursor again (as Alt+\ does).
 */
async function invoke(page: Page): Promise<void> {
  await page.evaluate(() => (window as any).jupyterapp.commands.execute('inline-completer:invoke'));
}

test.use({ autoGoto: true });

test('df[ sends the columns the kernel knows and the outputs above', async ({ page, request }) => {
  await notebookWithDataFrame(page, 'kernel-on.ipynb');
  const before = (await prompts(request)).length;
  await typeLikeAPerson(page, 'df[');
  // The very first request at `df[` carries the columns: the kernel's completer was warmed
  // while the kernel was idle (its first completion takes far longer than the time budget).
  await expect
    .poll(async () => (await prompts(request)).slice(before).filter(p => /df\[$/.test(p)).length, {
      timeout: 15000
    })
    .toBeGreaterThan(0);
  const first = (await prompts(request)).slice(before).filter(p => /df\[$/.test(p))[0];
  expect(first).toMatch(CANDIDATES);
  const sent = (await prompts(request)).slice(before).filter(p => CANDIDATES.test(p));
  expect(sent[0]).toMatch(OUTPUTS);
});

test.describe('with the settings off', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { cellOutputs: false, kernelCandidates: false }
    }
  });

  test('neither the columns nor the outputs are sent', async ({ page, request }) => {
    await notebookWithDataFrame(page, 'kernel-off.ipynb');
    const before = (await prompts(request)).length;
    await page.keyboard.type('df[');
    await expect
      .poll(async () => (await prompts(request)).length, { timeout: 30000 })
      .toBeGreaterThan(before);
    // long enough for a kernel answer to have arrived, then once more at the same place
    await page.waitForTimeout(1500);
    await invoke(page);
    await expect
      .poll(async () => (await prompts(request)).length, { timeout: 30000 })
      .toBeGreaterThan(before + 1);
    const sent = (await prompts(request)).slice(before);
    expect(sent.some(p => p.endsWith('df['))).toBe(true);
    for (const prompt of sent) {
      expect(prompt).not.toMatch(/The kernel completes/);
      expect(prompt).not.toMatch(/# Out:/);
    }
  });
});
