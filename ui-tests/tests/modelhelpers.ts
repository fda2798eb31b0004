/**
 * Helpers of the model chooser UI tests (JupyterLab and Notebook 7).
 */
import { expect } from '@playwright/test';
import type { Page } from '@playwright/test';

import { STATUS } from './helpers';

export const CHOOSER = '.jp-CodeComplete-chooser';

export async function openChooser(page: Page): Promise<void> {
  await page.locator(`.jp-StatusBar-Widget ${STATUS}`).click();
  await page.locator('.jp-CodeComplete-menu').getByText('Choose Model…').click();
  await expect(page.locator(CHOOSER)).toBeVisible();
  await expect(page.locator(`${CHOOSER} .jp-CodeComplete-section`).first()).toBeVisible();
}

export async function closeChooser(page: Page): Promise<void> {
  await page.locator('.jp-Dialog').getByRole('button', { name: 'Close' }).click();
  await expect(page.locator(CHOOSER)).toHaveCount(0);
}

export async function restore(page: Page): Promise<void> {
  const xsrf = (await page.context().cookies()).find(c => c.name === '_xsrf')?.value ?? '';
  const r = await page.request.post('/api/codecomplete/models/use', {
    data: { id: 'configured:completion' },
    headers: { 'X-XSRFToken': xsrf }
  });
  expect(r.ok()).toBe(true);
}
