import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { tracingRequested } from '../tracing/tracing-switch.js';
import { readConfigVariables, type ConfigValues } from './config-variables.js';

/**
 * Everything the service reads from its environment, validated and typed once at start-up.
 * Each field's type names the variable it comes from: CONFIG_VARIABLES documents it.
 */
export interface AppConfig {
  port: ConfigValues['PORT'];
  databaseUrl: ConfigValues['DATABASE_URL'];
  databaseDirectUrl: ConfigValues['DATABASE_DIRECT_URL'];
  /** PETSTORE_DATA_DIR, absolute. */
  dataDir: string;
  embeddedPostgresPort: ConfigValues['EMBEDDED_PG_PORT'];
  seedDemo: ConfigValues['SEED_DEMO'];
  bootstrapApiKey: ConfigValues['BOOTSTRAP_API_KEY'];
  publicBaseUrl: ConfigValues['PUBLIC_BASE_URL'];
  stagingBaseUrl: ConfigValues['STAGING_BASE_URL'];
  changelogUrl: ConfigValues['CHANGELOG_URL'];
  petsDeprecatedAt: ConfigValues['PETS_DEPRECATED_AT'];
  petsSunsetAt: ConfigValues['PETS_SUNSET_AT'];
  logLevel: LogLevel;
  apiKeyCacheTtlMs: ConfigValues['API_KEY_CACHE_TTL_MS'];
  logFormat: ConfigValues['LOG_FORMAT'];
  redisUrl: ConfigValues['REDIS_URL'];
  rateLimit: {
    redisKeyPrefix: ConfigValues['RATE_LIMIT_REDIS_PREFIX'];
    perKeyPerMinute: ConfigValues['RATE_LIMIT_PER_MINUTE'];
    unauthenticatedPerMinute: ConfigValues['RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE'];
  };
  trustProxy: ConfigValues['TRUST_PROXY'];
  /** METRICS_PORT and METRICS_HOST; unset without METRICS_PORT. */
  metrics: { port: number; host: ConfigValues['METRICS_HOST'] } | undefined;
  corsOrigins: ConfigValues['CORS_ORIGINS'];
  http: {
    keepAliveTimeoutMs: ConfigValues['KEEP_ALIVE_TIMEOUT_MS'];
    headersTimeoutMs: ConfigValues['HEADERS_TIMEOUT_MS'];
    requestTimeoutMs: ConfigValues['REQUEST_TIMEOUT_MS'];
  };
  shutdown: {
    drainDelayMs: ConfigValues['SHUTDOWN_DRAIN_DELAY_MS'];
    timeoutMs: ConfigValues['SHUTDOWN_TIMEOUT_MS'];
  };
  db: {
    poolSize: ConfigValues['DB_POOL_SIZE'];
    connectTimeoutMs: ConfigValues['DB_CONNECT_TIMEOUT_MS'];
    statementTimeoutMs: ConfigValues['DB_STATEMENT_TIMEOUT_MS'];
    streamTimeoutMs: ConfigValues['DB_STREAM_TIMEOUT_MS'];
    maxStreams: ConfigValues['DB_MAX_STREAMS'];
    maxStreamsPerKey: ConfigValues['DB_MAX_STREAMS_PER_KEY'];
    migrateOnStart: ConfigValues['MIGRATE_ON_START'];
  };
  /** DATABASE_REPLICA_URLS (none: empty) and REPLICA_MAX_LAG_MS. */
  replicas: { urls: string[]; maxLagMs: ConfigValues['REPLICA_MAX_LAG_MS'] };
  webhooks: WebhookConfig;
  /**
   * The OTEL_* variables (docs/operating.md, Tracing); undefined when tracing is off. The
   * OpenTelemetry SDK reads them from the environment itself; these are the same values, checked.
   */
  tracing: TracingConfig | undefined;
  idempotency: {
    retentionSeconds: ConfigValues['IDEMPOTENCY_KEY_RETENTION_SECONDS'];
    lockSeconds: ConfigValues['IDEMPOTENCY_KEY_LOCK_SECONDS'];
    purgeIntervalSeconds: ConfigValues['IDEMPOTENCY_PURGE_INTERVAL_SECONDS'];
  };
}

/** Where spans go and which are kept, when tracing is on. */
export interface TracingConfig {
  serviceName: ConfigValues['OTEL_SERVICE_NAME'];
  endpoint: string;
  protocol: ConfigValues['OTEL_EXPORTER_OTLP_PROTOCOL'];
  sampler: ConfigValues['OTEL_TRACES_SAMPLER'];
  /** OTEL_TRACES_SAMPLER_ARG, for the `traceidratio` samplers. */
  samplerRatio: number;
}

/** The webhook dispatcher that runs in every instance (docs/webhooks.md). */
export interface WebhookConfig {
  dispatcherEnabled: ConfigValues['WEBHOOK_DISPATCHER'];
  allowPrivateTargets: ConfigValues['WEBHOOK_ALLOW_PRIVATE_TARGETS'];
  /** WEBHOOK_RETRY_SCHEDULE, in milliseconds. */
  retryScheduleMs: ConfigValues['WEBHOOK_RETRY_SCHEDULE'];
  pollIntervalMs: ConfigValues['WEBHOOK_POLL_INTERVAL_MS'];
  concurrency: ConfigValues['WEBHOOK_CONCURRENCY'];
  timeoutMs: ConfigValues['WEBHOOK_TIMEOUT_MS'];
  claimTtlMs: ConfigValues['WEBHOOK_CLAIM_TTL_MS'];
  /** WEBHOOK_RETENTION_DAYS, in milliseconds. */
  retentionMs: number;
}

export type LogLevel = ConfigValues['LOG_LEVEL'];

/** Reads `.env` in the working directory when present; variables already set win. */
export function loadDotEnv(path = resolve('.env')): void {
  if (existsSync(path)) {
    process.loadEnvFile(path);
  }
}

/** The configuration in `env`; a bad value throws a ConfigError naming its variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  return toAppConfig(readConfigVariables(env));
}

/** The variables' values arranged as the service uses them; every variable is read here. */
export function toAppConfig(v: ConfigValues): AppConfig {
  return {
    port: v.PORT,
    databaseUrl: v.DATABASE_URL,
    databaseDirectUrl: v.DATABASE_DIRECT_URL,
    dataDir: resolve(v.PETSTORE_DATA_DIR),
    embeddedPostgresPort: v.EMBEDDED_PG_PORT,
    seedDemo: v.SEED_DEMO,
    bootstrapApiKey: v.BOOTSTRAP_API_KEY,
    publicBaseUrl: v.PUBLIC_BASE_URL,
    stagingBaseUrl: v.STAGING_BASE_URL,
    changelogUrl: v.CHANGELOG_URL,
    petsDeprecatedAt: v.PETS_DEPRECATED_AT,
    petsSunsetAt: v.PETS_SUNSET_AT,
    logLevel: v.LOG_LEVEL,
    apiKeyCacheTtlMs: v.API_KEY_CACHE_TTL_MS,
    logFormat: v.LOG_FORMAT,
    redisUrl: v.REDIS_URL,
    rateLimit: {
      redisKeyPrefix: v.RATE_LIMIT_REDIS_PREFIX,
      perKeyPerMinute: v.RATE_LIMIT_PER_MINUTE,
      unauthenticatedPerMinute: v.RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE,
    },
    trustProxy: v.TRUST_PROXY,
    metrics:
      v.METRICS_PORT === undefined ? undefined : { port: v.METRICS_PORT, host: v.METRICS_HOST },
    corsOrigins: v.CORS_ORIGINS,
    http: {
      keepAliveTimeoutMs: v.KEEP_ALIVE_TIMEOUT_MS,
      headersTimeoutMs: v.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    },
    shutdown: { drainDelayMs: v.SHUTDOWN_DRAIN_DELAY_MS, timeoutMs: v.SHUTDOWN_TIMEOUT_MS },
    db: {
      poolSize: v.DB_POOL_SIZE,
      connectTimeoutMs: v.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: v.DB_STATEMENT_TIMEOUT_MS,
      streamTimeoutMs: v.DB_STREAM_TIMEOUT_MS,
      maxStreams: v.DB_MAX_STREAMS,
      maxStreamsPerKey: v.DB_MAX_STREAMS_PER_KEY,
      migrateOnStart: v.MIGRATE_ON_START,
    },
    replicas: { urls: v.DATABASE_REPLICA_URLS ?? [], maxLagMs: v.REPLICA_MAX_LAG_MS },
    tracing: tracingRequested(v)
      ? {
          serviceName: v.OTEL_SERVICE_NAME,
          endpoint: v.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318',
          protocol: v.OTEL_EXPORTER_OTLP_PROTOCOL,
          sampler: v.OTEL_TRACES_SAMPLER,
          samplerRatio: Number(v.OTEL_TRACES_SAMPLER_ARG ?? '1'),
        }
      : undefined,
    webhooks: {
      dispatcherEnabled: v.WEBHOOK_DISPATCHER,
      allowPrivateTargets: v.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      retryScheduleMs: v.WEBHOOK_RETRY_SCHEDULE,
      pollIntervalMs: v.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: v.WEBHOOK_CONCURRENCY,
      timeoutMs: v.WEBHOOK_TIMEOUT_MS,
      claimTtlMs: v.WEBHOOK_CLAIM_TTL_MS,
      retentionMs: v.WEBHOOK_RETENTION_DAYS * 86_400_000,
    },
    idempotency: {
      retentionSeconds: v.IDEMPOTENCY_KEY_RETENTION_SECONDS,
      lockSeconds: v.IDEMPOTENCY_KEY_LOCK_SECONDS,
      purgeIntervalSeconds: v.IDEMPOTENCY_PURGE_INTERVAL_SECONDS,
    },
  };
}
