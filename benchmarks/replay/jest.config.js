// The replay of bench_restraint.py: the project's jest setup, on this folder's *.bench.ts only.
const path = require('path');
const base = require('../../jest.config.js');

module.exports = {
  ...base,
  rootDir: path.resolve(__dirname, '../..'),
  testRegex: 'benchmarks/replay/.*\\.bench\\.ts$',
  // Node's own fetch reaches the server in upstream mode; nothing here needs a DOM
  testEnvironment: 'node',
  setupFiles: [],
  setupFilesAfterEnv: [],
  transform: {
    ...base.transform,
    '^.+\\.tsx?$': ['ts-jest/legacy', { tsconfig: path.join(__dirname, 'tsconfig.json') }]
  }
};
