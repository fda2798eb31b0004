/**
 * Issue 27 in Notebook 7 (same server, same labextension, a real ipykernel): the fix after a
 * KeyError, and a rename followed in the cells that use the name (markers, Tab, Tab). The
 * settings are set through the settings API for each test and put back after it.
 */
import { expect, Page, test } from '@playwright/test';

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

const SETTINGS = `/lab/api/settings/${PLUGIN}`;

function cell(page: Page, index: number) {
  return page.locator('.jp-Notebook .jp-Cell').nth(index);
}

/**
 * The text of each cell's editor (read from the page: Notebook 7 has no galata helpers).
 */
async function sources(page: Page): Promise<string[]> {
  return page
    .locator('.jp-Notebook .jp-Cell .cm-content')
    .evaluateAll(nodes =>
      nodes.map(n => [...n.querySelectorAll('.cm-line')].map(l => l.textContent).join('\n'))
    );
}

/**
 * Run `body` with the extension's settings set to `settings`, in a notebook of `cells` opened
 * in Notebook 7 (its kernel starting: a run waits for it).
 */
async function withNotebook(
  page: Page,
  request: import('@playwright/test').APIRequestContext,
  settings: Record<string, unknown>,
  cells: string[],
  body: () => Promise<void>
): Promise<void> {
  const saved = await request.get(SETTINGS);
  const raw = ((await saved.json()) as { raw?: string }).raw ?? '{}';
  const put = await request.put(SETTINGS, { data: { raw: JSON.stringify(settings) } });
  expect(put.ok()).toBe(true);
  const name = `nb7-across-${Date.now()}.ipynb`;
  const created = await request.put(`/api/contents/${name}`, {
    data: { type: 'notebook', format: 'json', content: notebookOf(cells) }
  });
  expect(created.ok()).toBe(true);
  try {
    await page.goto(`/notebooks/${name}`);
    await expect(cell(page, 0).locator('.cm-content')).toBeVisible({ timeout: 60000 });
    await body();
  } finally {
    await request.put(SETTINGS, { data: { raw } });
    await request.delete(`/api/contents/${name}`);
    await request.get('/api/sessions').then(async r => {
      for (const s of (await r.json()) as { id: string; path: string }[]) {
        if (s.path.endsWith(name)) {
          await request.delete(`/api/sessions/${s.id}`);
        }
      }
    });
  }
}

test('Notebook 7: a KeyError → the fix is shown on returning to the cell; Tab applies it', async ({
  page,
  request
}) => {
  await withNotebook(
    page,
    request,
    { enabled: false, editPredictions: 'manual' },
    [`${IMPORT}\n${DEFINE}`, ''],
    async () => {
      const before = (await editPrompts(request)).length;
      await cell(page, 1).locator('.cm-content').click();
      await typeLikeAPerson(page, 'df["prcie"].sum()');
      await cell(page, 0).locator('.cm-content').click();
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.press('Shift+Enter');
      await expect(cell(page, 1).locator('.jp-OutputArea-output')).toContainText('KeyError', {
        timeout: 60000
      });
      await expect(cell(page, 1).locator(FIX_MARKER)).toBeVisible({ timeout: 30000 });
      const prompt = (await editPrompts(request)).slice(before).pop()!;
      expect(prompt).toContain("KeyError: 'prcie'");
      expect(prompt).toMatch(/The kernel completes df\[" with:\n# price, qty\n/);
      await cell(page, 1).locator('.cm-content').click();
      await expect(cell(page, 1).locator(REMOVED)).toHaveText(['prcie']);
      await expect(cell(page, 1).locator(INSERTED)).toHaveText(['price']);
      await page.screenshot({ path: 'test-results/screenshots/notebook7-fix-shown.png' });
      await page.keyboard.press('Tab');
      await expect.poll(async () => (await sources(page))[1]).toBe('df["price"].sum()');
    }
  );
});

test('Notebook 7: a rename in the defining cell → markers on the two cells; Tab, Tab applies both', async ({
  page,
  request
}) => {
  const uses = ['total = df["price"].sum()', 'df.head()'];
  await withNotebook(
    page,
    request,
    { enabled: false, editPredictions: 'auto' },
    [IMPORT, DEFINE, ...uses],
    async () => {
      await cell(page, 1).locator('.cm-content').click();
      await page.keyboard.press('Control+Home');
      await page.keyboard.press('Shift+ArrowRight');
      await page.keyboard.press('Shift+ArrowRight');
      await typeLikeAPerson(page, 'sales');
      await expect(page.locator(PENDING_MARKER)).toHaveCount(2, { timeout: 20000 });
      await page.screenshot({ path: 'test-results/screenshots/notebook7-pending-edits.png' });
      await page.waitForTimeout(700);
      await page.keyboard.press('Tab');
      await expect(page.locator(PENDING_MARKER)).toHaveCount(1);
      await page.waitForTimeout(700);
      await page.keyboard.press('Tab');
      await expect(page.locator(PENDING_MARKER)).toHaveCount(0);
      expect((await sources(page)).slice(2)).toEqual([
        'total = sales["price"].sum()',
        'sales.head()'
      ]);
    }
  );
});
