/**
 * An edit prediction and an inline completion in flight together (issue 35): one numbering on the
 * socket used to let the newer request cancel the older of the other kind. Rename `items` to
 * `prices` on a cell's first line, typed as a person types, ask for the next edit (the model
 * takes about two seconds) and, while it is on its way, for a completion at the line's end: the
 * ghost text comes, and then the prediction is shown too; neither request was cancelled.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, galata, test } from '@jupyterlab/galata';

import { INSERTED, notebookWith, PLUGIN, REMOVED, UPSTREAM } from './edithelpers';
import { GHOST, SHOTS, typeLikeAPerson } from './helpers';

const MEAN = [
  'def mean(items):',
  '    s = 0',
  '    for p in items:',
  '        s += p',
  '    return s / len(items)'
].join('\n');

interface IRecord {
  body: { messages?: { content: string }[]; prompt?: string };
  client_closed: boolean;
}

async function records(request: APIRequestContext): Promise<IRecord[]> {
  const response = await request.get(`${UPSTREAM}/_stats`);
  return ((await response.json()) as { requests: IRecord[] }).requests;
}

async function renameFirstLine(page: Page, request: APIRequestContext, path: string) {
  const created = await request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: notebookWith(MEAN) }
  });
  expect(created.ok()).toBe(true);
  await page.notebook.openByPath(path);
  await page.notebook.activate(path.split('/').pop()!);
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 'def mean('.length; i++) {
    await page.keyboard.press('ArrowRight');
  }
  for (let i = 0; i < 'items'.length; i++) {
    await page.keyboard.press('Shift+ArrowRight');
  }
  await typeLikeAPerson(page, 'prices');
  await page.keyboard.press('End');
}

test.use({
  autoGoto: true,
  mockSettings: {
    ...galata.DEFAULT_SETTINGS,
    [PLUGIN]: { enabled: true, trigger: 'manual', editPredictions: 'manual' }
  }
});

test('a prediction on its way and the completion asked meanwhile are both answered and shown', async ({
  page,
  request,
  tmpPath
}) => {
  await renameFirstLine(page, request, `${tmpPath}/inflight.ipynb`);
  const before = (await records(request)).length;
  await page.keyboard.press('Alt+Shift+Backslash'); // Predict Next Edit: the slow model
  await page.waitForTimeout(300);
  await page.keyboard.press('Alt+\\'); // Request Code Completion, while the prediction travels
  await expect(page.locator(GHOST).first()).toContainText('# the mean price', { timeout: 10000 });
  // the prediction comes afterwards: the rename carried on in the two lines that use the name
  await expect(page.locator(REMOVED)).toHaveCount(2, { timeout: 15000 });
  await expect(page.locator(INSERTED)).toHaveText(['prices', 'prices']);
  await page.screenshot({ path: `${SHOTS}/edit-and-completion-in-flight.png` });
  const sent = (await records(request)).slice(before);
  const edit = sent.filter(r =>
    (r.body.messages ?? []).some(m => m.content.includes('def mean(prices):<|cursor|>'))
  );
  const completion = sent.filter(r => String(r.body.prompt ?? '').endsWith('def mean(prices):'));
  expect(edit).toHaveLength(1);
  expect(completion.length).toBeGreaterThan(0);
  expect(edit[0].client_closed).toBe(false); // the completion did not cancel it
});
