/**
 * Notebook 7 screenshots for the documentation (nothing configured: the demo model serves).
 */
import { expect, test } from '@playwright/test';

import { EMPTY_PYTHON_NOTEBOOK as NOTEBOOK } from '../tests/helpers';

const SHOTS = '../docs/screenshots';

test('Notebook 7: a fresh-line suggestion and the toolbar menu', async ({ page, request }) => {
  const name = 'Untitled.ipynb';
  await request.put(`/api/contents/${name}`, {
    data: { type: 'notebook', format: 'json', content: NOTEBOOK }
  });
  await page.goto(`/notebooks/${name}`);
  const item = page.locator('.jp-NotebookPanel-toolbar .jp-CodeComplete-status');
  await expect(item).toHaveAttribute('data-state', 'idle', { timeout: 60000 });
  await page.locator('.jp-Cell .cm-content').first().click();
  await page.keyboard.type('def fibonacci(n):');
  await page.keyboard.press('Enter');
  await expect(page.locator('.jp-GhostText')).toHaveText(/\w/, { timeout: 30000 });
  await expect(item).toHaveAttribute('data-state', 'idle');
  await page.screenshot({ path: `${SHOTS}/notebook7-ghost-text.png` });
  await page.keyboard.press('Escape');
  await item.click();
  await expect(page.locator('.jp-CodeComplete-menu')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/notebook7-toolbar-menu.png` });
});
