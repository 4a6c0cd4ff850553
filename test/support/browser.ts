import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, needed by `npm run test:browser` only (`npm test` never starts a browser);
 * .ci/run installs it with apt when it is missing.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Headless Chromium for tests on a closed network: without the background-networking switches
 * Chromium keeps trying to reach Google's services, and those connections are refused here.
 * Playwright gives each launch a fresh temporary profile (--user-data-dir) and removes it on close.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches Chromium, or fails (never skips) with what to do when it is not installed.
 * `extraArgs` are further Chromium switches (for example --host-resolver-rules).
 */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: npm run test:browser needs it. ` +
        'Install it with `sudo apt-get install chromium` (.ci/run does this when it is missing).',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    timeout: 20_000,
  });
}
