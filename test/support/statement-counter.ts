import pg from 'pg';

/**
 * What the app in this process sends on its own, whatever the requests do: the webhook
 * dispatcher's claims and attempt records, the purges of deliveries and Idempotency-Key
 * records, the pending-deliveries gauge, and the API keys' last-use writes. A statement count
 * that includes them depends on when a poll or a flush happens to fall.
 */
const BACKGROUND = [
  /SKIP LOCKED/,
  /UPDATE webhook_attempts/,
  /DELETE FROM webhook_deliveries/,
  /FROM webhook_deliveries WHERE status = 'pending'/,
  /UPDATE api_keys AS k SET last_used_at/,
  // With replicas (npm run test:replicas): the read router's polls of the primary and the
  // replica, and the test support waiting for the standby to replay.
  /SELECT pg_current_wal_lsn\(\)/,
  /pg_last_wal_replay_lsn\(\)/,
  /pg_current_wal_flush_lsn\(\)/,
  // With replicas, the read router's query of the primary's position after writes, one for
  // the writes of the last few milliseconds (src/database/read-router.ts).
  /^SELECT pg_current_wal_insert_lsn\(\)::text AS position$/,
];

/**
 * Counts the statements this process sends to PostgreSQL while `run` runs (the app under test
 * runs in this process), each a round trip, leaving out the app's background work, what rides
 * on another statement's round trip, and any statement matching `except`.
 */
export async function countStatements(
  run: () => Promise<unknown>,
  except: RegExp[] = [],
): Promise<number> {
  const ignored = [...BACKGROUND, ...except];
  const original = pg.Client.prototype.query;
  let count = 0;
  const counting = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text =
      typeof first === 'string'
        ? first
        : typeof (first as { text?: unknown } | null)?.text === 'string'
          ? (first as { text: string }).text
          : '';
    if (!ignored.some((pattern) => pattern.test(text))) count++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  };
  pg.Client.prototype.query = counting as typeof original;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = original;
  }
  return count;
}
