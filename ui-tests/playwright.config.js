/**
 * Playwright configuration for Galata in Debian Chromium (no browser download).
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

module.exports = {
  ...baseConfig,
  // the tests only: ui-tests/screenshots/ is the docs' screenshot run (screenshots.config.js)
  testDir: './tests',
  timeout: 90000,
  workers: 1,
  // one retry under CI: a browser test that fails twice is a failure; one that passes on retry is
  // reported as flaky in the output
  retries: process.env.CI ? 1 : 0,
  use: {
    ...baseConfig.use,
    baseURL: process.env.TARGET_URL || 'http://localhost:8888',
    video: 'off',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic'
      ]
    }
  },
  webServer: {
    command: 'jlpm start',
    url: 'http://localhost:8888/lab',
    timeout: 120 * 1000,
    reuseExistingServer: !process.env.CI
  }
};
