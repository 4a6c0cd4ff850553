import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** Everything the service reads from its environment, validated and typed once at start-up. */
export interface AppConfig {
  port: number;
  /** Unset: the service runs its own embedded PostgreSQL under `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * A connection that is not pooled per transaction (not through PgBouncer in transaction mode),
   * for migrations, their advisory lock and the role's timeouts. Unset: `databaseUrl`.
   */
  databaseDirectUrl: string | undefined;
  dataDir: string;
  embeddedPostgresPort: number;
  seedDemo: boolean;
  bootstrapApiKey: string | undefined;
  publicBaseUrl: string | undefined;
  stagingBaseUrl: string | undefined;
  /**
   * Target of the deprecation Link. Default: this service's own /changelog, absolute under
   * PUBLIC_BASE_URL when that is set, else a relative reference (RFC 8288 allows one).
   */
  changelogUrl: string;
  /** When GET /pets/{petId} was deprecated and when it goes away (contract section 5). */
  petsDeprecatedAt: Date;
  petsSunsetAt: Date;
  logLevel: LogLevel;
  /** How long a verified API key is trusted without asking the database (≤ 30 s: revocation). */
  apiKeyCacheTtlMs: number;
  /** `json` (one object per line) or `pretty` (development). */
  logFormat: 'json' | 'pretty';
  /** Redis for rate limits shared by all instances; unset = in memory, per instance. */
  redisUrl: string | undefined;
  rateLimit: {
    /** Prefix of the Redis keys, so several deployments can share one Redis. */
    redisKeyPrefix: string;
    /** Requests per minute per API key; 0 = off. */
    perKeyPerMinute: number;
    /** Requests per minute per client address, for requests without a valid key; 0 = off. */
    unauthenticatedPerMinute: number;
  };
  /** Express `trust proxy`: which hops' X-Forwarded-For is believed. Unset: none. */
  trustProxy: boolean | number | string | undefined;
  /** The Prometheus listener (`GET /metrics`), never on the public port; unset = off. */
  metrics: { port: number; host: string | undefined } | undefined;
  /** Origins allowed by CORS; empty = CORS off. */
  corsOrigins: string[];
  http: {
    /** Longer than a balancer's idle timeout (60 s is common), so the balancer closes first. */
    keepAliveTimeoutMs: number;
    headersTimeoutMs: number;
  };
  shutdown: {
    /** After SIGTERM: readiness fails at once, but requests are served this long. */
    drainDelayMs: number;
    /** The whole shutdown must end within this; past it the process exits 1. */
    timeoutMs: number;
  };
  db: {
    poolSize: number;
    connectTimeoutMs: number;
    statementTimeoutMs: number;
    /** Longest a streamed listOrders may take, slow clients included. */
    streamTimeoutMs: number;
    /** listOrders streaming at once per instance; past it, 503 (the pool stays for the rest). */
    maxStreams: number;
    /** Run pending migrations at start-up (under an advisory lock). */
    migrateOnStart: boolean;
  };
  webhooks: WebhookConfig;
  /** Idempotency-Key records (contract section 10). */
  idempotency: {
    /** How long an answer is remembered; after it, the key is free again. */
    retentionSeconds: number;
    /**
     * How long a request holds its key before another may take it over (a crashed instance
     * cannot hold it for good). Longer than a create can take: pool wait plus statement timeout.
     */
    lockSeconds: number;
    /** How often each instance deletes expired records. */
    purgeIntervalSeconds: number;
  };
}

/** The webhook dispatcher that runs in every instance (contract section 11). */
export interface WebhookConfig {
  /** Whether this instance sends deliveries; events are recorded either way. */
  dispatcherEnabled: boolean;
  /** `true` lets webhooks reach loopback and private addresses (development, tests). */
  allowPrivateTargets: boolean;
  /** Delay before each retry, in milliseconds; after the last, the delivery has failed. */
  retryScheduleMs: number[];
  /** How often each instance looks for due deliveries (the first attempt starts within 2 s). */
  pollIntervalMs: number;
  /** Attempts in flight at once per instance. */
  concurrency: number;
  /** An attempt that has no answer by then has failed (contract: 10 s). */
  timeoutMs: number;
  /** A claimed delivery whose instance died is claimed again after this (longer than the timeout). */
  claimTtlMs: number;
  /** Finished deliveries (and their attempts) are deleted this long after their event. */
  retentionMs: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A configuration value that stops the process: the message names the variable. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export const CONFIG_DEFAULTS = {
  PORT: 3000,
  PETSTORE_DATA_DIR: '.data',
  EMBEDDED_PG_PORT: 54329,
  /** Relative to PUBLIC_BASE_URL's origin and path when that is set (without its /vN). */
  CHANGELOG_URL: '/changelog',
  PETS_DEPRECATED_AT: '2026-11-01T00:00:00Z',
  PETS_SUNSET_AT: '2027-05-01T00:00:00Z',
  LOG_LEVEL: 'info',
  RATE_LIMIT_PER_MINUTE: 600,
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: 60,
  KEEP_ALIVE_TIMEOUT_MS: 65_000,
  HEADERS_TIMEOUT_MS: 66_000,
  SHUTDOWN_DRAIN_DELAY_MS: 5_000,
  SHUTDOWN_TIMEOUT_MS: 30_000,
  DB_POOL_SIZE: 10,
  DB_CONNECT_TIMEOUT_MS: 2000,
  DB_STATEMENT_TIMEOUT_MS: 5000,
  DB_STREAM_TIMEOUT_MS: 300_000,
  API_KEY_CACHE_TTL_MS: 20_000,
  WEBHOOK_RETRY_SCHEDULE: '5,30,120,600,3600,21600,43200',
  WEBHOOK_POLL_INTERVAL_MS: 500,
  WEBHOOK_CONCURRENCY: 8,
  WEBHOOK_TIMEOUT_MS: 10_000,
  WEBHOOK_CLAIM_TTL_MS: 60_000,
  WEBHOOK_RETENTION_DAYS: 30,
  IDEMPOTENCY_KEY_RETENTION_SECONDS: 86_400,
  IDEMPOTENCY_KEY_LOCK_SECONDS: 10,
  IDEMPOTENCY_PURGE_INTERVAL_SECONDS: 300,
} as const;

type Env = Record<string, string | undefined>;

/**
 * `https://api.example/v1/` → `https://api.example`: a base URL (PUBLIC_BASE_URL and the like)
 * without its trailing slash and version, where the service's own paths go.
 */
export function unversionedBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v[0-9]+$/, '');
}

/** Reads `.env` in the working directory when present; variables already set win. */
export function loadDotEnv(path = resolve('.env')): void {
  if (existsSync(path)) {
    process.loadEnvFile(path);
  }
}

export function loadConfig(env: Env = process.env): AppConfig {
  const read = new EnvReader(env);
  const databaseUrl = read.url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseDirectUrl = read.url('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']);
  if (databaseDirectUrl !== undefined && databaseUrl === undefined) {
    // The embedded database is always direct; a direct URL alone would be a second database.
    throw new ConfigError('DATABASE_DIRECT_URL', 'needs DATABASE_URL to be set as well');
  }
  const petsDeprecatedAt = read.date('PETS_DEPRECATED_AT', CONFIG_DEFAULTS.PETS_DEPRECATED_AT);
  const petsSunsetAt = read.date('PETS_SUNSET_AT', CONFIG_DEFAULTS.PETS_SUNSET_AT);
  if (petsSunsetAt < petsDeprecatedAt) {
    // RFC 9745 section 4: a resource cannot go away before it is deprecated.
    throw new ConfigError('PETS_SUNSET_AT', 'must not be earlier than PETS_DEPRECATED_AT');
  }
  const bootstrapApiKey = read.string('BOOTSTRAP_API_KEY');
  if (bootstrapApiKey !== undefined && !/^psk_[A-Za-z0-9_-]{22,128}$/.test(bootstrapApiKey)) {
    throw new ConfigError(
      'BOOTSTRAP_API_KEY',
      'must be "psk_" followed by 22 to 128 characters of [A-Za-z0-9_-] (at least 128 bits)',
    );
  }
  const keepAliveTimeoutMs = read.int(
    'KEEP_ALIVE_TIMEOUT_MS',
    CONFIG_DEFAULTS.KEEP_ALIVE_TIMEOUT_MS,
    1000,
    3_600_000,
  );
  const headersTimeoutMs = read.int(
    'HEADERS_TIMEOUT_MS',
    CONFIG_DEFAULTS.HEADERS_TIMEOUT_MS,
    1000,
    3_600_000,
  );
  if (headersTimeoutMs <= keepAliveTimeoutMs) {
    // Node's rule: otherwise a reused keep-alive socket can be cut while a request arrives.
    throw new ConfigError('HEADERS_TIMEOUT_MS', 'must be greater than KEEP_ALIVE_TIMEOUT_MS');
  }
  const logLevel = read.oneOf('LOG_LEVEL', LOG_LEVELS, CONFIG_DEFAULTS.LOG_LEVEL);
  const webhookTimeoutMs = read.int(
    'WEBHOOK_TIMEOUT_MS',
    CONFIG_DEFAULTS.WEBHOOK_TIMEOUT_MS,
    100,
    10_000,
  );
  const webhookClaimTtlMs = read.int(
    'WEBHOOK_CLAIM_TTL_MS',
    CONFIG_DEFAULTS.WEBHOOK_CLAIM_TTL_MS,
    1000,
    3_600_000,
  );
  if (webhookClaimTtlMs <= webhookTimeoutMs) {
    // Otherwise a second instance could claim a delivery whose attempt is still running.
    throw new ConfigError('WEBHOOK_CLAIM_TTL_MS', 'must be greater than WEBHOOK_TIMEOUT_MS');
  }
  const port = read.int('PORT', CONFIG_DEFAULTS.PORT, 0, 65535);
  const publicBaseUrl = read.url('PUBLIC_BASE_URL', ['http:', 'https:']);
  // 0 = any free port (tests); unset = no metrics listener.
  const metricsPort =
    read.string('METRICS_PORT') === undefined ? undefined : read.int('METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    // The balancer must never expose the metrics: they need a port of their own.
    throw new ConfigError('METRICS_PORT', 'must differ from PORT');
  }
  const metricsHost = read.string('METRICS_HOST');
  if (metricsHost !== undefined && metricsPort === undefined) {
    throw new ConfigError('METRICS_HOST', 'needs METRICS_PORT to be set as well');
  }
  const poolSize = read.int('DB_POOL_SIZE', CONFIG_DEFAULTS.DB_POOL_SIZE, 1, 1000);
  const maxStreams = read.int('DB_MAX_STREAMS', Math.max(1, Math.floor(poolSize / 2)), 1, 1000);
  if (maxStreams > poolSize) {
    throw new ConfigError('DB_MAX_STREAMS', 'must not be greater than DB_POOL_SIZE');
  }
  const idempotency = {
    retentionSeconds: read.int(
      'IDEMPOTENCY_KEY_RETENTION_SECONDS',
      CONFIG_DEFAULTS.IDEMPOTENCY_KEY_RETENTION_SECONDS,
      1,
      31_536_000,
    ),
    lockSeconds: read.int(
      'IDEMPOTENCY_KEY_LOCK_SECONDS',
      CONFIG_DEFAULTS.IDEMPOTENCY_KEY_LOCK_SECONDS,
      1,
      3600,
    ),
    purgeIntervalSeconds: read.int(
      'IDEMPOTENCY_PURGE_INTERVAL_SECONDS',
      CONFIG_DEFAULTS.IDEMPOTENCY_PURGE_INTERVAL_SECONDS,
      1,
      86_400,
    ),
  };
  if (idempotency.lockSeconds >= idempotency.retentionSeconds) {
    // A record must outlive its lock: else a running request's key could expire under it.
    throw new ConfigError(
      'IDEMPOTENCY_KEY_LOCK_SECONDS',
      'must be less than IDEMPOTENCY_KEY_RETENTION_SECONDS',
    );
  }
  return {
    port,
    databaseUrl,
    databaseDirectUrl,
    dataDir: resolve(read.string('PETSTORE_DATA_DIR') ?? CONFIG_DEFAULTS.PETSTORE_DATA_DIR),
    embeddedPostgresPort: read.int('EMBEDDED_PG_PORT', CONFIG_DEFAULTS.EMBEDDED_PG_PORT, 1, 65535),
    seedDemo: read.bool('SEED_DEMO', databaseUrl === undefined),
    bootstrapApiKey,
    publicBaseUrl,
    stagingBaseUrl: read.url('STAGING_BASE_URL', ['http:', 'https:']),
    changelogUrl:
      read.url('CHANGELOG_URL', ['http:', 'https:']) ??
      `${publicBaseUrl === undefined ? '' : unversionedBaseUrl(publicBaseUrl)}${CONFIG_DEFAULTS.CHANGELOG_URL}`,
    petsDeprecatedAt,
    petsSunsetAt,
    logLevel,
    apiKeyCacheTtlMs: read.int(
      'API_KEY_CACHE_TTL_MS',
      CONFIG_DEFAULTS.API_KEY_CACHE_TTL_MS,
      0,
      30_000,
    ),
    logFormat: read.oneOf(
      'LOG_FORMAT',
      ['json', 'pretty'] as const,
      env.NODE_ENV !== 'production' && process.stdout.isTTY ? 'pretty' : 'json',
    ),
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:']),
    rateLimit: {
      redisKeyPrefix: read.string('RATE_LIMIT_REDIS_PREFIX') ?? 'petstore:ratelimit:',
      perKeyPerMinute: read.int(
        'RATE_LIMIT_PER_MINUTE',
        CONFIG_DEFAULTS.RATE_LIMIT_PER_MINUTE,
        0,
        1_000_000,
      ),
      unauthenticatedPerMinute: read.int(
        'RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE',
        CONFIG_DEFAULTS.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
        0,
        1_000_000,
      ),
    },
    trustProxy: read.trustProxy('TRUST_PROXY'),
    metrics: metricsPort === undefined ? undefined : { port: metricsPort, host: metricsHost },
    corsOrigins: read.origins('CORS_ORIGINS'),
    http: { keepAliveTimeoutMs, headersTimeoutMs },
    shutdown: {
      drainDelayMs: read.int(
        'SHUTDOWN_DRAIN_DELAY_MS',
        CONFIG_DEFAULTS.SHUTDOWN_DRAIN_DELAY_MS,
        0,
        600_000,
      ),
      timeoutMs: read.int(
        'SHUTDOWN_TIMEOUT_MS',
        CONFIG_DEFAULTS.SHUTDOWN_TIMEOUT_MS,
        1000,
        3_600_000,
      ),
    },
    db: {
      poolSize,
      connectTimeoutMs: read.int(
        'DB_CONNECT_TIMEOUT_MS',
        CONFIG_DEFAULTS.DB_CONNECT_TIMEOUT_MS,
        100,
        600_000,
      ),
      statementTimeoutMs: read.int(
        'DB_STATEMENT_TIMEOUT_MS',
        CONFIG_DEFAULTS.DB_STATEMENT_TIMEOUT_MS,
        100,
        3_600_000,
      ),
      streamTimeoutMs: read.int(
        'DB_STREAM_TIMEOUT_MS',
        CONFIG_DEFAULTS.DB_STREAM_TIMEOUT_MS,
        1000,
        86_400_000,
      ),
      maxStreams,
      migrateOnStart: read.bool('MIGRATE_ON_START', true),
    },
    webhooks: {
      dispatcherEnabled: read.bool('WEBHOOK_DISPATCHER', true),
      allowPrivateTargets: read.bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
      retryScheduleMs: read.secondsList(
        'WEBHOOK_RETRY_SCHEDULE',
        CONFIG_DEFAULTS.WEBHOOK_RETRY_SCHEDULE,
      ),
      pollIntervalMs: read.int(
        'WEBHOOK_POLL_INTERVAL_MS',
        CONFIG_DEFAULTS.WEBHOOK_POLL_INTERVAL_MS,
        50,
        1500,
      ),
      concurrency: read.int('WEBHOOK_CONCURRENCY', CONFIG_DEFAULTS.WEBHOOK_CONCURRENCY, 1, 256),
      timeoutMs: webhookTimeoutMs,
      claimTtlMs: webhookClaimTtlMs,
      retentionMs:
        read.int('WEBHOOK_RETENTION_DAYS', CONFIG_DEFAULTS.WEBHOOK_RETENTION_DAYS, 1, 3650) *
        86_400_000,
    },
    idempotency,
  };
}

class EnvReader {
  constructor(private readonly env: Env) {}

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return Number(raw);
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    throw new ConfigError(name, `must be true or false (got "${raw}")`);
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, 'must be a URL');
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must be a ${protocols.join(' or ')} URL`);
    }
    return raw;
  }

  /**
   * Comma-separated delays in seconds (decimals allowed, for tests), each at most a week, at
   * most 20 of them; `none` = no retries. Returned in milliseconds.
   */
  secondsList(name: string, fallback: string): number[] {
    const raw = this.string(name) ?? fallback;
    if (raw.toLowerCase() === 'none') return [];
    const parts = raw.split(',').map((part) => part.trim());
    const valid = (part: string) => /^\d{1,6}(\.\d{1,3})?$/.test(part) && Number(part) <= 604_800;
    if (parts.length > 20 || !parts.every(valid)) {
      throw new ConfigError(
        name,
        `must be up to 20 comma-separated delays in seconds, each at most 604800, or none (got "${raw}")`,
      );
    }
    return parts.map((part) => Math.round(Number(part) * 1000));
  }

  date(name: string, fallback: string): Date {
    const raw = this.string(name) ?? fallback;
    const date = new Date(raw);
    if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(date.getTime())) {
      throw new ConfigError(name, `must be an ISO 8601 date-time (got "${raw}")`);
    }
    return date;
  }

  /**
   * Express `trust proxy` values: true/false, a hop count, or a comma-separated list of
   * addresses, subnets and the names loopback, linklocal, uniquelocal.
   */
  trustProxy(name: string): boolean | number | string | undefined {
    const raw = this.string(name);
    if (raw === undefined || raw === 'false') return undefined;
    if (raw === 'true') return true;
    if (/^\d+$/.test(raw)) return Number(raw);
    const entry = /^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/;
    const entries = raw.split(',').map((part) => part.trim());
    if (
      !entries.every(
        (part) =>
          entry.test(part) && (part.includes('.') || part.includes(':') || !/\d/.test(part)),
      )
    ) {
      throw new ConfigError(
        name,
        `must be true, a hop count, or addresses/subnets/loopback (got "${raw}")`,
      );
    }
    return entries.join(',');
  }

  origins(name: string): string[] {
    const raw = this.string(name);
    if (raw === undefined) return [];
    return raw.split(',').map((origin) => {
      const trimmed = origin.trim();
      let parsed: URL;
      try {
        parsed = new URL(trimmed);
      } catch {
        throw new ConfigError(name, `must be a comma-separated list of origins (got "${trimmed}")`);
      }
      if (
        !['http:', 'https:'].includes(parsed.protocol) ||
        parsed.origin !== trimmed.replace(/\/$/, '')
      ) {
        throw new ConfigError(
          name,
          `must list origins like https://app.example.com (got "${trimmed}")`,
        );
      }
      return parsed.origin;
    });
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name)?.toLowerCase() ?? fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
    }
    return raw as T;
  }
}
