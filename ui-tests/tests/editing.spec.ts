/**
 * JupyterLab: a suggestion on a fresh line with no shortcut pressed; Escape dismisses a
 * suggestion and keeps the editor in edit mode; the status item says when the language is off;
 * "Request Code Completion" only goes to the editor being edited.
 */
import { expect, test } from '@jupyterlab/galata';

import { counters, GHOST, STATUS } from './helpers';

test.use({ autoGoto: true });

test.describe('fresh-line suggestions', () => {
  test('notebook cell: Enter after a definition shows ghost text by itself', async ({ page }) => {
    await page.notebook.createNew('fresh.ipynb');
    await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
      'data-status',
      'idle'
    );
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('def subtract(a, b):');
    await page.keyboard.press('Enter');
    // only indentation precedes the cursor: JupyterLab does not ask by itself, we do
    await expect(page.locator(GHOST)).toContainText('return a - b');
    await page.keyboard.press('Tab');
    expect(await page.notebook.getCellTextInput(0)).toContain(
      'def subtract(a, b):\n    return a - b'
    );
  });

  test('file editor: Enter after a definition shows ghost text by itself', async ({
    page,
    tmpPath
  }) => {
    await page.contents.uploadContent('', 'text', `${tmpPath}/fresh.py`);
    await page.filebrowser.open('fresh.py');
    const editor = page.locator('.jp-FileEditor .cm-content');
    await editor.click();
    await page.keyboard.type('def subtract(a, b):');
    await page.keyboard.press('Enter');
    await expect(page.locator(GHOST)).toContainText('return a - b');
    await page.keyboard.press('Tab');
    await expect(editor).toContainText('return a - b');
  });

  test('deleting back to the indentation asks again', async ({ page }) => {
    await page.notebook.createNew('fresh-delete.ipynb');
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('def subtract(a, b):');
    await page.keyboard.press('Enter');
    await expect(page.locator(GHOST)).toContainText('return a - b');
    await page.keyboard.press('Escape');
    await expect(page.locator(GHOST)).toHaveCount(0);
    await page.keyboard.type('x');
    await page.keyboard.press('Backspace');
    await expect(page.locator(GHOST)).toContainText('return a - b');
  });
});

test.describe('Escape', () => {
  test('notebook: dismisses the suggestion and stays in edit mode', async ({ page }) => {
    await page.notebook.createNew('escape.ipynb');
    await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
      'data-status',
      'idle'
    );
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.keyboard.press('Escape');
    await expect(page.locator(GHOST)).toHaveCount(0);
    await expect(page.locator('.jp-Notebook')).toHaveClass(/jp-mod-editMode/);
    // still typing into the cell
    await page.keyboard.type(' # done');
    expect(await page.notebook.getCellTextInput(0)).toBe('def add(a, b): # done');
    // with no suggestion shown, Escape does what JupyterLab does: command mode
    await page.keyboard.press('Escape');
    await expect(page.locator(GHOST)).toHaveCount(0);
    await page.keyboard.press('Escape');
    await expect(page.locator('.jp-Notebook')).toHaveClass(/jp-mod-commandMode/);
  });

  test('file editor: dismisses the suggestion and keeps the focus', async ({ page, tmpPath }) => {
    await page.contents.uploadContent('', 'text', `${tmpPath}/escape.py`);
    await page.filebrowser.open('escape.py');
    const editor = page.locator('.jp-FileEditor .cm-content');
    await editor.click();
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.keyboard.press('Escape');
    await expect(page.locator(GHOST)).toHaveCount(0);
    await page.keyboard.type(' # done');
    await expect(editor).toHaveText('def add(a, b): # done');
  });

  test('console: dismisses the suggestion and keeps the focus', async ({ page }) => {
    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute('console:create', {
        kernelPreference: { name: 'python3' }
      })
    );
    const prompt = page.locator('.jp-CodeConsole-promptCell .cm-content');
    await expect(page.locator('.jp-CodeConsole')).toBeVisible();
    await expect(page.locator('#jp-main-statusbar')).toContainText('Idle');
    await prompt.click();
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.keyboard.press('Escape');
    await expect(page.locator(GHOST)).toHaveCount(0);
    await page.keyboard.type(' # done');
    await expect(prompt).toHaveText('def add(a, b): # done');
  });
});

test('the status item says when the current language is off, and clears it', async ({ page }) => {
  await page.notebook.createNew('language-off.ipynb');
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.type('x = 1');
  await expect.poll(async () => (await counters(page)).requests).toBeGreaterThan(0);
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('codecomplete:toggle-language')
  );
  await expect(status).toHaveAttribute('data-state', 'language-off');
  await expect(status).toContainText('off for Python');
  await expect(status).toHaveAttribute('title', /off for Python/);
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('codecomplete:toggle-language')
  );
  await expect(status).toHaveAttribute('data-state', 'idle');
  await expect(status).not.toContainText('off for');
});

test('Request Code Completion goes only to the cell being edited', async ({ page }) => {
  await page.notebook.createNew('request.ipynb');
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  const menu = page.locator('.jp-CodeComplete-menu');
  await page.notebook.setCell(0, 'code', 'def multiply(a, b):');
  // command mode: nobody is editing the cell
  await page.notebook.selectCells(0);
  await expect(page.locator('.jp-Notebook')).toHaveClass(/jp-mod-commandMode/);
  const before = await counters(page);
  await status.click();
  const item = menu.locator('.lm-Menu-item', { hasText: 'Request Code Completion' });
  await expect(item).toHaveClass(/lm-mod-disabled/);
  await page.keyboard.press('Escape');
  await page.evaluate(() => (window as any).jupyterapp.commands.execute('codecomplete:request'));
  expect((await counters(page)).requests).toBe(before.requests);
  await expect(page.locator(GHOST)).toHaveCount(0);

  // editing: the menu takes the focus, the request gives it back to the cell
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('End');
  await status.click();
  await expect(item).not.toHaveClass(/lm-mod-disabled/);
  await item.click();
  await expect(page.locator(GHOST)).toContainText('return a * b');
  await expect(page.locator('.jp-Notebook')).toHaveClass(/jp-mod-editMode/);
  await page.keyboard.press('Tab');
  expect(await page.notebook.getCellTextInput(0)).toContain('return a * b');
});
