/**
 * The user guide's screenshots of edit predictions, light and dark: `items` renamed to `prices`
 * on a function's first line, the rename predicted on the three lines below (the UI-test
 * upstream answers in the generic chat format).
 */
import { expect, galata, test } from '@jupyterlab/galata';

import { CELL, notebookWith, PLUGIN, REMOVED } from '../tests/edithelpers';

for (const theme of ['JupyterLab Light', 'JupyterLab Dark']) {
  test.describe(theme, () => {
    test.use({
      autoGoto: true,
      viewport: { width: 900, height: 420 },
      mockSettings: {
        ...galata.DEFAULT_SETTINGS,
        '@jupyterlab/apputils-extension:themes': { theme },
        [PLUGIN]: { enabled: false, editPredictions: 'manual' }
      }
    });

    test(`edit prediction screenshot (${theme})`, async ({ page, request, tmpPath }) => {
      const path = `${tmpPath}/shop.ipynb`;
      await request.put(`/api/contents/${path}`, {
        data: { type: 'notebook', format: 'json', content: notebookWith(CELL) }
      });
      await page.notebook.openByPath(path);
      await page.notebook.activate('shop.ipynb');
      await page.notebook.enterCellEditingMode(0);
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
      const name = theme.endsWith('Dark') ? 'lab-edit-prediction-dark' : 'lab-edit-prediction';
      await page
        .locator('.jp-NotebookPanel')
        .screenshot({ path: `../docs/screenshots/${name}.png` });
    });
  });
}
