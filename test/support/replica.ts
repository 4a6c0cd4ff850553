import pg from 'pg';
import { databaseUrl, testRun } from './test-database.js';

/**
 * The hot standby of the run's server (scripts/test-replicas.sh runs the suite with one), or
 * undefined. With it, every app under test on a database of the run's server reads from the
 * standby's copy of that database (DATABASE_REPLICA_URLS) through the run's Redis. A run with a
 * standby that does not say which Redis fails here rather than quietly reading from the primary.
 */
export function replicaOfRun(): { serverUrl: string; redisUrl: string } | undefined {
  const serverUrl = process.env.PETSTORE_TEST_REPLICA_URL;
  if (!serverUrl) return undefined;
  const redisUrl = process.env.PETSTORE_TEST_REPLICA_REDIS_URL;
  if (!redisUrl) {
    throw new Error(
      'PETSTORE_TEST_REPLICA_URL is set without PETSTORE_TEST_REPLICA_REDIS_URL: run the suite ' +
        'with a replica through npm run test:replicas',
    );
  }
  return { serverUrl, redisUrl };
}

/** The standby's copy of `directUrl`'s database, when that is on the run's server. */
export function replicaDatabaseUrl(directUrl: string): string | undefined {
  const replica = replicaOfRun();
  if (!replica || new URL(directUrl).host !== new URL(testRun.adminUrl()).host) return undefined;
  return databaseUrl(replica.serverUrl, decodeURIComponent(new URL(directUrl).pathname.slice(1)));
}

let standby: pg.Pool | undefined;
let primary: pg.Pool | undefined;

/**
 * Waits until the standby has replayed everything written on the run's server so far: a cloned
 * database exists there, and rows a test wrote with SQL (not through the API, so not recorded
 * as its key's last write) are there before the app reads them. No-op without a standby.
 */
export async function replicaCaughtUp(): Promise<void> {
  const replica = replicaOfRun();
  if (!replica) return;
  primary ??= new pg.Pool({ connectionString: testRun.adminUrl(), max: 1, allowExitOnIdle: true });
  standby ??= new pg.Pool({
    connectionString: databaseUrl(replica.serverUrl, 'postgres'),
    max: 1,
    allowExitOnIdle: true,
  });
  // Flushed, not inserted: another session's open transaction (a test holding a lock) has WAL
  // past the flush position that no standby receives until something commits.
  const { rows } = await primary.query<{ lsn: string }>(
    'SELECT pg_current_wal_flush_lsn()::text AS lsn',
  );
  const deadline = Date.now() + 10000;
  for (;;) {
    const { rows: replayed } = await standby.query<{ done: boolean }>(
      'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
      [rows[0].lsn],
    );
    if (replayed[0].done) return;
    if (Date.now() > deadline)
      throw new Error(`the standby has not replayed ${rows[0].lsn} in 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
