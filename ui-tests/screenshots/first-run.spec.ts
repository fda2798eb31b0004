/**
 * The documentation's screenshots, taken from a JupyterLab with nothing configured (the demo
 * model serves, unless a local model server answers on its default port). Run by
 * `scripts/screenshots.sh`; never part of the test suite.
 */
import { expect, galata, test } from '@jupyterlab/galata';

const SHOTS = '../docs/screenshots';
const STATUS = '.jp-StatusBar-Widget .jp-CodeComplete-status';
const GHOST = '.jp-GhostText';

test.use({ autoGoto: true });

test('a first suggestion on a fresh line, the status item and its menu', async ({ page }) => {
  await page.notebook.createNew('first-steps.ipynb');
  await page.sidebar.close('left');
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute('data-status', 'idle');
  const status = page.locator(STATUS);
  await expect(status).toHaveAttribute('data-state', 'idle');
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.type('def fibonacci(n):');
  await page.keyboard.press('Enter');
  await expect(page.locator(GHOST)).toHaveText(/\w/, { timeout: 30000 });
  await expect(status).toHaveAttribute('data-state', 'idle');
  await page.screenshot({ path: `${SHOTS}/lab-notebook-ghost-text.png` });
  await page.keyboard.press('Escape');
  await status.click();
  await expect(page.locator('.jp-CodeComplete-menu')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/lab-status-menu.png` });
  await page.keyboard.press('Escape');
});

test('a model server that is not running', async ({ page, tmpPath }) => {
  // Julia files are routed to a server on a closed port (screenshots_server_config.py).
  await page.contents.uploadContent('', 'text', `${tmpPath}/stats.jl`);
  await page.filebrowser.open('stats.jl');
  await page.sidebar.close('left');
  await page.locator('.jp-FileEditor .cm-content').click();
  await page.keyboard.type('function mean(xs)');
  await expect(page.locator(STATUS)).toHaveAttribute('data-state', 'error', { timeout: 30000 });
  await expect(page.locator('.Toastify__toast').first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/lab-backend-error.png` });
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
    await page.sidebar.close('left');
    await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute('data-status', 'idle');
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.type('import os\n\nfor name in os.listdir("."):');
    await page.keyboard.press('Enter');
    await expect(page.locator(GHOST)).toHaveText(/\w/, { timeout: 30000 });
    await expect(page.locator(STATUS)).toHaveAttribute('data-state', 'idle');
    await page.screenshot({ path: `${SHOTS}/lab-dark-theme.png` });
  });
});
