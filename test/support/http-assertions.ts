import type pg from 'pg';
import type { Response } from 'supertest';

/**
 * What an error message must never carry (docs/api.md, Errors): a stack frame, SQL or
 * a database error text, a file path. Secrets are checked by the tests that sent them.
 */
const LEAKS: Array<[string, RegExp]> = [
  ['a stack frame', /\n\s+at |\.[cm]?[jt]s:\d+:\d+/],
  [
    'SQL',
    /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|relation "|violates|constraint "|for type \w+/,
  ],
  ['a file path', /(\/[\w.@-]+){2,}|[A-Za-z]:\\|\.(ts|js|mjs|cjs)\b|node_modules/],
];

/**
 * The Error body of docs/api.md: JSON, exactly `{code, message, status}`, `status`
 * equal to the HTTP status, and a message that leaks nothing.
 */
export function expectErrorResponse(res: Response, status: number, code: string): void {
  // One comparison first, so a failure shows the whole answer at a glance.
  expect({
    status: res.status,
    contentType: res.headers['content-type'],
    code: res.body?.code,
  }).toEqual({ status, contentType: expect.stringMatching(/^application\/json(;|$)/), code });
  expect(res.body).toEqual({ code, message: expect.any(String), status });
  const message = res.body.message as string;
  expect(message.trim()).not.toBe('');
  for (const [what, pattern] of LEAKS) {
    expect({ message, leaks: pattern.test(message) ? what : 'nothing' }).toEqual({
      message,
      leaks: 'nothing',
    });
  }
}

/** An Idempotency-Key replay: the same status, body bytes and Location as `first`, plus Idempotent-Replayed. */
export function expectReplayOf(replay: Response, first: Response): void {
  expect({
    status: replay.status,
    text: replay.text,
    location: replay.headers.location,
    replayed: replay.headers['idempotent-replayed'],
    contentType: replay.headers['content-type'],
  }).toEqual({
    status: first.status,
    text: first.text,
    location: first.headers.location,
    replayed: 'true',
    contentType: first.headers['content-type'],
  });
}

/** Every row the API can write, so a test can show that a refused request wrote nothing. */
export async function dataSnapshot(db: pg.Pool): Promise<Record<string, unknown[]>> {
  const queries = {
    orders: 'SELECT id, pet_id, quantity, status, ship_date FROM orders ORDER BY id',
    categories: 'SELECT id, name, description FROM categories ORDER BY id',
    pets: 'SELECT id, name, category_id, status FROM pets ORDER BY id',
    // last_used_at is left out: it may be touched by an earlier, successful request.
    api_keys: 'SELECT id, name, prefix, key_hash, revoked_at FROM api_keys ORDER BY id',
    webhook_subscriptions:
      'SELECT id, api_key_id, url, events, description, secret, created_at FROM webhook_subscriptions ORDER BY id',
    // The events: one delivery per subscription. Status and attempts are left out: the
    // dispatcher moves them on, whatever the request under test did.
    webhook_deliveries:
      'SELECT id, subscription_id, event_id, event_type, payload FROM webhook_deliveries ORDER BY id',
  };
  const snapshot: Record<string, unknown[]> = {};
  for (const [table, sql] of Object.entries(queries)) {
    snapshot[table] = (await db.query(sql)).rows;
  }
  return snapshot;
}

/** Runs `act` and fails unless the database holds exactly the same rows afterwards. */
export async function expectNoWrites(db: pg.Pool, act: () => Promise<void>): Promise<void> {
  const before = await dataSnapshot(db);
  await act();
  expect(await dataSnapshot(db)).toEqual(before);
}

/**
 * Polls `probe` until `done` accepts its value or `timeoutMs` passes, then returns the last
 * value: for rules with a deadline ("a revoked key stops working within 30 seconds").
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
