import { availableParallelism } from 'node:os';

/**
 * Nest 12 ships ES modules only, so Jest runs in its native ESM mode (`npm test` passes
 * --experimental-vm-modules to Node) with ts-jest's ESM support.
 * @type {import('jest').Config}
 */
const project = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Sources import './x.js'; under ts-jest that file is './x.ts'.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The client package from its sources: no build needed to test it (tsconfig.json "paths").
    '^@petstore/client$': '<rootDir>/packages/client/src/index.ts',
  },
  transform: {
    // Transpile only: `npm run typecheck` type-checks the whole tree once, faster than per file.
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }],
  },
};

/** Tests of the real app on a real PostgreSQL (embedded, or DATABASE_URL's server). */
export const e2eProject = {
  ...project,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

export const testTimeout = 30000;

/**
 * `npm test`: needs nothing but Node. The tests that drive a browser (`test/*.browser-spec.ts`)
 * have their own configuration, jest.browser.config.js (`npm run test:browser`).
 */
export default {
  // The e2e files wait on PostgreSQL and HTTP more than they compute, so they gain from a second
  // worker even where Jest's default (a worker per core less one) would give a 2-core machine,
  // such as CI's, only one.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  projects: [
    {
      ...project,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/packages/client/test/**/*.spec.ts'],
    },
    { ...e2eProject, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
  testTimeout,
};
