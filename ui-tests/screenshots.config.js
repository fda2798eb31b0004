/**
 * Playwright configuration for the documentation's screenshots (`scripts/screenshots.sh`):
 * a JupyterLab with nothing configured, as a new user first sees it. Not part of the tests.
 */
const base = require('./playwright.config');

const port = process.env.CODECOMPLETE_SHOTS_PORT || '8890';

module.exports = {
  ...base,
  testDir: './screenshots',
  testMatch: '*.spec.ts',
  outputDir: './test-results/screenshots-run',
  retries: 0,
  use: { ...base.use, baseURL: `http://localhost:${port}` },
  webServer: {
    command: `jupyter lab --config screenshots_server_config.py --port ${port}`,
    url: `http://localhost:${port}/lab`,
    timeout: 120 * 1000,
    reuseExistingServer: false
  }
};
