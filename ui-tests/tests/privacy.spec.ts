/**
 * What must not leave the machine, as a person meets it (issue 34): typed one key at a time in a
 * file the defaults exclude (`*credentials*`), no request reaches the model and the status item
 * says why; in a notebook whose first cell holds an API key, the suggestion in the next cell
 * comes, and the model (the scripted upstream, which records every request) saw a placeholder,
 * never the key. In JupyterLab and Notebook 7.
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from '@playwright/test';

import { GHOST, SHOTS, STATUS, typeLikeAPerson } from './helpers';

const UPSTREAM = `http://127.0.0.1:${process.env.CODECOMPLETE_UI_UPSTREAM_PORT ?? '8911'}`;
// a fake key in OpenAI's format (none is real)
const KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tT3BlbkFJUv1wXy4zAb7cDe0fGh3iJk6l';

async function bodies(request: APIRequestContext): Promise<string[]> {
  const response = await request.get(`${UPSTREAM}/_stats`);
  const data = (await response.json()) as { requests: { body: unknown }[] };
  return data.requests.map(r => JSON.stringify(r.body));
}

function notebookWithKey(): Record<string, unknown> {
  const cell = (source: string) => ({
    cell_type: 'code',
    execution_count: null,
    metadata: {},
    outputs: [],
    source
  });
  return {
    cells: [cell(`from openai import OpenAI\nclient = OpenAI(api_key="${KEY}")`), cell('')],
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' }
    },
    nbformat: 4,
    nbformat_minor: 5
  };
}

test('a file the defaults exclude gets no request, and the status item says why', async ({
  page,
  request
}) => {
  const name = 'db_credentials.py';
  const created = await request.put(`/api/contents/${name}`, {
    data: { type: 'file', format: 'text', content: '' }
  });
  expect(created.ok()).toBe(true);
  const before = (await bodies(request)).length;
  await page.goto(`/lab/tree/${name}?reset`);
  const editor = page.locator('.jp-FileEditor .cm-content');
  await expect(editor).toBeVisible({ timeout: 60000 });
  await editor.click();
  await typeLikeAPerson(page, 'PASSWORD = "hunter2"\ndef add(a, b):');
  await page.waitForTimeout(1500);
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  await expect(status).toHaveAttribute('data-state', 'excluded');
  await expect(status).toContainText('excluded');
  await expect(status).toHaveAttribute('title', /excluded by default \(\*credentials\*/);
  await expect(page.locator(GHOST)).toHaveCount(0);
  const sent = (await bodies(request)).slice(before);
  expect(sent.filter(b => b.includes('hunter2') || b.includes('def add'))).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/privacy-excluded-status.png` });
});

for (const surface of ['JupyterLab', 'Notebook 7'] as const) {
  test(`${surface}: a key in another cell reaches the model as a placeholder`, async ({
    page,
    request
  }) => {
    const name = `privacy-${surface === 'JupyterLab' ? 'lab' : 'nb7'}.ipynb`;
    const created = await request.put(`/api/contents/${name}`, {
      data: { type: 'notebook', format: 'json', content: notebookWithKey() }
    });
    expect(created.ok()).toBe(true);
    await page.goto(surface === 'JupyterLab' ? `/lab/tree/${name}?reset` : `/notebooks/${name}`);
    const second = page.locator('.jp-Cell .cm-content').nth(1);
    await expect(second).toBeVisible({ timeout: 60000 });
    await expect(page.locator('.jp-Notebook-ExecutionIndicator').first()).toHaveAttribute(
      'data-status',
      'idle',
      { timeout: 60000 }
    );
    await second.click();
    const before = (await bodies(request)).length;
    await typeLikeAPerson(page, 'def add(a, b):');
    await expect(page.locator(GHOST).first()).toContainText('return a + b', { timeout: 15000 });
    await page.keyboard.press('Tab');
    const sent = (await bodies(request)).slice(before);
    const asked = sent.filter(b => b.includes('def add(a, b):'));
    expect(asked.length).toBeGreaterThan(0);
    for (const body of sent) {
      expect(body).not.toContain(KEY);
      expect(body).not.toContain(KEY.slice(0, 16));
    }
    expect(asked.some(b => b.includes('api_key=\\"<redacted: openai-token>\\"'))).toBe(true);
    // the user's own text keeps the key and takes the suggestion
    const text = await page.locator('.jp-Cell .cm-content').nth(0).innerText();
    expect(text).toContain(KEY);
    await expect(second).toContainText('return a + b');
  });
}
