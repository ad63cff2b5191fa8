/** Jest runs the TypeScript sources through ts-jest (CommonJS). PGlite needs
 * --experimental-vm-modules, which `npm test` passes through NODE_OPTIONS. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
  testTimeout: 60000,
  // A worker that holds more than this after a test file is replaced: PGlite instances and the
  // sentence encoder add up over ~80 files, and one process running them all ran out of heap (4 GB).
  workerIdleMemoryLimit: '1GB',
  // Builds the widget and the review console once, so the page tests serve what npm start would.
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
};
