import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startService } from '../support/service-process.js';
import { createTestDatabase, testRun } from '../support/test-database.js';

// The deprecation Link of v1's pet read points at /changelog by default, so an app shipped
// without CHANGELOG.md must not start and answer 500 there: it stops at start-up, saying why.
describe('start-up without CHANGELOG.md (real process)', () => {
  let app: string;

  beforeAll(() => {
    // The build as the image lays it out (dist/ and package.json), minus CHANGELOG.md.
    app = mkdtempSync(join(tmpdir(), 'petstore-no-changelog-'));
    cpSync(resolve('dist'), join(app, 'dist'), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module' }));
    symlinkSync(resolve('node_modules'), join(app, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  it('exits with code 1 and names the file it could not read', async () => {
    const databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    const service = await startService(
      { DATABASE_URL: databaseUrl },
      { waitUntilLive: false, main: join(app, 'dist', 'main.js') },
    );
    try {
      const { code } = await service.exited;
      expect(code).toBe(1);
      const output = [...service.stderr, ...service.stdout].join('\n');
      expect(output).toContain(`The changelog ${join(app, 'CHANGELOG.md')} cannot be read`);
    } finally {
      await service.stop();
    }
  });
});
