/**
 * Edit predictions in JupyterLab: a rename on one line of a cell that uses the name on three
 * more lines → the diff is shown on those lines → Tab applies it in one undo step; Escape
 * dismisses it and stays in edit mode; with the setting off nothing is asked. The "model" is the
 * scripted upstream (a real local HTTP server) answering in the generic chat format.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, galata, test } from '@jupyterlab/galata';

const UPSTREAM = `http://127.0.0.1:${process.env.CODECOMPLETE_UI_UPSTREAM_PORT ?? '8911'}`;
const PLUGIN = 'jupyter-codecomplete:plugin';
const REMOVED = '.jp-codecomplete-EditRemoved';
const INSERTED = '.jp-codecomplete-EditInserted';

const CELL = [
  'def total(items):',
  '    s = 0',
  '    for p in items:',
  '        s += p',
  '    print(len(items))',
  '    return s / len(items)'
].join('\n');
const RENAMED_LINE = CELL.replace('def total(items)', 'def total(prices)');
const RENAMED = CELL.replace(/items/g, 'prices');

async function editRequests(request: APIRequestContext): Promise<number> {
  const response = await request.get(`${UPSTREAM}/_stats`);
  const data = (await response.json()) as {
    requests: { body: { messages?: { content: string }[] } }[];
  };
  return data.requests.filter(r =>
    (r.body.messages ?? []).some(m => m.content.includes('<|editable_region_start|>'))
  ).length;
}

/**
 * A notebook whose first cell is CELL, then `items` renamed to `prices` on its first line, by
 * keyboard, the cursor after the new name.
 */
async function renameOnFirstLine(page: Page, name: string): Promise<void> {
  await page.notebook.createNew(name);
  await page.notebook.setCell(0, 'code', CELL);
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 'def total('.length; i++) {
    await page.keyboard.press('ArrowRight');
  }
  for (let i = 0; i < 'items'.length; i++) {
    await page.keyboard.press('Shift+ArrowRight');
  }
  await page.keyboard.type('prices');
  expect(await page.notebook.getCellTextInput(0)).toBe(RENAMED_LINE);
}

async function predict(page: Page): Promise<void> {
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('codecomplete:predict-edit')
  );
}

test.describe('on request', () => {
  test.use({
    autoGoto: true,
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      // no ghost text in the way: only edit predictions
      [PLUGIN]: { enabled: false, editPredictions: 'manual' }
    }
  });

  test('the rename follows on the three lines below; Tab applies it in one undo step', async ({
    page
  }) => {
    await renameOnFirstLine(page, 'rename.ipynb');
    await predict(page);
    await expect(page.locator(REMOVED)).toHaveCount(3);
    // each edit is only what differs: `item` → `price` before the `s` both names end with
    await expect(page.locator(REMOVED)).toHaveText(['item', 'item', 'item']);
    await expect(page.locator(INSERTED)).toHaveText(['price', 'price', 'price']);
    await page.screenshot({ path: 'test-results/screenshots/lab-edit-prediction.png' });
    // shown, not applied
    expect(await page.notebook.getCellTextInput(0)).toBe(RENAMED_LINE);

    // JupyterLab's undo (the shared model's) merges changes less than 500 ms apart into one step:
    // a user's Tab comes later than that after typing; here it must be waited for
    await page.waitForTimeout(700);
    await page.keyboard.press('Tab');
    await expect(page.locator(REMOVED)).toHaveCount(0);
    expect(await page.notebook.getCellTextInput(0)).toBe(RENAMED);
    // one undo step takes the whole prediction back, and only it
    await page.keyboard.press('Control+z');
    expect(await page.notebook.getCellTextInput(0)).toBe(RENAMED_LINE);
  });

  test('Escape dismisses the prediction and stays in edit mode', async ({ page }) => {
    await renameOnFirstLine(page, 'dismiss.ipynb');
    await predict(page);
    await expect(page.locator(REMOVED)).toHaveCount(3);
    await page.keyboard.press('Escape');
    await expect(page.locator(REMOVED)).toHaveCount(0);
    await expect(page.locator(INSERTED)).toHaveCount(0);
    expect(await page.notebook.getCellTextInput(0)).toBe(RENAMED_LINE);
    await expect(page.locator('.jp-Notebook.jp-mod-editMode')).toHaveCount(1);
    // a second Escape is JupyterLab's again: command mode
    await page.keyboard.press('Escape');
    await expect(page.locator('.jp-Notebook.jp-mod-commandMode')).toHaveCount(1);
  });
});

test.describe('off', () => {
  test.use({
    autoGoto: true,
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { enabled: false, editPredictions: 'off' }
    }
  });

  test('nothing is asked', async ({ page, request }) => {
    const before = await editRequests(request);
    await renameOnFirstLine(page, 'off.ipynb');
    await predict(page);
    await page.keyboard.press('Alt+Shift+Backslash');
    await page.waitForTimeout(1500);
    expect(await editRequests(request)).toBe(before);
    await expect(page.locator(REMOVED)).toHaveCount(0);
  });
});

test.describe('Notebook 7', () => {
  // Galata's settings mock answers Notebook 7's settings requests too (the same endpoint)
  test.use({
    autoGoto: false,
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { enabled: false, editPredictions: 'manual' }
    }
  });

  test('the shortcut shows the rename on the lines below and Tab applies it', async ({
    page,
    request
  }) => {
    const name = `nb7-edit-${Date.now()}.ipynb`;
    const notebook = {
      cells: [
        { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: CELL }
      ],
      metadata: {
        kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
        language_info: { name: 'python' }
      },
      nbformat: 4,
      nbformat_minor: 5
    };
    const created = await request.put(`/api/contents/${name}`, {
      data: { type: 'notebook', format: 'json', content: notebook }
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
      await request.delete(`/api/contents/${name}`);
    }
  });
});
