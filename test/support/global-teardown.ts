/** Drops the run's databases and stops the test server (see global-setup.ts). */
export default async function globalTeardown(): Promise<void> {
  const teardown = (globalThis as Record<string, unknown>).__petstoreTestTeardown;
  if (typeof teardown === 'function') {
    await (teardown as () => Promise<void>)();
  }
}
