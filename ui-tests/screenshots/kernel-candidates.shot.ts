/**
 * The user guide's screenshot of "What the notebook knows": a real ipykernel holds a DataFrame,
 * and at `df[` the suggestion uses its columns (the kernel's candidates reached the model; the
 * UI-test upstream answers with the columns when they are in the prompt).
 */
import { expect, test } from '@jupyterlab/galata';

test.use({ autoGoto: true, viewport: { width: 1100, height: 560 } });

test('kernel candidates screenshot', async ({ page }) => {
  await page.notebook.createNew('sales.ipynb');
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle',
    { timeout: 60000 }
  );
  await page.notebook.setCell(
    0,
    'code',
    'import pandas as pd\ndf = pd.DataFrame({"price": [1.0, 2.5], "qty": [2, 1]})'
  );
  await page.notebook.addCell('code', 'df');
  await page.notebook.run();
  await expect(page.locator('.jp-OutputArea-output').filter({ hasText: 'price' })).toBeVisible();
  await page.notebook.addCell('code', '');
  await page.notebook.enterCellEditingMode(2);
  await page.keyboard.type('revenue = df[');
  const ghost = page.locator('.jp-GhostText');
  // the first question to a fresh kernel may miss its time budget: ask again at the same place
  await expect
    .poll(
      async () => {
        const text = (await ghost.allTextContents()).join('');
        if (!text.includes('price')) {
          await page.evaluate(() =>
            (window as any).jupyterapp.commands.execute('inline-completer:invoke')
          );
        }
        return text;
      },
      { timeout: 30000, intervals: [1500] }
    )
    .toContain("'price'] * df['qty']");
  await page.locator('.jp-NotebookPanel').screenshot({
    path: '../docs/screenshots/lab-kernel-candidates.png'
  });
});
