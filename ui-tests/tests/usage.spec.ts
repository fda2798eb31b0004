/**
 * Usage statistics end to end: show a suggestion, accept it with Tab, accept a word with
 * Ctrl+Right, dismiss one, type through one; the server records them and the "Code Suggestions —
 * Statistics" panel shows the counts and a kept figure once the (shortened) kept windows end.
 * With the setting off nothing is recorded.
 */
import { expect, galata, test } from '@jupyterlab/galata';
import type { APIRequestContext, Page } from '@playwright/test';

import { GHOST, typeLikeAPerson } from './helpers';

const PLUGIN = 'jupyter-codecomplete:plugin';

type Totals = {
  shown: number;
  accepted: number;
  dismissed: number;
  typed_through: number;
  accepted_chars: number;
  kept_chars: number;
  kept_30s_chars: number;
};

async function totals(request: APIRequestContext): Promise<Totals> {
  const response = await request.get('/api/codecomplete/usage');
  expect(response.ok()).toBe(true);
  return (await response.json()).total;
}

async function newCell(page: Page, index: number): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await page.notebook.addCell('code', '');
  await page.notebook.enterCellEditingMode(index);
}

test.use({ autoGoto: true });

test.describe('recording usage', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { usageKeptWindows: [2, 4] }
    }
  });

  test('the panel shows what became of the suggestions', async ({ page, request }) => {
    const before = await totals(request);
    await page.notebook.createNew('usage.ipynb');
    await page.notebook.enterCellEditingMode(0);
    // The scripted model answers by the first rule the prompt (cells above included) matches:
    // multiply first, then add. 1. a word accepted with Ctrl+Right, then the rest dismissed
    await page.keyboard.type('def multiply(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a * b');
    await page.keyboard.press('Control+ArrowRight');
    await expect.poll(() => page.notebook.getCellTextInput(0)).toContain('return');
    await page.keyboard.press('Escape');
    // 2. shown, accepted whole with Tab
    await newCell(page, 1);
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.keyboard.press('Tab');
    await expect.poll(() => page.notebook.getCellTextInput(1)).toContain('return a + b');
    // 3. dismissed
    await newCell(page, 2);
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.keyboard.press('Escape');
    await expect(page.locator(GHOST)).toHaveCount(0);
    // 4. typed through to its end
    await newCell(page, 3);
    await page.keyboard.type('def subtract(a, b):');
    await page.keyboard.press('Enter');
    await expect(page.locator(GHOST)).toContainText('return a - b');
    await typeLikeAPerson(page, 'return a - b', { minMs: 60, maxMs: 120 });
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');

    // the events reach the server, and the kept figures after the kept windows
    await expect
      .poll(async () => (await totals(request)).kept_chars - before.kept_chars, {
        timeout: 30000
      })
      .toBeGreaterThanOrEqual('\n    return a + b'.length);
    await expect
      .poll(async () => (await totals(request)).typed_through - before.typed_through, {
        timeout: 30000
      })
      .toBe(1);
    const after = await totals(request);
    expect(after.accepted - before.accepted).toBe(2);
    expect(after.dismissed - before.dismissed).toBe(1);
    expect(after.shown - before.shown).toBeGreaterThanOrEqual(4);

    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute('codecomplete:open-statistics')
    );
    const panel = page.locator('.jp-CodeComplete-statistics');
    await expect(panel).toBeVisible();
    const figure = (name: string) =>
      panel.locator(`[data-figure="${name}"] .jp-CodeComplete-statistics-value`);
    await expect(figure('shown')).toHaveText(String(after.shown));
    await expect(figure('accepted')).toContainText(String(after.accepted));
    await expect(figure('dismissed')).toHaveText(String(after.dismissed));
    await expect(figure('typed_through')).toHaveText(String(after.typed_through));
    await expect(figure('kept_chars')).toHaveText(after.kept_chars.toLocaleString('en-US'));
    // JupyterLab's Vega renderer drew the plots
    await expect(
      panel.locator('[data-chart="latency"] canvas, [data-chart="latency"] svg').first()
    ).toBeVisible({
      timeout: 20000
    });
    await expect(panel.locator('table[data-table="trigger"]')).toContainText('fresh_line');
    // models side by side and over days: kept per hour and acceptance per model
    for (const id of ['kept-per-hour', 'acceptance-over-time', 'acceptance-by-model']) {
      await expect(
        panel.locator(`[data-chart="${id}"] canvas, [data-chart="${id}"] svg`).first()
      ).toBeVisible({ timeout: 20000 });
    }
    const model = (await (await request.get('/api/codecomplete/usage')).json()).by_model;
    expect(model.length).toBeGreaterThan(0);
    await expect(panel.locator('table[data-table="model"]')).toContainText(model[0].model);
    // what each restraint level would change, one row per level, as the REST route says; before
    // the gate has its events, how many it has
    const preview = (await (await request.get('/api/codecomplete/usage')).json()).restraint;
    expect(preview.map((p: { level: string }) => p.level)).toEqual(['more', 'normal', 'less']);
    if (preview[0].events < preview[0].min_events) {
      await expect(panel.locator('[data-note="restraint"]')).toContainText(
        `once there are ${preview[0].min_events} (${preview[0].events} so far)`
      );
      await expect(panel.locator('table[data-table="restraint"]')).toHaveCount(0);
    } else {
      const rows = panel.locator('table[data-table="restraint"] tr');
      await expect(rows).toHaveCount(1 + preview.length);
      await expect(rows.nth(3)).toContainText('less');
      await expect(rows.nth(3)).toContainText('skips');
    }
  });
});

test.describe('with recording off', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { recordUsage: false, usageKeptWindows: [1, 2] }
    }
  });

  test('nothing is recorded', async ({ page, request }) => {
    const before = await totals(request);
    await page.notebook.createNew('usage-off.ipynb');
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.keyboard.press('Tab');
    await newCell(page, 1);
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.keyboard.press('Escape');
    // past the kept windows and the batching delay
    await page.waitForTimeout(4000);
    expect(await totals(request)).toEqual(before);
  });
});
