/**
 * Edit predictions in JupyterLab: a rename on one line of a cell that uses the name on three
 * more lines → the diff is shown on those lines → Tab applies it in one undo step; Escape
 * dismisses it and stays in edit mode; with the setting off nothing is asked. The "model" is the
 * scripted upstream (a real local HTTP server) answering in the generic chat format.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, galata, test } from '@jupyterlab/galata';

import { CELL, INSERTED, notebookWith, PLUGIN, REMOVED, UPSTREAM } from './edithelpers';

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
async function renameOnFirstLine(
  page: Page,
  request: APIRequestContext,
  path: string
): Promise<void> {
  // written through the contents API: typed in, the editor would indent the lines itself
  const created = await request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: notebookWith(CELL) }
  });
  expect(created.ok()).toBe(true);
  await page.notebook.openByPath(path);
  await page.notebook.activate(path.split('/').pop()!);
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 'def total('.length; i++) {
    await page.keyboard.press('ArrowRight');
  }
  for (let i = 0; i < 'items'.length; i++) {
    await page.keyboard.press('Shift+ArrowRight');
  }
  await page.keyboard.type('prices');
  expect(await cellSource(page)).toBe(RENAMED_LINE);
}

/**
 * The first cell's source, read from its model (galata's getCellTextInput selects all, which
 * would move the cursor).
 */
async function cellSource(page: Page): Promise<string> {
  return page.evaluate(() => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    return String(panel.content.widgets[0].model.sharedModel.getSource());
  });
}

async function predict(page: Page): Promise<void> {
  await page.keyboard.press('Alt+Shift+Backslash'); // the "Predict Next Edit" shortcut
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
    page,
    request,
    tmpPath
  }) => {
    await renameOnFirstLine(page, request, `${tmpPath}/rename.ipynb`);
    await predict(page);
    await expect(page.locator(REMOVED)).toHaveCount(3);
    // each edit is only what differs, in whole words
    await expect(page.locator(REMOVED)).toHaveText(['items', 'items', 'items']);
    await expect(page.locator(INSERTED)).toHaveText(['prices', 'prices', 'prices']);
    await page.screenshot({ path: 'test-results/screenshots/lab-edit-prediction.png' });
    // shown, not applied
    expect(await cellSource(page)).toBe(RENAMED_LINE);

    // JupyterLab's undo (the shared model's) merges changes less than 500 ms apart into one step:
    // a user's Tab comes later than that after typing; here it must be waited for
    await page.waitForTimeout(700);
    await page.keyboard.press('Tab');
    await expect(page.locator(REMOVED)).toHaveCount(0);
    expect(await cellSource(page)).toBe(RENAMED);
    // one undo step takes the whole prediction back, and only it
    await page.keyboard.press('Control+z');
    expect(await cellSource(page)).toBe(RENAMED_LINE);
  });

  // Not run yet in this change (written without a browser at hand): run it with the UI tests.
  test('typing the start of a shown edit keeps the prediction, the rest still to apply', async ({
    page,
    request,
    tmpPath
  }) => {
    await renameOnFirstLine(page, request, `${tmpPath}/typethrough.ipynb`);
    await predict(page);
    await expect(page.locator(REMOVED)).toHaveCount(3);
    // to the end of `items` on the third line ("    for p in items:"), and type the start of
    // what the prediction puts there
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type('pr');
    // still shown: "items" still goes, "ices" follows what was typed, the other two unchanged
    await expect(page.locator(REMOVED)).toHaveText(['items', 'items', 'items']);
    await expect(page.locator(INSERTED)).toHaveText(['ices', 'prices', 'prices']);
    await page.waitForTimeout(700); // see the first test: Tab comes later than typing
    await page.keyboard.press('Tab');
    await expect(page.locator(REMOVED)).toHaveCount(0);
    expect(await cellSource(page)).toBe(RENAMED);
  });

  test('Escape dismisses the prediction and stays in edit mode', async ({
    page,
    request,
    tmpPath
  }) => {
    await renameOnFirstLine(page, request, `${tmpPath}/dismiss.ipynb`);
    await predict(page);
    await expect(page.locator(REMOVED)).toHaveCount(3);
    await page.keyboard.press('Escape');
    await expect(page.locator(REMOVED)).toHaveCount(0);
    await expect(page.locator(INSERTED)).toHaveCount(0);
    expect(await cellSource(page)).toBe(RENAMED_LINE);
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

  test('nothing is asked', async ({ page, request, tmpPath }) => {
    const before = await editRequests(request);
    await renameOnFirstLine(page, request, `${tmpPath}/off.ipynb`);
    await predict(page);
    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute('codecomplete:predict-edit')
    );
    await page.waitForTimeout(1500);
    expect(await editRequests(request)).toBe(before);
    await expect(page.locator(REMOVED)).toHaveCount(0);
  });
});
