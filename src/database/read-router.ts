import {
  Injectable,
  Logger,
  Optional,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors/domain-error.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { Replica, type PrimarySample } from './replica.js';
import { servedRequest } from './served-request.js';
import {
  parseWalPosition,
  walPositionFromText,
  walPositionText,
  type WalPosition,
} from './wal-position.js';

/** How often each replica's replay position, and the primary's WAL position, are read. */
export const REPLICA_POLL_INTERVAL_MS = 100;

/**
 * At most one query of the primary's WAL position per this many milliseconds: it covers every
 * write that finished before it was sent, however many.
 */
const POSITION_QUERY_GAP_MS = 10;

/**
 * Each API key's writes, a Redis hash: `position`, the WAL position of its last write whose
 * position is known, and a field per instance with a write whose position it has not learned
 * yet, valued at the time (ms since the epoch) after which that mark counts for nothing.
 */
const KEY_WRITES_PREFIX = 'petstore:writes:';
const POSITION_FIELD = 'position';

/**
 * For each key's hash (KEYS), after this instance learned position ARGV[1] past its writes: the
 * position becomes the key's unless a higher one is there (fixed-width hex: text order is
 * number order), this instance's mark goes (ARGV[3]), and the hash is kept ARGV[2] ms.
 */
const RECORD_POSITIONS_SCRIPT = `
for i = 1, #KEYS do
  local current = redis.call('HGET', KEYS[i], '${POSITION_FIELD}')
  if not current or current < ARGV[1] then
    redis.call('HSET', KEYS[i], '${POSITION_FIELD}', ARGV[1])
  end
  redis.call('HDEL', KEYS[i], ARGV[3])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return 0`;

type RecordPositionsCommand = (keyCount: number, ...keysThenArgs: string[]) => Promise<number>;

/** A key's writes through this instance whose position is not known yet. */
interface PendingWrites {
  /** Position queries sent before the last of them finished: a later one covers them all. */
  queriesBefore: number;
  /** The mark's end, as written to Redis. */
  markedUntil: number;
  /** Whether the mark reached Redis (else only this instance knows of the writes). */
  marked: boolean;
}

/**
 * Whether reads may go to a replica: replicas are set, and Redis to record the callers' last
 * writes. Off, the ReadRouter runs everything on the primary and needs no request context.
 */
export function readRoutingEnabled(config: Pick<AppConfig, 'replicas' | 'redisUrl'>): boolean {
  return config.replicas.urls.length > 0 && config.redisUrl !== undefined;
}

/**
 * Where the reads that may go to a replica (docs/operating.md, Read replicas) run: a hot
 * standby that has replayed the calling key's last write, else the primary. Each key's last write
 * position is in Redis, so a write through one instance is seen by a read through any other.
 * A write marks its key in Redis before its answer goes (one command, or none while this
 * instance's mark stands); its position is learned just after, with one query of the primary for
 * all the writes of the last few milliseconds (POSITION_QUERY_GAP_MS), and then replaces the
 * mark. A marked key reads on the primary.
 * Replicas are chosen from memory: each one's replay position and lag are polled in the
 * background every REPLICA_POLL_INTERVAL_MS. A replica that fails a read, is not answering, or is
 * further behind than REPLICA_MAX_LAG_MS takes no reads; without Redis, every read is on the
 * primary. With DATABASE_REPLICA_URLS unset, everything runs on the primary as before.
 *
 * It is what runStatement takes (`query`), so a repository routes a read by running it here.
 */
@Injectable()
export class ReadRouter implements OnModuleInit, OnApplicationShutdown {
  readonly enabled: boolean;
  private readonly logger = new Logger('ReadRouter');
  private readonly replicas: Replica[];
  private readonly maxLagMs: number;
  private readonly redis: Redis | undefined;
  private readonly recordPositions: RecordPositionsCommand | undefined;
  /** Keys written through this instance whose positions are not known yet. */
  private readonly pendingWrites = new Map<number, PendingWrites>();
  /** This instance's field in the keys' hashes. */
  private readonly markField = randomBytes(9).toString('base64url');
  private positionQueriesSent = 0;
  /** A position query is sent or scheduled. */
  private positionQueryDue: NodeJS.Timeout | Promise<void> | undefined;
  /** No position query before this time (Date.now()). */
  private nextPositionQueryAt = 0;
  private readonly lastWriteTtlMs: number;
  private readonly pendingTtlMs: number;
  /**
   * What a replica must have replayed, whatever the key: the primary's position when Redis
   * (re)connected, as the writes before it may not be in Redis. Undefined: not known yet, so
   * every read is on the primary.
   */
  private floor: WalPosition | undefined;
  /** When Redis last became ready: the floor is a position read after it. */
  private redisReadyAt = Infinity;
  private readonly samples: PrimarySample[] = [];
  private readonly reads: Counter<'target' | 'replica'> | undefined;
  /**
   * Reads run on the primary, added to `reads` when it is scraped: an increment per read, where
   * prom-client's inc() checks and hashes its labels every time, a child's too.
   */
  private primaryReads = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Shut down: a round that was under way then polls no replica. */
  private stopped = false;
  private lastWarning = 0;

  constructor(
    @InjectDataSource() private readonly primary: DataSource,
    @InjectConfig() config: AppConfig,
    // Absent where the database module runs without the service (the API key CLI).
    @Optional() metrics?: MetricsService,
  ) {
    this.maxLagMs = config.replicas.maxLagMs;
    this.lastWriteTtlMs = Math.max(60_000, 10 * this.maxLagMs);
    // A mark its instance never replaced (it stopped first) ends in time: a replica within the
    // lag bound then has the write (refreshed at half its time while writes go on).
    this.pendingTtlMs = Math.max(10_000, 3 * this.maxLagMs);
    this.replicas = config.replicas.urls.map((url) => new Replica(url, config.db));
    this.enabled = readRoutingEnabled(config);
    if (this.enabled && config.redisUrl) {
      this.redis = new Redis(config.redisUrl, {
        // A read asks Redis first: it must fail fast, to the primary, rather than queue or wait.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: 200,
        connectTimeout: 2000,
        retryStrategy: (attempt) => Math.min(attempt * 200, 1000),
      });
      this.redis.defineCommand('petstoreRecordPositions', { lua: RECORD_POSITIONS_SCRIPT });
      const recordPositions = (
        this.redis as unknown as { petstoreRecordPositions: RecordPositionsCommand }
      ).petstoreRecordPositions;
      this.recordPositions = recordPositions.bind(this.redis);
      this.redis.on('error', (error: Error) => this.warn(`Redis: ${error.message}`));
      // Back (or there for the first time): the writes made meanwhile were not recorded.
      this.redis.on('ready', () => {
        this.floor = undefined;
        this.redisReadyAt = Date.now();
      });
      this.redis.on('close', () => {
        this.floor = undefined;
        this.redisReadyAt = Infinity;
      });
    }
    let publishedPrimaryReads = 0;
    this.reads = metrics?.counter({
      name: 'petstore_db_reads_total',
      help: 'Reads that may go to a replica, by where they ran: target primary or replica (replica = its host:port)',
      labelNames: ['target', 'replica'],
      collect: () => {
        const unpublished = this.primaryReads - publishedPrimaryReads;
        if (unpublished > 0) this.reads?.inc({ target: 'primary', replica: '' }, unpublished);
        publishedPrimaryReads += unpublished;
      },
    });
    const replicas = this.replicas;
    metrics?.gauge({
      name: 'petstore_db_replica_lag_seconds',
      help: 'How far each replica is behind the primary (+Inf while it does not answer)',
      labelNames: ['replica'],
      collect() {
        for (const replica of replicas) this.set({ replica: replica.name }, replica.lagMs / 1000);
      },
    });
    metrics?.gauge({
      name: 'petstore_db_replica_up',
      help: 'Whether each replica answered its last poll (1) or not (0)',
      labelNames: ['replica'],
      collect() {
        for (const replica of replicas) this.set({ replica: replica.name }, replica.up() ? 1 : 0);
      },
    });
  }

  onModuleInit(): void {
    if (!this.enabled) return;
    this.logger.log(`reads may go to ${this.replicas.map((replica) => replica.name).join(', ')}`);
    this.timer = setInterval(() => void this.poll(), REPLICA_POLL_INTERVAL_MS);
    this.timer.unref();
    void this.poll();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // The last writes' positions, so that their keys do not read on the primary until the
    // marks expire.
    if (this.positionQueryDue instanceof Promise) await this.positionQueryDue;
    else clearTimeout(this.positionQueryDue);
    if (this.pendingWrites.size > 0) await this.learnPositions();
    await Promise.all(this.replicas.map((replica) => replica.close()));
    this.redis?.disconnect();
  }

  /**
   * Runs a read on a replica that has the caller's writes, else on the primary (Queryable).
   * On either, a read is one pooled query of pg: TypeORM's DataSource.query would add a query
   * runner, its events and its result wrapping to every read, about a tenth of a one-row GET's
   * cost (docs/performance.md). Writes and transactions stay with TypeORM.
   */
  async query(sql: string, parameters: unknown[] = []): Promise<unknown> {
    return this.run(
      async (pool): Promise<unknown> => (await pool.query<object>(sql, parameters)).rows,
    );
  }

  /**
   * Opens something on the chosen replica's pool (a streamed list), else on the primary's: a
   * replica that fails to open it sends it to the primary. Once open, it stays where it is.
   */
  async open<T>(on: (pool: pg.Pool) => Promise<T>): Promise<T> {
    return this.run(on);
  }

  /**
   * After a request of `keyId` that committed (or may have), before its answer is sent: this
   * instance's mark in the key's hash, unless it stands for a while yet, and its position will be
   * learned (learnPositionsSoon). The answer does not wait for Redis: the command is written to
   * Redis's connection first, so it reaches Redis ahead of any read the client sends next,
   * through any instance. A mark ends when this instance has recorded a position past the
   * writes, or at its time: by then a replica within the lag bound has them.
   */
  recordWrite(keyId: number): void {
    if (!this.enabled || !this.redis) return;
    const now = Date.now();
    let pending = this.pendingWrites.get(keyId);
    if (pending) {
      pending.queriesBefore = this.positionQueriesSent;
      // Marked already, and for a while yet: the mark stands for this write too.
      if (pending.marked && pending.markedUntil - now > this.pendingTtlMs / 2) {
        this.learnPositionsSoon();
        return;
      }
    } else {
      pending = { queriesBefore: this.positionQueriesSent, markedUntil: 0, marked: true };
      this.pendingWrites.set(keyId, pending);
    }
    const marking = pending;
    marking.markedUntil = now + this.pendingTtlMs;
    marking.marked = true;
    const key = `${KEY_WRITES_PREFIX}${keyId}`;
    const unmarked = (error: unknown): void => {
      marking.marked = false;
      this.warn(`a key's write was not marked in Redis: ${message(error)}`);
    };
    this.redis.hset(key, this.markField, String(marking.markedUntil)).catch(unmarked);
    this.redis.pexpire(key, this.lastWriteTtlMs).catch(unmarked);
    this.learnPositionsSoon();
  }

  /** Schedules a position query, unless one is sent or scheduled already. */
  private learnPositionsSoon(): void {
    if (this.positionQueryDue !== undefined || this.stopped) return;
    this.positionQueryDue = setTimeout(
      () => {
        this.positionQueryDue = this.learnPositions().finally(() => {
          this.positionQueryDue = undefined;
          if (this.pendingWrites.size > 0) this.learnPositionsSoon();
        });
      },
      Math.max(0, this.nextPositionQueryAt - Date.now()),
    );
  }

  /**
   * One query of the primary's insert position: sent after every pending write finished, it is
   * at or past their commit records (also under `synchronous_commit = off`, where the written
   * position may not be). It becomes their keys' last write, in one Redis command.
   */
  private async learnPositions(): Promise<void> {
    const query = ++this.positionQueriesSent;
    this.nextPositionQueryAt = Date.now() + POSITION_QUERY_GAP_MS;
    let position: WalPosition;
    try {
      position = await this.primaryPosition('pg_current_wal_insert_lsn()');
    } catch (error) {
      this.nextPositionQueryAt = Date.now() + REPLICA_POLL_INTERVAL_MS;
      this.warn(`the primary's WAL position could not be read: ${message(error)}`);
      return;
    }
    const keys: string[] = [];
    for (const [keyId, pending] of this.pendingWrites) {
      if (pending.queriesBefore >= query) continue;
      this.pendingWrites.delete(keyId);
      keys.push(`${KEY_WRITES_PREFIX}${keyId}`);
      if (!pending.marked) this.raiseFloor(position);
    }
    if (keys.length === 0 || !this.recordPositions) return;
    const text = walPositionText(position);
    await this.recordPositions(
      keys.length,
      ...keys,
      text,
      String(this.lastWriteTtlMs),
      this.markField,
    ).catch((error: unknown) => {
      // Not recorded: this instance at least sends no read to a replica that lacks them.
      this.raiseFloor(position);
      this.warn(`keys' last writes were not recorded in Redis: ${message(error)}`);
    });
  }

  private raiseFloor(position: WalPosition): void {
    if (this.floor !== undefined && this.floor < position) this.floor = position;
  }

  /** `on` the chosen replica's pool, else (none, or it failed there) on the primary's. */
  private async run<T>(on: (pool: pg.Pool) => Promise<T>): Promise<T> {
    // No replica to choose from: straight to the primary, without choose()'s await.
    const replica = this.enabled ? await this.choose() : undefined;
    if (replica) {
      try {
        const result = await on(replica.pool);
        this.reads?.inc({ target: 'replica', replica: replica.name });
        return result;
      } catch (error) {
        // The service's own answer (a 429 for a stream slot): the same on the primary.
        if (error instanceof DomainError) throw error;
        // Never a 5xx for a replica: the read runs again on the primary.
        if (isUnavailable(error)) replica.markDown();
        this.warn(
          `a read failed on replica ${replica.name}, run on the primary: ${message(error)}`,
        );
      }
    }
    const result = await on(this.primaryPool());
    this.primaryReads++;
    return result;
  }

  /**
   * A replica that has replayed the caller's last write and everything before `floor`; none
   * while the key's last write has no known position yet.
   */
  private async choose(): Promise<Replica | undefined> {
    const keyId = servedRequest()?.keyId;
    const floor = this.floor;
    if (!this.enabled || keyId === undefined || floor === undefined) return undefined;
    if (this.pendingWrites.has(keyId)) return undefined;
    if (this.redis?.status !== 'ready') return undefined;
    const candidates = this.replicas.filter(
      (replica) => replica.usable(this.maxLagMs) && replica.replayed! >= floor,
    );
    if (candidates.length === 0) return undefined;
    let lastWrite: WalPosition;
    try {
      const writes = await this.redis.hgetall(`${KEY_WRITES_PREFIX}${keyId}`);
      const now = Date.now();
      for (const field in writes) {
        // An instance's write whose position is not known yet.
        if (field !== POSITION_FIELD && Number(writes[field]) > now) return undefined;
      }
      const text = writes[POSITION_FIELD];
      lastWrite = text === undefined ? 0n : walPositionFromText(text);
    } catch (error) {
      this.warn(`Redis did not say a key's last write, read on the primary: ${message(error)}`);
      return undefined;
    }
    const ready = candidates.filter((replica) => replica.replayed! >= lastWrite);
    return ready[Math.floor(Math.random() * ready.length)];
  }

  /**
   * One round: the primary's position first, then every replica's against it. A replica's poll
   * is not waited for: one that hangs (up to its 1 s timeout) must not hold the others' polls.
   */
  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const now = Date.now();
      try {
        const position = await this.primaryPosition('pg_current_wal_lsn()');
        this.samples.push({ at: now, position });
        // Kept long enough to measure any lag that matters: a few times the bound.
        const keepMs = Math.max(10_000, 3 * this.maxLagMs);
        while (this.samples.length > 1 && now - this.samples[0].at > keepMs) this.samples.shift();
        if (this.floor === undefined && now >= this.redisReadyAt) this.floor = position;
      } catch {
        // The primary not answering: the lag is measured against what it said last.
      }
      if (this.stopped) return;
      for (const replica of this.replicas) void replica.poll(this.samples);
    } finally {
      this.polling = false;
    }
  }

  /** One pooled query, as reads are (`query`): no TypeORM query runner for a background poll. */
  private async primaryPosition(expression: string): Promise<WalPosition> {
    const { rows } = await this.primaryPool().query<{ position: string }>(
      `SELECT ${expression}::text AS position`,
    );
    return parseWalPosition(rows[0].position);
  }

  private primaryPool(): pg.Pool {
    return (this.primary.driver as unknown as { master: pg.Pool }).master;
  }

  /** At most one warning every 10 s: an outage must not flood the logs. */
  private warn(text: string): void {
    if (Date.now() - this.lastWarning > 10_000) {
      this.lastWarning = Date.now();
      this.logger.warn(text);
    }
  }
}

/**
 * The replica itself is the trouble (no connection, shutting down, out of connections), not the
 * statement: no SQLSTATE, or class 08, 57P or 53.
 */
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== 'string' || /^(08|57P|53)/.test(code) || !/^[0-9A-Z]{5}$/.test(code);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
