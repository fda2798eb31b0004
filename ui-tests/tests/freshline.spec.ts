/**
 * The fresh line at a person's pace (issue 23): type a header one key at a time (120–250 ms
 * apart), let its own suggestion appear, then press Enter — straight away, after Tab accepted
 * the suggestion, or after Escape dismissed it. Each time a request whose prompt ends on the
 * fresh indented line must reach the model (the scripted upstream), and ghost text must appear
 * there. In a notebook cell and a file editor in JupyterLab, and in a Notebook 7 cell.
 */
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';

import { EMPTY_PYTHON_NOTEBOOK as NOTEBOOK, GHOST, SHOTS, typeLikeAPerson } from './helpers';

const UPSTREAM = `http://127.0.0.1:${process.env.CODECOMPLETE_UI_UPSTREAM_PORT ?? '8911'}`;

/**
 * The prompts the upstream received so far.
 */
async function prompts(request: APIRequestContext): Promise<string[]> {
  const response = await request.get(`${UPSTREAM}/_stats`);
  const data = (await response.json()) as { requests: { body: { prompt?: string } }[] };
  return data.requests.map(r => String(r.body.prompt ?? ''));
}

type Surface = 'notebook' | 'file editor' | 'Notebook 7';
type Ending = 'Enter' | 'Tab, Enter' | 'Escape, Enter';

/**
 * Open an empty Python editor on the surface; return its content node.
 */
async function openEditor(page: Page, request: APIRequestContext, surface: Surface, name: string) {
  if (surface === 'file editor') {
    const created = await request.put(`/api/contents/${name}.py`, {
      data: { type: 'file', format: 'text', content: '' }
    });
    expect(created.ok()).toBe(true);
    await page.goto(`/lab/tree/${name}.py?reset`);
    const editor = page.locator('.jp-FileEditor .cm-content');
    await expect(editor).toBeVisible({ timeout: 60000 });
    await editor.click();
    return { editor, path: `${name}.py` };
  }
  const created = await request.put(`/api/contents/${name}.ipynb`, {
    data: { type: 'notebook', format: 'json', content: NOTEBOOK }
  });
  expect(created.ok()).toBe(true);
  await page.goto(
    surface === 'notebook' ? `/lab/tree/${name}.ipynb?reset` : `/notebooks/${name}.ipynb`
  );
  const editor = page.locator('.jp-Cell .cm-content').first();
  await expect(editor).toBeVisible({ timeout: 60000 });
  // the kernel tells the cell's language
  await expect(page.locator('.jp-Notebook-ExecutionIndicator').first()).toHaveAttribute(
    'data-status',
    'idle',
    { timeout: 60000 }
  );
  await editor.click();
  return { editor, path: `${name}.ipynb` };
}

async function cellText(editor: Locator): Promise<string> {
  return editor.evaluate(node => {
    const lines = Array.from(node.querySelectorAll('.cm-line')).map(line => {
      // the ghost text is inside the line: leave it out
      const clone = line.cloneNode(true) as HTMLElement;
      clone.querySelectorAll('.jp-GhostText').forEach(ghost => ghost.remove());
      return clone.textContent ?? '';
    });
    return lines.join('\n');
  });
}

const SURFACES: Surface[] = ['notebook', 'file editor', 'Notebook 7'];
const ENDINGS: Ending[] = ['Enter', 'Tab, Enter', 'Escape, Enter'];

for (const surface of SURFACES) {
  test.describe(`fresh line at a person's pace: ${surface}`, () => {
    for (const ending of ENDINGS) {
      test(`${ending} after the header's own suggestion`, async ({ page, request }) => {
        const name = `fresh-${surface.replace(/\W/g, '')}-${ending.replace(/\W/g, '')}-${Date.now()}`;
        const { editor, path } = await openEditor(page, request, surface, name);
        const ghost = page.locator(GHOST);

        await typeLikeAPerson(page, 'def fib(n):');
        // the suggestion on the header's own line appears (and is not empty)
        // (while it streams in, JupyterLab's ghost text has empty spacer nodes beside the text)
        await expect(ghost.filter({ hasText: 'Fibonacci number' }).first()).toBeVisible({
          timeout: 15000
        });
        await page.waitForTimeout(300);
        const before = (await prompts(request)).length;

        // no ghost text with something in it (JupyterLab may leave an empty node after Tab)
        const shown = ghost.filter({ hasText: /\S/ });
        if (ending === 'Tab, Enter') {
          await page.keyboard.press('Tab');
          await expect(shown).toHaveCount(0);
          await page.waitForTimeout(200);
        } else if (ending === 'Escape, Enter') {
          await page.keyboard.press('Escape');
          await expect(shown).toHaveCount(0);
          await page.waitForTimeout(200);
        }
        await page.keyboard.press('Enter');

        // a request whose prompt ends on the fresh line reaches the model (the prompt builder
        // leaves out the indentation of a blank last line: the cleaning re-indents)
        await expect
          .poll(
            async () =>
              (await prompts(request)).slice(before).some(p => /def fib\(n\):.*\n *$/.test(p)),
            { timeout: 10000 }
          )
          .toBe(true);
        // and its suggestion shows there
        await expect(ghost.filter({ hasText: 'if n < 2:' }).first()).toBeVisible({
          timeout: 10000
        });
        // all of it, before Tab takes it
        await expect(ghost.filter({ hasText: 'return n' }).first()).toBeVisible({ timeout: 10000 });
        await page.screenshot({
          path: `${SHOTS}/fresh-line-${surface.replace(/\W/g, '')}-${ending.replace(/\W/g, '')}.png`
        });
        // Tab takes it (the suggestion after an accept may show next: the text leaves it out)
        await page.keyboard.press('Tab');
        const header =
          ending === 'Tab, Enter' ? 'def fib(n):  # the n-th Fibonacci number' : 'def fib(n):';
        await expect
          .poll(() => cellText(editor))
          .toBe(`${header}\n    if n < 2:\n        return n`);
        await request.delete(`/api/contents/${path}`);
      });
    }
  });
}
