/** Jest runs the TypeScript sources through ts-jest (CommonJS). PGlite needs
 * --experimental-vm-modules, which `npm test` passes through NODE_OPTIONS. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
  testTimeout: 60000,
};
