/**
 * Notebook 7 (same server, same labextension): the "Choose Model…" dialog from the toolbar item
 * switches the model and the item shows the new one at once.
 */
import { expect, test } from '@playwright/test';

import { CHOOSER, closeChooser, restore } from './modelhelpers';

test('Notebook 7: the same dialog from the toolbar item', async ({ page, request }) => {
  const name = `nb7-models-${Date.now()}.ipynb`;
  const created = await request.put(`/api/contents/${name}`, {
    data: {
      type: 'notebook',
      format: 'json',
      content: {
        cells: [
          { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: '' }
        ],
        metadata: { language_info: { name: 'python' } },
        nbformat: 4,
        nbformat_minor: 5
      }
    }
  });
  expect(created.ok()).toBe(true);
  await page.goto(`/notebooks/${name}`);
  const item = page.locator('.jp-NotebookPanel-toolbar .jp-CodeComplete-status');
  await expect(item).toBeVisible({ timeout: 60000 });
  await item.click();
  await page.locator('.jp-CodeComplete-menu').getByText('Choose Model…').click();
  const row = page.locator(`${CHOOSER} [data-section="detected"] .jp-CodeComplete-modelRow`, {
    hasText: 'qwen2.5-coder:1.5b'
  });
  await row.locator('.jp-CodeComplete-use').click();
  await expect(page.locator('.jp-CodeComplete-chooserMessage')).toContainText(
    'Now using qwen2.5-coder:1.5b'
  );
  await closeChooser(page);
  await expect(item).toContainText('qwen2.5-coder:1.5b');
  await restore(page);
});
