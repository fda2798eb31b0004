/**
 * The "Choose Model…" dialog in JupyterLab: pick a detected Ollama model and get
 * ghost text from it; download the test catalogue entry from the fake hub with a visible progress
 * bar, get switched to it and get ghost text from the embedded backend; enter a custom endpoint with
 * an API key that never appears in any response the page receives. Each test switches back to the
 * configured model at the end (the server is shared with the other specs).
 */
import { expect, test } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';

import { GHOST, STATUS, typeLikeAPerson } from './helpers';
import { CHOOSER, closeChooser, openChooser, restore } from './modelhelpers';

test.use({ autoGoto: true });

const KEY = 'sk-ui-test-Kq3Vb8NwZr5Tx2';

async function typeInNewNotebook(page: Page, name: string, text: string): Promise<void> {
  await page.notebook.createNew(name);
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.type(text);
}

test('pick a detected Ollama model, then ghost text comes from it', async ({ page }) => {
  await openChooser(page);
  const row = page.locator(`${CHOOSER} [data-section="detected"] .jp-CodeComplete-modelRow`, {
    hasText: 'qwen2.5-coder:1.5b'
  });
  await expect(row).toContainText('FIM');
  await row.locator('.jp-CodeComplete-test').click();
  await expect(row.locator('.jp-CodeComplete-rowResult')).toContainText('first token');
  await row.locator('.jp-CodeComplete-use').click();
  await expect(page.locator('.jp-CodeComplete-chooserMessage')).toContainText(
    'Now using qwen2.5-coder:1.5b'
  );
  await closeChooser(page);
  // the status item updated at once
  await expect(page.locator(`.jp-StatusBar-Widget ${STATUS}`)).toContainText('qwen2.5-coder:1.5b');
  await typeInNewNotebook(page, 'ollama.ipynb', 'def add(a, b):');
  await expect(page.locator(GHOST)).toContainText('# from ollama');
  await restore(page);
});

test('download the test model with a progress bar, then ghost text from the embedded backend', async ({
  page
}) => {
  await openChooser(page);
  const row = page.locator(`${CHOOSER} [data-section="download"] [data-id="test-demo"]`);
  // no download runs: nothing to cancel
  const cancel = row.locator('.jp-CodeComplete-cancel');
  await expect(cancel).toBeHidden();
  await expect(cancel).toBeDisabled();
  await row.locator('.jp-CodeComplete-download').click();
  const bar = row.locator('progress.jp-CodeComplete-progress');
  await expect(bar).toBeVisible();
  await expect(cancel).toBeEnabled();
  // the bar moves: a value strictly between 0 and 1 is seen while downloading
  await expect
    .poll(async () => Number(await bar.evaluate(b => (b as HTMLProgressElement).value)), {
      timeout: 30000
    })
    .toBeGreaterThan(0);
  await expect(page.locator('.jp-CodeComplete-chooserMessage')).toContainText(
    'Now using test-demo',
    {
      timeout: 60000
    }
  );
  await expect(
    page.locator(`${CHOOSER} [data-section="download"] [data-id="test-demo"]`)
  ).toContainText('(in use)');
  await closeChooser(page);
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  await expect(status).toContainText('test-demo');
  await typeInNewNotebook(page, 'embedded.ipynb', 'def fibonacci(n):');
  await expect(page.locator(GHOST)).toHaveText(/\S/, { timeout: 60000 });
  await restore(page);
});

test('a custom endpoint key never comes back to the page', async ({ page }) => {
  const bodies: string[] = [];
  page.on('response', async response => {
    if (response.url().includes('/api/')) {
      try {
        bodies.push(await response.text());
      } catch {
        // a streamed or aborted body
      }
    }
  });
  await openChooser(page);
  const form = page.locator(`${CHOOSER} .jp-CodeComplete-customForm`);
  await form.locator('select[name="backend"]').selectOption('openai');
  await form.locator('input[name="base_url"]').fill('http://127.0.0.1:8911/v1');
  await form.locator('input[name="model"]').fill('test-coder');
  await form.locator('input[name="api_key"]').fill(KEY);
  await form.locator('.jp-CodeComplete-use').click();
  await expect(page.locator('.jp-CodeComplete-chooserMessage')).toContainText(
    'Now using test-coder'
  );
  // the re-rendered form shows the key masked, and the field is empty
  const key = page.locator(`${CHOOSER} .jp-CodeComplete-customForm input[name="api_key"]`);
  await expect(key).toHaveValue('');
  await expect(key).toHaveAttribute('placeholder', new RegExp(KEY.slice(-4)));
  await closeChooser(page);
  await page.reload();
  await page.waitForSelector(`.jp-StatusBar-Widget ${STATUS}`);
  await openChooser(page);
  await closeChooser(page);
  expect(bodies.length).toBeGreaterThan(2);
  for (const body of bodies) {
    expect(body).not.toContain(KEY);
    expect(body).not.toContain(KEY.slice(0, 16));
  }
  await restore(page);
});

test('Test and Use answer where the user clicked: in view, focused, announced', async ({
  page
}) => {
  await openChooser(page);
  const form = page.locator(`${CHOOSER} .jp-CodeComplete-customForm`);
  await form.locator('select[name="backend"]').selectOption('openai');
  // the custom form is the last section: scrolled into view to type in it, as a user would
  // (a field an earlier Use filled in is selected first, then typed over)
  await form.locator('input[name="base_url"]').click();
  await page.keyboard.press('Control+a');
  await typeLikeAPerson(page, 'http://127.0.0.1:8911/v1');
  await form.locator('input[name="model"]').click();
  await page.keyboard.press('Control+a');
  await typeLikeAPerson(page, 'test-coder');
  await form.locator('.jp-CodeComplete-test').click();
  const answer = form.locator('.jp-CodeComplete-rowResult');
  await expect(answer).toContainText('first token');
  await expect(answer).toHaveAttribute('aria-live', 'polite');
  await expect(answer).toBeFocused();
  await expect(answer).toBeInViewport();
  await form.locator('.jp-CodeComplete-use').click();
  // the list is drawn again after Use: the answer is in the new form, not only at the top
  const again = page.locator(`${CHOOSER} .jp-CodeComplete-customForm .jp-CodeComplete-rowResult`);
  await expect(again).toContainText('Now using test-coder');
  await expect(again).toBeFocused();
  await expect(again).toBeInViewport();
  // the custom endpoint that serves is marked like every other row
  await expect(
    page.locator(`${CHOOSER} .jp-CodeComplete-customForm .jp-CodeComplete-modelName`)
  ).toContainText('test-coder at http://127.0.0.1:8911/v1 (in use)');
  await closeChooser(page);
  // and still after the page is loaded again
  await page.reload();
  await page.waitForSelector(`.jp-StatusBar-Widget ${STATUS}`);
  await openChooser(page);
  await expect(
    page.locator(`${CHOOSER} .jp-CodeComplete-customForm .jp-CodeComplete-modelName`)
  ).toContainText('(in use)');
  await closeChooser(page);
  await restore(page);
});
