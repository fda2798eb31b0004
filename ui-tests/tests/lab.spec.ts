/**
 * JupyterLab: ghost text from the real server (scripted OpenAI-compatible upstream) in a
 * notebook, a file editor and a console; Tab accepts; switches; errors and recovery.
 */
import { expect, galata, test } from '@jupyterlab/galata';

import { counters, ghostTexts, GHOST, recordGhostTexts, SHOTS, STATUS } from './helpers';

test.use({ autoGoto: true });

test.describe('notebook', () => {
  test('typing shows streamed ghost text and Tab accepts it', async ({ page }) => {
    await page.notebook.createNew('add.ipynb');
    const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
    await expect(status).toBeVisible();
    await expect(status).toHaveAttribute('data-state', 'idle');
    await expect(status).toContainText('test-coder');

    await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
      'data-status',
      'idle'
    );
    await recordGhostTexts(page);
    await page.notebook.enterCellEditingMode(0);
    // a multi-line suggestion: it streams in line by line (a line is shown once it is complete
    // enough for the cleaning to decide on it)
    await page.keyboard.type('def slow_sum(values):');
    const ghost = page.locator(GHOST);
    await expect(ghost).toContainText('return total');
    await page.screenshot({ path: `${SHOTS}/lab-notebook-ghost-text.png` });
    // The suggestion arrived in pieces, not all at once.
    await expect(status).toHaveAttribute('data-state', 'idle');
    const texts = await ghostTexts(page);
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.some(t => t.includes('total = 0') && !t.includes('return total'))).toBe(true);

    await page.keyboard.press('Tab');
    // Tab took the suggestion; the one after it may show at once (issue 29): Escape dismisses it
    await expect.poll(() => page.notebook.getCellTextInput(0)).toContain('    return total');
    await page.keyboard.press('Escape');
    await expect(ghost).toHaveCount(0);
    const source = await page.notebook.getCellTextInput(0);
    expect(source).toContain('def slow_sum(values):\n    total = 0');
    expect(source).toContain('    return total');
  });

  test('the status menu switches the current language off and on', async ({ page }) => {
    await page.notebook.createNew('switch.ipynb');
    await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
      'data-status',
      'idle'
    );
    const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('x = 1');
    await expect.poll(async () => (await counters(page)).requests).toBeGreaterThan(0);

    await status.click();
    const menu = page.locator('.jp-CodeComplete-menu');
    await expect(menu).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/lab-status-menu.png` });
    await menu.getByText('Disable Code Completions for Python').click();

    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    const before = await counters(page);
    await page.keyboard.type('def add(a, b):');
    // Wait until the provider has decided (skipped), then check nothing was asked or shown.
    await expect.poll(async () => (await counters(page)).skipped).toBeGreaterThan(before.skipped);
    expect((await counters(page)).requests).toBe(before.requests);
    await expect(page.locator(GHOST)).toHaveCount(0);

    // The switch lives in the settings and also appears in the command palette.
    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute('codecomplete:toggle-language')
    );
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(':');
    await expect(page.locator(GHOST)).toContainText('return a + b');
  });

  test('the global switch disables completions', async ({ page }) => {
    await page.notebook.createNew('global.ipynb');
    const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
    await status.click();
    await page
      .locator('.jp-CodeComplete-menu')
      .getByText('Disable Code Completions')
      .first()
      .click();
    await expect(status).toHaveAttribute('data-state', 'disabled');
    await page.screenshot({
      path: `${SHOTS}/lab-status-disabled.png`,
      clip: await statusClip(page)
    });
    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute('codecomplete:toggle-enabled')
    );
    await expect(status).toHaveAttribute('data-state', 'idle');
  });

  test('the status turns to error when the backend fails and recovers by itself', async ({
    page
  }) => {
    await page.notebook.createNew('errors.ipynb');
    const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('backend_goes_down');
    await expect(status).toHaveAttribute('data-state', 'error');
    await expect(status).toHaveAttribute('title', /error/i);
    // One notification for the error, however many keystrokes failed.
    await page.keyboard.type(' = 1');
    await expect(status).toHaveAttribute('data-state', 'error');
    await expect(page.locator('.jp-GhostText-errorIndicator').first()).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/lab-backend-error.png` });
    await expect(page.locator('.Toastify__toast')).toHaveCount(1);

    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await expect(status).toHaveAttribute('data-state', 'idle');
  });
});

test.describe('manual trigger', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      'jupyter-codecomplete:plugin': { trigger: 'manual' }
    }
  });

  test('only an explicit request shows a suggestion', async ({ page }) => {
    await page.notebook.createNew('manual.ipynb');
    await page.notebook.enterCellEditingMode(0);
    const before = await counters(page);
    await page.keyboard.type('def multiply(a, b):');
    // The inline completer debounces typing: wait until the (skipped) fetch of the last keystroke
    // has happened, i.e. the skip counter has moved and then stays put, or that late automatic
    // fetch would replace the explicit request's suggestion.
    let last = -1;
    await expect
      .poll(
        async () => {
          const skipped = (await counters(page)).skipped;
          const settled = skipped > before.skipped && skipped === last;
          last = skipped;
          return settled;
        },
        { intervals: [500] }
      )
      .toBe(true);
    await expect(page.locator(GHOST)).toHaveCount(0);
    await page.keyboard.press('Alt+\\');
    await expect(page.locator(GHOST)).toContainText('return a * b');
    await page.keyboard.press('Tab');
    expect(await page.notebook.getCellTextInput(0)).toContain('return a * b');
  });
});

test('file editor: ghost text and Tab', async ({ page, tmpPath }) => {
  await page.contents.uploadContent('', 'text', `${tmpPath}/calc.py`);
  await page.filebrowser.open('calc.py');
  const editor = page.locator('.jp-FileEditor .cm-content');
  await editor.click();
  await page.keyboard.type('def add(a, b):');
  await expect(page.locator(GHOST)).toContainText('return a + b');
  await page.screenshot({ path: `${SHOTS}/lab-file-editor.png` });
  await page.keyboard.press('Tab');
  await expect(editor).toContainText('return a + b');
});

test('the embedded demo model completes in a file editor', async ({ page, tmpPath }) => {
  // R files are routed to the in-process demo model (see jupyter_server_test_config.py); with
  // greedy decoding it answers "values <- " with "1".
  await page.contents.uploadContent('', 'text', `${tmpPath}/demo.R`);
  await page.filebrowser.open('demo.R');
  const editor = page.locator('.jp-FileEditor .cm-content');
  await editor.click();
  await page.keyboard.type('values <- ');
  await expect(page.locator(GHOST)).toHaveText('1');
  await page.keyboard.press('Tab');
  await expect(editor).toHaveText('values <- 1');
});

test('console: ghost text and Tab', async ({ page }) => {
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
  await page.screenshot({ path: `${SHOTS}/lab-console.png` });
  await page.keyboard.press('Tab');
  await expect(prompt).toContainText('return a + b');
});

test.describe('dark theme', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      '@jupyterlab/apputils-extension:themes': { theme: 'JupyterLab Dark' }
    }
  });
  test('ghost text in the dark theme', async ({ page }) => {
    await page.notebook.createNew('dark.ipynb');
    await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
      'data-status',
      'idle'
    );
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('def add(a, b):');
    await expect(page.locator(GHOST)).toContainText('return a + b');
    await page.screenshot({ path: `${SHOTS}/lab-dark-theme.png` });
  });
});

async function statusClip(page: any) {
  const box = await page.locator('.jp-StatusBar-Widget').boundingBox();
  return box ?? undefined;
}
