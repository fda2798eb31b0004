/**
 * The user guide's screenshots of issue 27 (a real ipykernel, the UI-test upstream answering in
 * the generic chat format): a rename in the defining cell followed in the two cells that use the
 * name (markers), and the fix of a KeyError shown on returning to the cell.
 */
import { expect, galata, test } from '@jupyterlab/galata';

import {
  DEFINE,
  FIX_MARKER,
  IMPORT,
  notebookOf,
  PENDING_MARKER,
  PLUGIN,
  REMOVED
} from '../tests/edithelpers';
import { typeLikeAPerson } from '../tests/helpers';

test.use({ autoGoto: true, viewport: { width: 900, height: 520 } });

test.describe('rename', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { enabled: false, editPredictions: 'auto' }
    }
  });

  test('pending edits screenshot', async ({ page, request, tmpPath }) => {
    const path = `${tmpPath}/sales.ipynb`;
    await request.put(`/api/contents/${path}`, {
      data: {
        type: 'notebook',
        format: 'json',
        content: notebookOf([IMPORT, DEFINE, 'total = df["price"].sum()', 'df.head()'])
      }
    });
    await page.notebook.openByPath(path);
    await page.notebook.activate('sales.ipynb');
    await page.notebook.enterCellEditingMode(1);
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await typeLikeAPerson(page, 'sales');
    await expect(page.locator(PENDING_MARKER)).toHaveCount(2, { timeout: 20000 });
    await page
      .locator('.jp-NotebookPanel')
      .screenshot({ path: '../docs/screenshots/lab-pending-edits.png' });
  });
});

test.describe('fix', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { enabled: false, editPredictions: 'manual' }
    }
  });

  test('fix shown screenshot', async ({ page, request, tmpPath }) => {
    const path = `${tmpPath}/prices.ipynb`;
    await request.put(`/api/contents/${path}`, {
      data: {
        type: 'notebook',
        format: 'json',
        content: notebookOf([`${IMPORT}\n${DEFINE}`, 'df["prcie"].sum()'])
      }
    });
    await page.notebook.openByPath(path);
    await page.notebook.activate('prices.ipynb');
    await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
      'data-status',
      'idle',
      { timeout: 60000 }
    );
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('Shift+Enter');
    const cell = page.locator('.jp-Notebook .jp-Cell').nth(1);
    await expect(cell.locator(FIX_MARKER)).toBeVisible({ timeout: 30000 });
    await cell.locator('.cm-content').click();
    await expect(cell.locator(REMOVED)).toHaveText(['prcie']);
    // the notebook down to the traceback's first lines (its frames name this machine's paths)
    const panel = (await page.locator('.jp-NotebookPanel').boundingBox())!;
    const output = (await cell.locator('.jp-OutputArea-output').boundingBox())!;
    await page.screenshot({
      path: '../docs/screenshots/lab-fix-shown.png',
      clip: { x: panel.x, y: panel.y, width: panel.width, height: output.y - panel.y + 76 }
    });
  });
});
