/**
 * Back soon after a Jupyter restart (issue 40): the completion socket reconnects within a second
 * or two of the server answering again, not at the next backoff attempt (8 s, then 15 s).
 *
 * A real restart of the shared test server is not possible inside one test, so the restart is
 * played at the page's edge: the completion websocket is closed and refused (Playwright's
 * `routeWebSocket`) and the page's cheap probe of the server (`GET /api`) fails while the
 * "server" is down; then both go through to the real server again.
 */
import { expect, test } from '@jupyterlab/galata';
import type { WebSocketRoute } from '@playwright/test';

import { GHOST, STATUS, typeLikeAPerson } from './helpers';

test.use({ autoGoto: false });

test('reconnects within 2 s of the server answering again after a restart', async ({ page }) => {
  let down = false;
  const open: WebSocketRoute[] = [];
  await page.routeWebSocket(/api\/codecomplete\/inline/, ws => {
    if (down) {
      ws.close({ code: 1011, reason: 'restarting' });
      return;
    }
    ws.connectToServer();
    open.push(ws);
  });
  await page.route(
    url => url.pathname.endsWith('/api'),
    route => (down ? route.abort('connectionrefused') : route.continue())
  );
  await page.goto();
  const status = page.locator(`.jp-StatusBar-Widget ${STATUS}`);
  await expect(status).toHaveAttribute('data-state', 'idle', { timeout: 60000 });

  // the server goes away
  down = true;
  for (const ws of open.splice(0)) {
    await ws.close({ code: 1001, reason: 'going away' });
  }
  await expect(status).toHaveAttribute('data-state', 'offline');
  // ... for 10 s: the backoff's attempts (0.5, 1.5, 3.5, 7.5 s) all fail, the next is at 15.5 s
  await page.waitForTimeout(10000);
  down = false;
  const back = Date.now();
  await expect(status).toHaveAttribute('data-state', 'idle', { timeout: 2500 });
  expect(Date.now() - back).toBeLessThan(2500);

  // and suggestions come again, typed at a person's pace
  await page.notebook.createNew('reconnect.ipynb');
  await expect(page.locator('.jp-Notebook-ExecutionIndicator')).toHaveAttribute(
    'data-status',
    'idle'
  );
  await page.notebook.enterCellEditingMode(0);
  await typeLikeAPerson(page, 'def add(a, b):');
  await expect(page.locator(GHOST)).toContainText('return a + b');
});
