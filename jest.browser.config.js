import { e2eProject, testTimeout } from './jest.config.js';

/**
 * `npm run test:browser`: the tests that drive Debian's Chromium (`/usr/bin/chromium`) through
 * the real app, kept out of `npm test` so that one needs nothing installed but Node.
 * @type {import('jest').Config}
 */
export default {
  ...e2eProject,
  displayName: 'browser',
  testMatch: ['<rootDir>/test/**/*.browser-spec.ts'],
  testTimeout,
};
