/**
 * Issue 27 in JupyterLab, with a real ipykernel: the fix after an error (a KeyError's traceback
 * and the kernel's candidates reach the model; on returning to the cell the fix is shown, Tab
 * applies it), and a rename in the defining cell followed in the cells that use the name
 * (markers; Tab, Tab applies both; Escape drops them; a cell moved and one deleted while they
 * are pending: the rest still land by id; automatic predictions held after two were dismissed,
 * the shortcut never). The "model" is the scripted upstream
 * answering in the generic chat format (jupyter_codecomplete/testing/edit_rules.py); the tests
 * assert on what reached it.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, galata, test } from '@jupyterlab/galata';

import {
  DEFINE,
  editPrompts,
  FIX_MARKER,
  IMPORT,
  INSERTED,
  notebookOf,
  PENDING_MARKER,
  PLUGIN,
  REMOVED
} from './edithelpers';
import { typeLikeAPerson } from './helpers';

const USES = ['total = df["price"].sum()', 'df.head()'];

async function open(page: Page, request: APIRequestContext, path: string, cells: string[]) {
  const created = await request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: notebookOf(cells) }
  });
  expect(created.ok()).toBe(true);
  await page.notebook.openByPath(path);
  await page.notebook.activate(path.split('/').pop()!);
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle',
    { timeout: 60000 }
  );
}

/**
 * The sources of the notebook's cells, read from the model.
 */
async function sources(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    return panel.content.widgets.map((c: any) => String(c.model.sharedModel.getSource()));
  });
}

/**
 * A cell of the notebook (0-based).
 */
function cell(page: Page, index: number) {
  return page.locator('.jp-Notebook .jp-Cell').nth(index);
}

/**
 * Cell 0 defines the frame, cell 1 is typed like a person with a typo, both run: KeyError.
 */
async function keyError(page: Page, request: APIRequestContext, path: string): Promise<void> {
  await open(page, request, path, [`${IMPORT}\n${DEFINE}`, '']);
  await page.notebook.enterCellEditingMode(1);
  await typeLikeAPerson(page, 'df["prcie"].sum()');
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.press('Shift+Enter');
  await expect(cell(page, 1).locator('.jp-OutputArea-output')).toContainText('KeyError', {
    timeout: 30000
  });
}

/**
 * Cells that define `df` and use it twice; `df` renamed to `sales` in the defining cell, typed
 * like a person.
 */
async function rename(page: Page, request: APIRequestContext, path: string): Promise<void> {
  await open(page, request, path, [IMPORT, DEFINE, ...USES]);
  await page.notebook.enterCellEditingMode(1);
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Shift+ArrowRight');
  await typeLikeAPerson(page, 'sales');
}

test.describe('the fix after an error', () => {
  test.use({
    autoGoto: true,
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { enabled: false, editPredictions: 'manual' }
    }
  });

  test('KeyError: the traceback and the kernel candidates reach the model; Tab applies the fix', async ({
    page,
    request,
    tmpPath
  }) => {
    const before = (await editPrompts(request)).length;
    await keyError(page, request, `${tmpPath}/keyerror.ipynb`);
    // the marker on the cell that raised
    await expect(cell(page, 1).locator(FIX_MARKER)).toBeVisible({ timeout: 30000 });
    const prompts = (await editPrompts(request)).slice(before);
    expect(prompts.length).toBe(1);
    const prompt = prompts[0];
    // the traceback reached the server as text: it found the line it names (ipykernel's
    // `Cell In[n], line 1`) and shows the model the traceback's end
    expect(prompt).toMatch(/In \[\d+\], line 1 raised KeyError: 'prcie'/);
    expect(prompt).toContain('raise KeyError(key) from err');
    expect(prompt).not.toContain('\u001b[');
    // what the kernel completes for `df["`: the frame's columns
    expect(prompt).toMatch(/The kernel completes df\[" with:\n# price, qty\n/);
    await page.screenshot({ path: 'test-results/screenshots/lab-fix-available.png' });

    // back to the cell: the fix is shown in place
    await cell(page, 1).locator('.cm-content').click();
    await expect(cell(page, 1).locator(REMOVED)).toHaveText(['prcie']);
    await expect(cell(page, 1).locator(INSERTED)).toHaveText(['price']);
    await page.screenshot({ path: 'test-results/screenshots/lab-fix-shown.png' });
    await page.keyboard.press('Tab');
    await expect(cell(page, 1).locator(REMOVED)).toHaveCount(0);
    expect((await sources(page))[1]).toBe('df["price"].sum()');
    await expect(cell(page, 1).locator(FIX_MARKER)).toHaveCount(0);
  });
});

test.describe('edit predictions off', () => {
  test.use({
    autoGoto: true,
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { enabled: false, editPredictions: 'off' }
    }
  });

  test('nothing is sent on an error', async ({ page, request, tmpPath }) => {
    const before = (await editPrompts(request)).length;
    await keyError(page, request, `${tmpPath}/off.ipynb`);
    await page.waitForTimeout(3000);
    expect((await editPrompts(request)).length).toBe(before);
    await expect(page.locator(FIX_MARKER)).toHaveCount(0);
  });
});

test.describe('a rename across cells', () => {
  test.use({
    autoGoto: true,
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      [PLUGIN]: { enabled: false, editPredictions: 'auto' }
    }
  });

  test('the two cells that use the name get markers; Tab, Tab applies both', async ({
    page,
    request,
    tmpPath
  }) => {
    const before = (await editPrompts(request)).length;
    await rename(page, request, `${tmpPath}/rename.ipynb`);
    await expect(page.locator(PENDING_MARKER)).toHaveCount(2, { timeout: 20000 });
    await expect(cell(page, 2).locator(PENDING_MARKER)).toHaveCount(1);
    await expect(cell(page, 3).locator(PENDING_MARKER)).toHaveCount(1);
    await expect(cell(page, 2).locator(REMOVED)).toHaveText(['df']);
    await expect(cell(page, 3).locator(INSERTED)).toHaveText(['sales']);
    // what reached the model: the rename in the history, the other cells
    const prompt = (await editPrompts(request)).slice(before).pop()!;
    expect(prompt).toContain('-df = pd.DataFrame');
    expect(prompt).toContain('+sales = pd.DataFrame');
    expect(prompt).toContain('df.head()');
    await page.screenshot({ path: 'test-results/screenshots/lab-pending-edits.png' });
    expect(await sources(page)).toEqual([IMPORT, DEFINE.replace('df', 'sales'), ...USES]);

    await page.waitForTimeout(700); // JupyterLab's undo merges changes closer than 500 ms
    await page.keyboard.press('Tab');
    await expect(cell(page, 2).locator(PENDING_MARKER)).toHaveCount(0);
    expect((await sources(page))[2]).toBe('total = sales["price"].sum()');
    // the next Tab is in the next cell, its diff shown there
    await expect(cell(page, 3)).toHaveClass(/jp-mod-active/);
    await expect(cell(page, 3).locator(REMOVED)).toHaveText(['df']);
    await page.waitForTimeout(700);
    const asked = (await editPrompts(request)).length;
    await page.keyboard.press('Tab');
    await expect(page.locator(PENDING_MARKER)).toHaveCount(0);
    expect(await sources(page)).toEqual([
      IMPORT,
      DEFINE.replace('df', 'sales'),
      'total = sales["price"].sum()',
      'sales.head()'
    ]);
    // the prediction taken whole: the next one is asked for at once, with the applied edits
    await expect.poll(async () => (await editPrompts(request)).length).toBe(asked + 1);
    expect((await editPrompts(request)).pop()).toContain('+sales.head()');
    // one undo per applied cell
    await page.keyboard.press('Control+z');
    expect((await sources(page)).slice(2)).toEqual(['total = sales["price"].sum()', 'df.head()']);
  });

  test('Escape drops them all (dark theme)', async ({ page, request, tmpPath }) => {
    await page.theme.setDarkTheme();
    await rename(page, request, `${tmpPath}/escape.ipynb`);
    await expect(page.locator(PENDING_MARKER)).toHaveCount(2, { timeout: 20000 });
    await page.screenshot({ path: 'test-results/screenshots/lab-pending-edits-dark.png' });
    await page.keyboard.press('Escape');
    await expect(page.locator(PENDING_MARKER)).toHaveCount(0);
    await expect(page.locator(REMOVED)).toHaveCount(0);
    expect((await sources(page)).slice(2)).toEqual(USES);
    await expect(page.locator('.jp-Notebook.jp-mod-editMode')).toHaveCount(1);
    await page.theme.setLightTheme();
  });

  test('a cell moved and one deleted while edits are pending: the rest land by id', async ({
    page,
    request,
    tmpPath
  }) => {
    const cells = [IMPORT, DEFINE, ...USES, 'print(df.shape)'];
    await open(page, request, `${tmpPath}/moved.ipynb`, cells);
    await page.notebook.enterCellEditingMode(1);
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await typeLikeAPerson(page, 'sales');
    await expect(page.locator(PENDING_MARKER)).toHaveCount(3, { timeout: 20000 });
    // the last cell moved up twice with its toolbar, above the two other cells that use the name
    // (as the user does it: into the cell, then its toolbar's button)
    await cell(page, 4).locator('.cm-content').click();
    const up = cell(page, 4).locator('.jp-cell-toolbar [data-jp-item-name="move-cell-up"]');
    await up.click();
    await cell(page, 3).locator('.jp-cell-toolbar [data-jp-item-name="move-cell-up"]').click();
    expect(await sources(page)).toEqual([
      IMPORT,
      DEFINE.replace('df', 'sales'),
      'print(df.shape)',
      ...USES
    ]);
    // and `df.head()` deleted with its toolbar's button: its edit goes with it
    await cell(page, 4).locator('.cm-content').click();
    await cell(page, 4).locator('.jp-cell-toolbar [data-jp-item-name="delete-cell"]').click();
    const dialog = page.locator('.jp-Dialog');
    if (await dialog.isVisible()) {
      await dialog.locator('.jp-mod-accept').click();
    }
    expect(await sources(page)).toEqual([
      IMPORT,
      DEFINE.replace('df', 'sales'),
      'print(df.shape)',
      USES[0]
    ]);
    await expect(page.locator(PENDING_MARKER)).toHaveCount(2);
    await expect(cell(page, 2).locator(PENDING_MARKER)).toHaveCount(1);
    await expect(cell(page, 3).locator(PENDING_MARKER)).toHaveCount(1);

    // back in the defining cell, Tab until none is pending: each cell gets its own edit
    await cell(page, 1).locator('.cm-content').click();
    for (let i = 0; i < 6 && (await page.locator(PENDING_MARKER).count()) > 0; i++) {
      await page.waitForTimeout(700); // JupyterLab's undo merges changes closer than 500 ms
      await page.keyboard.press('Tab');
    }
    await expect(page.locator(PENDING_MARKER)).toHaveCount(0);
    await expect(page.locator(REMOVED)).toHaveCount(0);
    expect(await sources(page)).toEqual([
      IMPORT,
      DEFINE.replace('df', 'sales'),
      'print(sales.shape)',
      'total = sales["price"].sum()'
    ]);
  });

  test('a cell edited while the answer travels gets no edit', async ({
    page,
    request,
    tmpPath
  }) => {
    // the moment the request leaves, the last cell changes (as if the user typed there)
    await page.evaluate(() => {
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (data: any) {
        send.call(this, data);
        try {
          const message = JSON.parse(String(data));
          if (message.type === 'edit_prediction' && !(window as any).__edited) {
            (window as any).__edited = true;
            const panel = (window as any).jupyterapp.shell.currentWidget;
            panel.content.widgets[3].model.sharedModel.setSource('df.tail()');
          }
        } catch {
          // not ours
        }
      };
    });
    await rename(page, request, `${tmpPath}/travels.ipynb`);
    await expect(cell(page, 2).locator(PENDING_MARKER)).toHaveCount(1, { timeout: 20000 });
    await page.waitForTimeout(500);
    await expect(cell(page, 3).locator(PENDING_MARKER)).toHaveCount(0);
    await expect(cell(page, 3).locator(REMOVED)).toHaveCount(0);
    await page.waitForTimeout(700);
    await page.keyboard.press('Tab');
    expect((await sources(page)).slice(2)).toEqual(['total = sales["price"].sum()', 'df.tail()']);
  });
});

test.describe('automatic predictions turned down', () => {
  test.use({
    autoGoto: true,
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      // "suggest less": two turned down in a row hold the automatic ones
      [PLUGIN]: { enabled: false, editPredictions: 'auto', restraint: 'less' }
    }
  });

  test('after two dismissed in a row, the next rename asks nothing; the shortcut still does', async ({
    page,
    request,
    tmpPath
  }) => {
    for (const name of ['first', 'second']) {
      await rename(page, request, `${tmpPath}/${name}.ipynb`);
      await expect(page.locator(PENDING_MARKER)).toHaveCount(2, { timeout: 20000 });
      await page.keyboard.press('Escape');
      await expect(page.locator(PENDING_MARKER)).toHaveCount(0);
      await page.notebook.close(true); // one notebook at a time; restraint is the page's
    }
    const before = (await editPrompts(request)).length;
    await rename(page, request, `${tmpPath}/third.ipynb`);
    await page.waitForTimeout(3000); // well past the automatic request's debounce (600 ms)
    expect((await editPrompts(request)).length).toBe(before);
    await expect(page.locator(PENDING_MARKER)).toHaveCount(0);
    // the user's own request is never held
    await page.keyboard.press('Alt+Shift+Backslash');
    await expect(page.locator(PENDING_MARKER)).toHaveCount(2, { timeout: 20000 });
    expect((await editPrompts(request)).length).toBe(before + 1);
  });
});
