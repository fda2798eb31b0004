/**
 * Notebook 7 (same server, same labextension): ghost text, Tab, and the toolbar item that
 * replaces the status bar item.
 */
import { expect, test } from '@playwright/test';

import type { APIRequestContext, Page } from '@playwright/test';

import { EMPTY_PYTHON_NOTEBOOK as NOTEBOOK, GHOST, SHOTS, typeLikeAPerson } from './helpers';

/**
 * A new empty Python notebook opened in Notebook 7, its toolbar item ready (idle).
 */
async function openNotebook7(page: Page, request: APIRequestContext, prefix: string) {
  const name = `${prefix}-${Date.now()}.ipynb`;
  const created = await request.put(`/api/contents/${name}`, {
    data: { type: 'notebook', format: 'json', content: NOTEBOOK }
  });
  expect(created.ok()).toBe(true);
  await page.goto(`/notebooks/${name}`);
  const item = page.locator('.jp-NotebookPanel-toolbar .jp-CodeComplete-status');
  await expect(item).toHaveAttribute('data-state', 'idle', { timeout: 60000 });
  const editor = page.locator('.jp-Cell .cm-content').first();
  return { name, item, editor };
}

test('Notebook 7: ghost text, Tab, and the toolbar item', async ({ page, request }) => {
  const name = `nb7-${Date.now()}.ipynb`;
  const created = await request.put(`/api/contents/${name}`, {
    data: { type: 'notebook', format: 'json', content: NOTEBOOK }
  });
  expect(created.ok()).toBe(true);

  await page.goto(`/notebooks/${name}`);
  const item = page.locator('.jp-NotebookPanel-toolbar .jp-CodeComplete-status');
  await expect(item).toBeVisible({ timeout: 60000 });
  await expect(item).toHaveAttribute('data-state', 'idle');

  const editor = page.locator('.jp-Cell .cm-content').first();
  await editor.click();
  await page.keyboard.type('def add(a, b):');
  await expect(page.locator(GHOST)).toContainText('return a + b');
  await page.screenshot({ path: `${SHOTS}/notebook7-ghost-text.png` });
  await page.keyboard.press('Tab');
  await expect(editor).toContainText('return a + b');

  await item.click();
  const menu = page.locator('.jp-CodeComplete-menu');
  await expect(menu).toBeVisible();
  await expect(menu).toContainText('Disable Code Completions for Python');
  await page.screenshot({ path: `${SHOTS}/notebook7-toolbar-menu.png` });
  await menu.getByText('Disable Code Completions', { exact: true }).click();
  await expect(item).toHaveAttribute('data-state', 'disabled');
  // Switch back on so the setting does not leak into other tests.
  await item.click();
  await menu.getByText('Enable Code Completions', { exact: true }).click();
  await expect(item).toHaveAttribute('data-state', 'idle');

  await request.delete(`/api/contents/${name}`);
});

test('Notebook 7: fresh-line suggestion, Escape keeps edit mode, language-off status', async ({
  page,
  request
}) => {
  const { name, item, editor } = await openNotebook7(page, request, 'nb7-fresh');

  await editor.click();
  await page.keyboard.type('def subtract(a, b):');
  await page.keyboard.press('Enter');
  await expect(page.locator(GHOST)).toContainText('return a - b');
  await page.keyboard.press('Escape');
  await expect(page.locator(GHOST)).toHaveCount(0);
  await expect(page.locator('.jp-Notebook')).toHaveClass(/jp-mod-editMode/);
  await page.keyboard.type('pass');
  await expect(editor).toContainText('pass');

  const menu = page.locator('.jp-CodeComplete-menu');
  await item.click();
  await menu.getByText('Disable Code Completions for Python').click();
  await expect(item).toHaveAttribute('data-state', 'language-off');
  await expect(item).toHaveAttribute('title', /off for Python/);
  await item.click();
  await menu.getByText('Enable Code Completions for Python').click();
  await expect(item).toHaveAttribute('data-state', 'idle');

  await request.delete(`/api/contents/${name}`);
});

test('Notebook 7: after the toolbar menu, typing goes into the cell again', async ({
  page,
  request
}) => {
  const { name, item, editor } = await openNotebook7(page, request, 'nb7-focus');
  await editor.click();
  await typeLikeAPerson(page, 'a = 1');
  const menu = page.locator('.jp-CodeComplete-menu');
  await item.click();
  await menu.getByText('Disable Code Completions for Python').click();
  await expect(item).toHaveAttribute('data-state', 'language-off');
  await expect(item.locator('.jp-CodeComplete-statusNote')).toHaveText('· off for Python');
  await typeLikeAPerson(page, '2');
  // (the text may be followed by ghost text: a suggestion for the new text)
  await expect(editor).toHaveText(/^a = 12(?!\d)/);
  await item.click();
  await menu.getByText('Enable Code Completions for Python').click();
  await expect(item).toHaveAttribute('data-state', 'idle');
  await typeLikeAPerson(page, '3');
  await expect(editor).toHaveText(/^a = 123(?!\d)/);
  await request.delete(`/api/contents/${name}`);
});

test('Notebook 7: the statistics panel shows the per-model charts', async ({ page, request }) => {
  const { name, item, editor } = await openNotebook7(page, request, 'nb7-stats');
  await editor.click();
  await page.keyboard.type('def add(a, b):');
  await expect(page.locator(GHOST)).toContainText('return a + b');
  await page.keyboard.press('Tab');
  await expect(editor).toContainText('return a + b');
  // the event reaches the server (batched for half a second)
  await expect
    .poll(async () => (await (await request.get('/api/codecomplete/usage')).json()).total.shown, {
      timeout: 20000
    })
    .toBeGreaterThan(0);

  await item.click();
  await page.locator('.jp-CodeComplete-menu').getByText('Code Suggestions — Statistics').click();
  const panel = page.locator('.jp-CodeComplete-statistics');
  await expect(panel).toBeVisible();
  for (const id of ['kept-per-hour', 'acceptance-over-time', 'acceptance-by-model']) {
    await expect(
      panel.locator(`[data-chart="${id}"] canvas, [data-chart="${id}"] svg`).first()
    ).toBeVisible({ timeout: 20000 });
  }
  await expect(panel.locator('table[data-table="model"]')).toBeVisible();

  await request.delete(`/api/contents/${name}`);
});

test('Notebook 7: the statistics panel fits the right sidebar (nothing cut at the right)', async ({
  page,
  request
}) => {
  const { name, item, editor } = await openNotebook7(page, request, 'nb7-stats-fit');
  await editor.click();
  await typeLikeAPerson(page, 'def add(a, b):');
  await expect(page.locator(GHOST)).toContainText('return a + b');
  await page.keyboard.press('Tab');
  await expect
    .poll(async () => (await (await request.get('/api/codecomplete/usage')).json()).total.shown, {
      timeout: 20000
    })
    .toBeGreaterThan(0);
  await item.click();
  await page.locator('.jp-CodeComplete-menu').getByText('Code Suggestions — Statistics').click();
  const panel = page.locator('#jp-right-stack .jp-CodeComplete-statistics');
  await expect(panel).toBeVisible();
  for (const id of ['kept-per-hour', 'acceptance-over-time', 'latency']) {
    await expect(
      panel.locator(`[data-chart="${id}"] canvas, [data-chart="${id}"] svg`).first()
    ).toBeVisible({ timeout: 20000 });
  }
  await expect(panel.locator('table[data-table="model"]')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/notebook7-statistics-sidebar.png` });
  const overflow = await panel.evaluate(node => {
    const box = node.getBoundingClientRect();
    const out: string[] = [];
    if (node.scrollWidth > node.clientWidth + 1) {
      out.push(`panel scrolls sideways: ${node.scrollWidth} > ${node.clientWidth}`);
    }
    for (const el of Array.from(node.querySelectorAll<HTMLElement>('*'))) {
      // a wide table scrolls inside its own box; vega's menu of actions opens on demand
      if (el.closest('.jp-CodeComplete-statistics-tableScroll, .vega-actions')) {
        continue;
      }
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > box.right + 1) {
        out.push(`${el.tagName}.${el.className} ends at ${r.right} > ${box.right}`);
      }
    }
    return { width: box.width, out: out.slice(0, 10) };
  });
  // the sidebar is narrow, and nothing in it is cut at the right
  expect(overflow.width).toBeLessThan(500);
  expect(overflow.out).toEqual([]);
  // each chart takes its box's width (not a fixed 360 px)
  for (const id of ['kept-per-hour', 'latency']) {
    const chart = panel.locator(`[data-chart="${id}"]`);
    const drawn = chart.locator('canvas, svg').first();
    const [c, d] = [await chart.boundingBox(), await drawn.boundingBox()];
    expect(d!.x + d!.width).toBeLessThanOrEqual(c!.x + c!.width + 1);
  }
  await request.delete(`/api/contents/${name}`);
});
