import { runApiKeyCommand, USAGE } from '../src/auth/api-key.cli.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** Runs the CLI against the test app's database and captures what it prints. */
async function apikey(
  t: TestApp,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runApiKeyCommand(args, t.config, {
    out: (s) => (out += s),
    err: (s) => (err += s),
  });
  return { code, out, err };
}

describe('npm run apikey (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('create prints a new key once; the service accepts it; only its hash is stored', async () => {
    const { code, out } = await apikey(t, 'create', 'billing robot');
    expect(code).toBe(0);
    const key = /^(psk_[A-Za-z0-9_-]{43})$/m.exec(out)?.[1];
    expect(key).toBeDefined();
    await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);

    const { rows } = await t.db.query<Record<string, unknown>>(
      "SELECT * FROM api_keys WHERE name = 'billing robot'",
    );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(key!.slice(4));
  });

  it('list shows id, name and display prefix, never a whole key', async () => {
    const { out: created } = await apikey(t, 'create', 'listed');
    const key = /psk_\S+/.exec(created)![0];
    const { code, out } = await apikey(t, 'list');
    expect(code).toBe(0);
    expect(out).toMatch(/\tlisted\tpsk_\S{8}…\t/);
    expect(out).not.toContain(key);
  });

  it('revoke stops the key from working', async () => {
    const { out } = await apikey(t, 'create', 'to revoke');
    const [, id, key] = /Created key (\d+)[\s\S]*?(psk_\S+)/.exec(out)!;
    await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);

    expect(await apikey(t, 'revoke', id)).toEqual({
      code: 0,
      out: `Revoked key ${id}.\n`,
      err: '',
    });
    await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(401);
    expect((await apikey(t, 'list')).out).toMatch(
      new RegExp(`^${id}\\tto revoke\\t.*\\trevoked `, 'm'),
    );
  });

  it('revoke of an unknown id fails with exit code 1', async () => {
    expect(await apikey(t, 'revoke', '999999')).toEqual({
      code: 1,
      out: '',
      err: 'No API key with id 999999.\n',
    });
  });

  it.each([[[]], [['create']], [['create', '   ']], [['revoke', 'abc']], [['delete', '1']]])(
    'prints the usage and exits 2 for %j',
    async (args) => {
      expect(await apikey(t, ...args)).toEqual({ code: 2, out: '', err: `${USAGE}\n` });
    },
  );
});
