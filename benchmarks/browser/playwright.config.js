/**
 * Playwright configuration of the browser benchmark (`benchmarks/bench_browser.py` runs it):
 * Galata in Debian Chromium, like the UI tests, but on ports of its own (8921, upstream 8922)
 * and with its output in a temporary folder.
 */
const os = require('os');
const path = require('path');

const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

const port = process.env.CODECOMPLETE_BENCH_PORT || '8921';
const out = process.env.CODECOMPLETE_BENCH_OUT || path.join(os.tmpdir(), 'codecomplete-bench');

module.exports = {
  ...baseConfig,
  testDir: '.',
  testMatch: 'latency.spec.ts',
  outputDir: path.join(out, 'test-results'),
  reporter: [['list']],
  timeout: 900000,
  workers: 1,
  retries: 0,
  use: {
    ...baseConfig.use,
    baseURL: `http://localhost:${port}`,
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
    command: `jupyter lab --config ${path.join(__dirname, 'server_config.py')}`,
    url: `http://localhost:${port}/lab`,
    timeout: 120 * 1000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'ignore'
  }
};
