import {
  Injectable,
  Logger,
  Optional,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { CommitPositions } from './commit-positions.js';
import { Replica, type PrimarySample } from './replica.js';
import {
  parseWalPosition,
  walPositionFromText,
  walPositionText,
  type WalPosition,
} from './wal-position.js';

/** How often each replica's replay position, and the primary's WAL position, are read. */
export const REPLICA_POLL_INTERVAL_MS = 100;

/** Redis keys of each API key's last write position. */
const LAST_WRITE_PREFIX = 'petstore:last-write:';

/** Keeps the higher of two positions (fixed-width hex: text order is number order). */
const RAISE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and current >= ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

type RaiseCommand = (key: string, position: string, ttlMs: number) => Promise<number>;

/** The request being served, so that a read knows its caller's key without being told. */
const currentRequest = new AsyncLocalStorage<AuthenticatedRequest>();

/** Runs `serve` with `request` known to the ReadRouter (ReadYourWritesInterceptor). */
export function servingRequest<T>(request: AuthenticatedRequest, serve: () => T): T {
  return currentRequest.run(request, serve);
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
  private readonly raise: RaiseCommand | undefined;
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
  /** `reads` on the primary, its labels hashed once rather than on every read. */
  private readonly primaryReads: { inc(): void } | undefined;
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
      this.redis.defineCommand('petstoreRaiseLastWrite', { numberOfKeys: 1, lua: RAISE_SCRIPT });
      const raise = (this.redis as unknown as { petstoreRaiseLastWrite: RaiseCommand })
        .petstoreRaiseLastWrite;
      this.raise = raise.bind(this.redis);
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
    this.reads = metrics?.counter({
      name: 'petstore_db_reads_total',
      help: 'Reads that may go to a replica, by where they ran: target primary or replica (replica = its host:port)',
      labelNames: ['target', 'replica'],
    });
    this.primaryReads = this.reads?.labels({ target: 'primary', replica: '' });
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
    await Promise.all(this.replicas.map((replica) => replica.close()));
    this.redis?.disconnect();
  }

  /** Runs a read on a replica that has the caller's writes, else on the primary (Queryable). */
  async query(sql: string, parameters: unknown[] = []): Promise<unknown> {
    return this.run<unknown>(
      async (pool): Promise<unknown> => (await pool.query<object>(sql, parameters)).rows,
      () => this.primary.query(sql, parameters),
    );
  }

  /**
   * Opens something on the chosen replica's pool (a streamed list), else on the primary's: a
   * replica that fails to open it sends it to the primary. Once open, it stays where it is.
   */
  async open<T>(on: (pool: pg.Pool) => Promise<T>): Promise<T> {
    return this.run(on, () => on(this.primaryPool()));
  }

  /**
   * After a request of `keyId` that may have written, once its statements have committed: the
   * highest WAL position learned after its commits (`commits`), recorded as the key's last
   * write; nothing when it committed nothing. A commit whose position was not learned costs a
   * statement on the primary. The answer waits for the position, not for Redis: the command is
   * sent before the answer is, so it reaches Redis ahead of any read the client sends next.
   */
  async recordWrite(keyId: number, commits: CommitPositions): Promise<void> {
    if (!this.enabled || !this.raise) return;
    const learned = await commits.settle();
    let position: WalPosition | undefined;
    try {
      position = learned.missed
        ? await this.primaryPosition('pg_current_wal_insert_lsn()')
        : learned.position;
    } catch (error) {
      this.warn(`the last write of a key could not be learned: ${message(error)}`);
      return;
    }
    if (position === undefined) return;
    const ttlMs = Math.max(60_000, 10 * this.maxLagMs);
    this.raise(`${LAST_WRITE_PREFIX}${keyId}`, walPositionText(position), ttlMs).catch(
      (error: unknown) => {
        // Not recorded: this instance at least sends no read to a replica that lacks it.
        if (this.floor !== undefined && this.floor < position) this.floor = position;
        this.warn(`a key's last write was not recorded in Redis: ${message(error)}`);
      },
    );
  }

  private async run<T>(
    onReplica: (pool: pg.Pool) => Promise<T>,
    onPrimary: () => Promise<T>,
  ): Promise<T> {
    // No replica to choose from: straight to the primary, without choose()'s await.
    const replica = this.enabled ? await this.choose() : undefined;
    if (replica) {
      try {
        const result = await onReplica(replica.pool);
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
    const result = await onPrimary();
    this.primaryReads?.inc();
    return result;
  }

  /** A replica that has replayed the caller's last write and everything before `floor`. */
  private async choose(): Promise<Replica | undefined> {
    const keyId = currentRequest.getStore()?.apiKey?.keyId;
    const floor = this.floor;
    if (!this.enabled || keyId === undefined || floor === undefined) return undefined;
    if (this.redis?.status !== 'ready') return undefined;
    const candidates = this.replicas.filter(
      (replica) => replica.usable(this.maxLagMs) && replica.replayed! >= floor,
    );
    if (candidates.length === 0) return undefined;
    let lastWrite: WalPosition;
    try {
      const text = await this.redis.get(`${LAST_WRITE_PREFIX}${keyId}`);
      lastWrite = text === null ? 0n : walPositionFromText(text);
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

  private async primaryPosition(expression: string): Promise<WalPosition> {
    const rows = await this.primary.query<{ position: string }[]>(
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
