import pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { clientWithResponseDeadline } from './response-deadline.js';
import { parseWalPosition, type WalPosition } from './wal-position.js';

/** A replica whose last answer to the poll is older than this takes no reads. */
const FRESH_FOR_MS = 500;

/** The primary's WAL position as sampled at `at` (ms), oldest first. */
export interface PrimarySample {
  at: number;
  position: WalPosition;
}

/**
 * How far behind the primary a replica that has replayed `replayed` is, in ms: 0 when it has
 * everything the primary had at the last sample; else the age of the first sample at which the
 * primary had more (so within one sampling interval of the truth). With no such sample kept, at
 * least the age of the oldest one.
 */
export function replicaLagMs(
  replayed: WalPosition,
  samples: readonly PrimarySample[],
  now: number,
): number {
  const latest = samples.at(-1);
  if (!latest) return Infinity;
  if (replayed >= latest.position) return 0;
  const ahead = samples.find((sample) => sample.position > replayed) ?? latest;
  return now - ahead.at;
}

/**
 * One hot standby: its pool for reads, and what the last poll found (replay position, lag). The
 * poll runs on a connection of its own, so a busy pool cannot delay it.
 */
export class Replica {
  /** host:port, for logs and metric labels (never the password). */
  readonly name: string;
  readonly pool: pg.Pool;
  replayed: WalPosition | undefined;
  lagMs = Infinity;
  private seenAt = 0;
  private poller: pg.Client | undefined;
  private polling = false;
  /** Closed at shutdown: a poll that was under way then must not open a new connection. */
  private closed = false;

  constructor(
    private readonly url: string,
    db: AppConfig['db'],
  ) {
    const parsed = new URL(url);
    this.name = `${parsed.hostname}:${parsed.port || '5432'}`;
    this.pool = new pg.Pool({
      connectionString: url,
      application_name: 'petstore-api',
      max: db.poolSize,
      connectionTimeoutMillis: db.connectTimeoutMs,
      Client: clientWithResponseDeadline(db.connectTimeoutMs + db.statementTimeoutMs),
    });
    // An idle connection that breaks (the replica stopped) must not crash the process.
    this.pool.on('error', () => undefined);
  }

  /**
   * Reads its replay position; a failure marks it down until a poll succeeds. A poll still
   * under way (a replica that does not answer) is not doubled.
   */
  async poll(samples: readonly PrimarySample[]): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      this.poller ??= await this.connectPoller();
      if (this.closed) return this.markDown();
      const { rows } = await this.poller.query<{ replayed: string | null }>(
        'SELECT pg_last_wal_replay_lsn()::text AS replayed',
      );
      const replayed = rows[0]?.replayed;
      // Not in recovery (promoted, or not a standby at all): not a replica of this primary. It
      // answers, so its connection is kept for the next poll rather than opened ten times a
      // second.
      if (!replayed) return this.markUnusable();
      this.replayed = parseWalPosition(replayed);
      this.lagMs = replicaLagMs(this.replayed, samples, Date.now());
      this.seenAt = Date.now();
    } catch {
      this.markDown();
    } finally {
      this.polling = false;
    }
  }

  /** Up, recently polled and no further behind than `maxLagMs`. */
  usable(maxLagMs: number): boolean {
    return (
      this.replayed !== undefined &&
      Date.now() - this.seenAt <= FRESH_FOR_MS &&
      this.lagMs <= maxLagMs
    );
  }

  up(): boolean {
    return this.seenAt > 0 && Date.now() - this.seenAt <= FRESH_FOR_MS;
  }

  /** Takes no reads until a poll finds it a current standby; its poll connection stays. */
  private markUnusable(): void {
    this.seenAt = 0;
    this.lagMs = Infinity;
  }

  /** Takes no reads, and the next poll opens a new connection. */
  markDown(): void {
    this.markUnusable();
    const poller = this.poller;
    this.poller = undefined;
    poller?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.markDown();
    await this.pool.end().catch(() => undefined);
  }

  private async connectPoller(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'petstore-api replica poll',
      connectionTimeoutMillis: 1000,
      query_timeout: 1000,
    });
    client.on('error', () => this.markDown());
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }
}
