/**
 * Playwright configuration for producing the documentation screenshots that are not taken by
 * the test suite: `npx playwright test --config playwright.screenshots.config.js`.
 * They are written into ../docs/screenshots (the tests never write there).
 */
const testConfig = require('./playwright.config.js');

module.exports = {
  ...testConfig,
  testDir: './screenshots',
  testMatch: '*.shot.ts'
};
