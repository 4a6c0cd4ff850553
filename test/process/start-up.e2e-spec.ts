import { randomBytes } from 'node:crypto';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, testRun } from '../support/test-database.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;

/** The messages of the JSON lines a process wrote, with their level and context. */
function logLines(lines: string[]): Array<{ level: number; msg: string; context?: string }> {
  return lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; context?: string });
}

describe('start-up output (real processes)', () => {
  let databaseUrl: string;
  let first: ServiceProcess | undefined;
  let second: ServiceProcess | undefined;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    first = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it("logs where it listens once it does, with Nest's module and route lines at debug only", () => {
    const lines = logLines(first!.stdout);
    const messages = lines.map((line) => line.msg);
    expect(messages).toContain(
      `listening on http://localhost:${first!.port}/v1 — Swagger UI at http://localhost:${first!.port}/docs`,
    );
    expect(messages.filter((msg) => /^Mapped \{|dependencies initialized$/.test(msg))).toEqual([]);
    expect(messages).not.toContain('Nest application successfully started');
    // Every line says something: no line that is only a context name.
    expect(lines.filter((line) => line.msg === line.context)).toEqual([]);
  });

  it('lists the route mapping at LOG_LEVEL=debug', async () => {
    const debug = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'debug',
    });
    try {
      const lines = logLines(debug.stdout);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 20,
          msg: 'Mapped {/store/orders, GET} (version: 1) route',
        }),
      );
    } finally {
      await debug.stop();
    }
  });

  it('says in one line that the port is taken, and exits 1 without claiming to have started', async () => {
    second = await startService(
      {
        DATABASE_URL: databaseUrl,
        BOOTSTRAP_API_KEY: KEY,
        LOG_LEVEL: 'info',
        PORT: String(first!.port),
      },
      { waitUntilLive: false },
    );
    expect(await second.exited).toEqual({ code: 1, signal: null });
    expect(second.stderr).toEqual([
      `start-up failed: port ${first!.port} is already in use by another program; stop it, or choose another port with PORT (PORT=3001 npm start)`,
    ]);
    const messages = logLines(second.stdout).map((line) => line.msg);
    expect(messages.filter((msg) => /started|listening on|EADDRINUSE/.test(msg))).toEqual([]);
  });

  it("(the tests' startService) counts a service live only when its own process listens on the port", async () => {
    // Another service answers /health/live on the port; the child cannot bind it and exits.
    await expect(
      startService({
        DATABASE_URL: databaseUrl,
        BOOTSTRAP_API_KEY: KEY,
        PORT: String(first!.port),
      }),
    ).rejects.toThrow(`port ${first!.port} is already in use`);
  });

  it('runs where Node refuses code generation from strings, and answers the same JSON', async () => {
    // A hardening some deployments set: the resources' renderers then run without generated code.
    const hardened = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      NODE_OPTIONS: '--disallow-code-generation-from-strings',
    });
    try {
      const headers = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
      const created = await fetch(`${hardened.url}/v1/categories`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name: `hardened-${randomBytes(4).toString('hex')}`,
          description: 'Made under the flag',
        }),
      });
      expect(created.status).toBe(201);
      const category = (await created.json()) as { id: number; name: string; description: string };
      expect(category).toEqual({
        id: expect.any(Number),
        name: category.name,
        description: 'Made under the flag',
      });
      const list = async (service: ServiceProcess) => {
        const answer = await fetch(`${service.url}/v1/categories`, { headers });
        expect(answer.status).toBe(200);
        return answer.text();
      };
      const [withGeneratedCode, without] = [await list(first!), await list(hardened)];
      expect(without).toBe(withGeneratedCode);
      expect(without).toContain(`"description":"Made under the flag"`);
    } finally {
      await hardened.stop();
    }
  });
});
