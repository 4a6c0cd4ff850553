import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, startService, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, testRun } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;

/**
 * docs/webhooks.md: the secret never appears in a log. The built service in its own process,
 * logging at debug (everything it ever logs), through a subscription's whole life: created and
 * replayed (Idempotency-Key), read, listed, deliveries that fail (a receiver answering 500, a
 * refused connection) and are listed, then deleted.
 */
describe('webhook secrets and failed attempts in the process logs (real process)', () => {
  let databaseUrl: string;
  let db: pg.Pool;
  let receiver: WebhookReceiver;
  let service: ServiceProcess;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    receiver = await new WebhookReceiver().start();
    service = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'debug',
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_CLAIM_TTL_MS: '3000',
      // Two attempts: the first, and one retry 0.2 s later; then the delivery has failed.
      WEBHOOK_RETRY_SCHEDULE: '0.2',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await db?.end();
    await receiver?.close();
  });

  const api = (method: string, path: string, body?: object, headers: object = {}) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${KEY}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('shows the secret in no log line, and logs each failed attempt once, without the body', async () => {
    receiver.answer = () => 500;
    const refusedUrl = `http://127.0.0.1:${await freePort()}/hooks`;
    const secrets: string[] = [];
    const ids: number[] = [];
    for (const url of [receiver.url, refusedUrl]) {
      const body = { url, events: ['category.created'], description: 'logged?' };
      const headers = { 'Idempotency-Key': `logs-${randomBytes(8).toString('hex')}` };
      const created = await api('POST', '/v2/webhooks', body, headers);
      expect(created.status).toBe(201);
      const text = await created.text();
      const replay = await api('POST', '/v2/webhooks', body, headers);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(text);
      const { id, secret } = JSON.parse(text) as { id: number; secret: string };
      ids.push(id);
      secrets.push(secret);
      expect((await api('GET', `/v2/webhooks/${id}`)).status).toBe(200);
    }
    expect((await api('GET', '/v2/webhooks')).status).toBe(200);

    const name = `logged-${randomBytes(6).toString('hex')}`;
    expect((await api('POST', '/v2/categories', { name })).status).toBe(201);
    await eventually(async () => {
      const { rows } = await db.query<{ status: string }>('SELECT status FROM webhook_deliveries');
      return rows.length === 2 && rows.every((row) => row.status === 'failed');
    }, 20_000);
    for (const id of ids) {
      expect((await api('GET', `/v2/webhooks/${id}/deliveries`)).status).toBe(200);
    }
    const { rows: deliveries } = await db.query<{ id: string; payload: string }>(
      'SELECT id, payload FROM webhook_deliveries ORDER BY id',
    );
    const { rows: failed } = await db.query<{ delivery_id: string; attempt: number }>(
      `SELECT delivery_id, attempt FROM webhook_attempts WHERE outcome = 'failed'
       ORDER BY delivery_id, attempt`,
    );
    for (const id of ids) {
      expect((await api('DELETE', `/v2/webhooks/${id}`)).status).toBe(204);
    }
    // The last lines reach the pipe a moment after the answers.
    await eventually(
      () =>
        [...service.stdout, ...service.stderr].filter((line) => line.includes('/v2/webhooks'))
          .length >= 8,
      5000,
    );

    const lines = [...service.stdout, ...service.stderr];
    const output = lines.join('\n');
    // It did log at debug: the test would prove nothing on a silent process.
    expect(lines.filter((line) => line.includes('/v2/webhooks')).length).toBeGreaterThanOrEqual(8);
    for (const secret of secrets) {
      const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64');
      expect(bytes).toHaveLength(32);
      for (const form of [
        secret,
        bytes.toString('base64'),
        bytes.toString('base64url'),
        bytes.toString('hex'),
        // The bytes as a pg bytea literal, and as Node prints a Buffer.
        `\\x${bytes.toString('hex')}`,
        [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' '),
      ]) {
        expect({ form, logged: output.includes(form) }).toEqual({ form, logged: false });
      }
    }

    // One line per failed attempt: two deliveries, two attempts each.
    expect(failed).toHaveLength(4);
    const failures = lines.filter((line) => line.includes('webhook attempt failed'));
    expect(
      failures.map((line) => {
        const match = /delivery (\d+) .* attempt (\d+):/.exec(line);
        return { delivery_id: match?.[1], attempt: Number(match?.[2]) };
      }),
    ).toEqual(expect.arrayContaining(failed));
    expect(failures).toHaveLength(failed.length);
    // Neither the body nor anything from it; nor the URL.
    for (const line of failures) {
      expect(line).not.toContain(name);
      expect(line).not.toContain('"data"');
      expect(line).not.toContain(receiver.url);
      expect(line).not.toContain(refusedUrl);
    }
    for (const { payload } of deliveries) expect(output).not.toContain(payload);
  });

  it('logs each automatic disabling at warn, with the subscription id and the reason', async () => {
    receiver.reset();
    receiver.answer = () => 410;
    const created = await api('POST', '/v2/webhooks', {
      url: receiver.url,
      events: ['category.created'],
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const name = `gone-${randomBytes(6).toString('hex')}`;
    expect((await api('POST', '/v2/categories', { name })).status).toBe(201);
    await eventually(async () => {
      const subscription = (await (await api('GET', `/v2/webhooks/${id}`)).json()) as {
        enabled: boolean;
      };
      return !subscription.enabled;
    }, 20_000);
    expect(await (await api('GET', `/v2/webhooks/${id}`)).json()).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
    });
    // The line reaches the pipe a moment after the disabling commits.
    await new Promise((wait) => setTimeout(wait, 300));

    const disablings = [...service.stdout, ...service.stderr].flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string };
        return entry.msg?.includes(`webhook subscription ${id} disabled`) ? [entry] : [];
      } catch {
        return [];
      }
    });
    expect(disablings).toHaveLength(1);
    expect(disablings[0].level).toBe(40);
    expect(disablings[0].msg).toContain('gone');
    expect(disablings[0].msg).not.toContain(receiver.url);
  });
});
