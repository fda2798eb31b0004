/**
 * The status item as a person meets it (issue 23): its menu opens on the first click while a
 * cell is in edit mode; "off for Python" is rendered in full, with the icon struck through,
 * however long the model's name; Alt+\ where completions are off says why; the menus show
 * Alt+\ and the Settings menu has Choose Model…. Asserted on what is rendered (Notebook 7's
 * toolbar menu: notebook7.spec.ts).
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '@jupyterlab/galata';

import { SHOTS, STATUS, typeLikeAPerson } from './helpers';

test.use({ autoGoto: true });

/**
 * Whether an element's text is shown whole: not cut by its own box, nor by the status bar or
 * the window.
 */
async function shownWhole(locator: Locator): Promise<boolean> {
  return locator.evaluate(node => {
    const el = node as HTMLElement;
    if (el.scrollWidth > el.clientWidth + 1) {
      return false;
    }
    const box = el.getBoundingClientRect();
    let parent = el.parentElement;
    while (parent) {
      const style = getComputedStyle(parent);
      if (style.overflow !== 'visible' || style.overflowX !== 'visible') {
        const outer = parent.getBoundingClientRect();
        if (box.left < outer.left - 1 || box.right > outer.right + 1) {
          return false;
        }
      }
      parent = parent.parentElement;
    }
    return box.width > 0 && box.left >= 0 && box.right <= window.innerWidth;
  });
}

async function runCommand(page: Page, id: string): Promise<void> {
  await page.evaluate(command => (window as any).jupyterapp.commands.execute(command), id);
}

test('the status menu opens on the first click from edit mode', async ({ page }) => {
  await page.notebook.createNew('status-click.ipynb');
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
  await page.notebook.enterCellEditingMode(0);
  await typeLikeAPerson(page, 'x = 1');
  await expect(page.locator('.jp-Notebook')).toHaveClass(/jp-mod-editMode/);
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  // one real click (mouse down and up where the item is)
  await status.click();
  const menu = page.locator('.jp-CodeComplete-menu');
  await expect(menu).toBeVisible();
  // the menu shows the key of Request Code Completion
  await expect(
    menu
      .locator('.lm-Menu-item', { hasText: 'Request Code Completion' })
      .locator('.lm-Menu-itemShortcut')
  ).toHaveText(/Alt\+\\/);
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  // back in the cell: typing goes on there
  await page.keyboard.type('2');
  expect(await page.notebook.getCellTextInput(0)).toBe('x = 12');
});

test('"off for Python" is shown in full, the icon struck through, even after a long name', async ({
  page
}) => {
  await page.notebook.createNew('status-off.ipynb');
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
  await page.notebook.enterCellEditingMode(0);
  await typeLikeAPerson(page, 'y = 2');
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  const icon = status.locator('.jp-CodeComplete-statusIcon');
  const note = status.locator('.jp-CodeComplete-statusNote');
  const iconOn = await icon.screenshot();
  await expect(note).toBeHidden();

  await runCommand(page, 'codecomplete:toggle-language');
  await expect(note).toBeVisible();
  await expect(note).toHaveText('· off for Python');
  expect(await shownWhole(note)).toBe(true);
  // the icon is drawn differently (compared as pixels)
  const iconOff = await icon.screenshot();
  expect(iconOff.equals(iconOn)).toBe(false);
  // the hover says what the click does
  await expect(status).toHaveAttribute('title', /Click for the menu/);

  // a model name as long as a real one: the name gives way, the note does not
  await status
    .locator('.jp-CodeComplete-statusLabel')
    .evaluate(node => (node.textContent = 'Qwen/Qwen2.5-Coder-7B-Instruct-GGUF-q4_k_m (demo)'));
  expect(await shownWhole(note)).toBe(true);
  await status.screenshot({ path: `${SHOTS}/status-off-for-python.png` });

  await runCommand(page, 'codecomplete:toggle-language');
  await expect(note).toBeHidden();
});

test('Alt+\\ in a Markdown cell says completions are off there, with the switch', async ({
  page
}) => {
  await page.notebook.createNew('status-markdown.ipynb');
  await page.notebook.setCell(0, 'markdown', '');
  await page.notebook.enterCellEditingMode(0);
  await typeLikeAPerson(page, '# Notes');
  await page.keyboard.press('Alt+\\');
  const toast = page.locator('.Toastify__toast', { hasText: 'off for Markdown' });
  await expect(toast).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/alt-backslash-markdown-off.png` });
  await toast.getByRole('button', { name: 'Enable for Markdown' }).click();
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  await page.notebook.enterCellEditingMode(0);
  await expect(status).not.toHaveAttribute('data-state', 'language-off');
  // back to the default: Markdown off
  await runCommand(page, 'codecomplete:toggle-language');
  await expect(status).toHaveAttribute('data-state', 'language-off');
});

test('the Settings menu has Choose Model… and shows Alt+\\', async ({ page }) => {
  await page.menu.open('Settings');
  await page.locator('.lm-Menu-item', { hasText: 'Code Completion' }).first().hover();
  const submenu = page.locator('.lm-Menu', { hasText: 'Choose Model…' });
  await expect(submenu).toBeVisible();
  await expect(
    submenu
      .locator('.lm-Menu-item', { hasText: 'Request Code Completion' })
      .locator('.lm-Menu-itemShortcut')
  ).toHaveText(/Alt\+\\/);
  await page.keyboard.press('Escape');
});
