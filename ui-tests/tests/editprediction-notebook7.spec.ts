/**
 * Edit predictions in Notebook 7 (same server, same labextension): the shortcut shows the rename
 * on the lines below and Tab applies it. The setting is set through the settings API for the
 * test and put back after it.
 */
import { expect, test } from '@playwright/test';

import { CELL, notebookWith, PLUGIN, REMOVED } from './edithelpers';

const SETTINGS = `/lab/api/settings/${PLUGIN}`;

test('Notebook 7: the shortcut shows the rename on the lines below and Tab applies it', async ({
  page,
  request
}) => {
  const saved = await request.get(SETTINGS);
  const raw = ((await saved.json()) as { raw?: string }).raw ?? '{}';
  const put = await request.put(SETTINGS, {
    data: { raw: JSON.stringify({ enabled: false, editPredictions: 'manual' }) }
  });
  expect(put.ok()).toBe(true);
  const name = `nb7-edit-${Date.now()}.ipynb`;
  const created = await request.put(`/api/contents/${name}`, {
    data: { type: 'notebook', format: 'json', content: notebookWith(CELL) }
  });
  expect(created.ok()).toBe(true);
  try {
    await page.goto(`/notebooks/${name}`);
    const editor = page.locator('.jp-Cell .cm-content').first();
    await expect(editor).toBeVisible({ timeout: 60000 });
    await editor.click();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 'def total('.length; i++) {
      await page.keyboard.press('ArrowRight');
    }
    for (let i = 0; i < 'items'.length; i++) {
      await page.keyboard.press('Shift+ArrowRight');
    }
    await page.keyboard.type('prices');
    await page.keyboard.press('Alt+Shift+Backslash');
    await expect(page.locator(REMOVED)).toHaveCount(3);
    await page.screenshot({ path: 'test-results/screenshots/notebook7-edit-prediction.png' });
    await page.waitForTimeout(700);
    await page.keyboard.press('Tab');
    await expect(page.locator(REMOVED)).toHaveCount(0);
    await expect(editor).toContainText('for p in prices:');
    await expect(editor).toContainText('return s / len(prices)');
  } finally {
    await request.put(SETTINGS, { data: { raw } });
    await request.delete(`/api/contents/${name}`);
  }
});
