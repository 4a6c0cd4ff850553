import { loadConfig } from './app-config.js';
import { ConfigError } from './value-kinds.js';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      embeddedPostgresPort: undefined,
      seedDemo: true,
      logLevel: 'info',
      changelogUrl: '/changelog',
      db: {
        poolSize: 10,
        connectTimeoutMs: 2000,
        statementTimeoutMs: 5000,
        streamTimeoutMs: 300_000,
        maxStreams: 5,
        maxStreamsPerKey: 2,
        migrateOnStart: true,
      },
      apiKeyCacheTtlMs: 20_000,
      http: { keepAliveTimeoutMs: 65_000, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
      idempotency: { retentionSeconds: 86_400, lockSeconds: 10, purgeIntervalSeconds: 300 },
    });
    expect(config.dataDir).toMatch(/\.data$/);
    expect(config.petsSunsetAt.getTime()).toBeGreaterThan(config.petsDeprecatedAt.getTime());
  });

  it("points the changelog at the service's own /changelog under PUBLIC_BASE_URL, unless set", () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.test' }).changelogUrl).toBe(
      'https://api.example.test/changelog',
    );
    // The base's version and trailing slash are not part of where the service's own paths go.
    expect(
      loadConfig({ PUBLIC_BASE_URL: 'https://gw.example.test/petstore/v1/' }).changelogUrl,
    ).toBe('https://gw.example.test/petstore/changelog');
    expect(
      loadConfig({
        PUBLIC_BASE_URL: 'https://api.example.test',
        CHANGELOG_URL: 'https://docs.example.test/changes',
      }).changelogUrl,
    ).toBe('https://docs.example.test/changes');
  });

  it('loads no demo data by default when DATABASE_URL names a server', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/petstore' }).seedDemo).toBe(false);
    expect(
      loadConfig({ DATABASE_URL: 'postgres://u@db:5432/petstore', SEED_DEMO: 'true' }).seedDemo,
    ).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ CHANGELOG_URL: 'ftp://docs.example.test/changelog' }, 'CHANGELOG_URL'],
    // Only the default may be relative: a configured one names another server.
    [{ CHANGELOG_URL: '/changelog' }, 'CHANGELOG_URL'],
    [{ BOOTSTRAP_API_KEY: 'secret' }, 'BOOTSTRAP_API_KEY'],
    [{ PETS_SUNSET_AT: 'soon' }, 'PETS_SUNSET_AT'],
    [
      { PETS_DEPRECATED_AT: '2027-01-01T00:00:00Z', PETS_SUNSET_AT: '2026-01-01T00:00:00Z' },
      'PETS_SUNSET_AT',
    ],
    [{ DB_POOL_SIZE: '0' }, 'DB_POOL_SIZE'],
    [{ DB_MAX_STREAMS: '0' }, 'DB_MAX_STREAMS'],
    [{ DB_POOL_SIZE: '4', DB_MAX_STREAMS: '5' }, 'DB_MAX_STREAMS'],
    [{ DATABASE_DIRECT_URL: 'postgres://u@db:5432/petstore' }, 'DATABASE_DIRECT_URL'],
    [
      { DATABASE_URL: 'postgres://u@pgbouncer:6432/petstore', DATABASE_DIRECT_URL: 'http://db' },
      'DATABASE_DIRECT_URL',
    ],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'sometimes' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5,,30' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '-5' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '604801' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_TIMEOUT_MS: '10001' }, 'WEBHOOK_TIMEOUT_MS'],
    [{ WEBHOOK_RETENTION_DAYS: '0' }, 'WEBHOOK_RETENTION_DAYS'],
    [{ WEBHOOK_POLL_INTERVAL_MS: '2000' }, 'WEBHOOK_POLL_INTERVAL_MS'],
    [{ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_CLAIM_TTL_MS: '5000' }, 'WEBHOOK_CLAIM_TTL_MS'],
    [{ METRICS_PORT: 'x' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT'],
    [{ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT'],
    [{ METRICS_HOST: '127.0.0.1' }, 'METRICS_HOST'],
    [{ IDEMPOTENCY_KEY_RETENTION_SECONDS: '0' }, 'IDEMPOTENCY_KEY_RETENTION_SECONDS'],
    [{ IDEMPOTENCY_KEY_RETENTION_SECONDS: '1d' }, 'IDEMPOTENCY_KEY_RETENTION_SECONDS'],
    [{ IDEMPOTENCY_KEY_LOCK_SECONDS: '0' }, 'IDEMPOTENCY_KEY_LOCK_SECONDS'],
    [
      { IDEMPOTENCY_KEY_RETENTION_SECONDS: '60', IDEMPOTENCY_KEY_LOCK_SECONDS: '60' },
      'IDEMPOTENCY_KEY_LOCK_SECONDS',
    ],
    [{ IDEMPOTENCY_PURGE_INTERVAL_SECONDS: '0' }, 'IDEMPOTENCY_PURGE_INTERVAL_SECONDS'],
    [
      { DATABASE_URL: 'postgres://u@db/p', DATABASE_REPLICA_URLS: 'postgres://u@r/p' },
      'DATABASE_REPLICA_URLS',
    ],
    [
      {
        DATABASE_URL: 'postgres://u@db/p',
        REDIS_URL: 'redis://r:6379',
        DATABASE_REPLICA_URLS: 'postgres://u@r1/p,,postgres://u@r2/p',
      },
      'DATABASE_REPLICA_URLS',
    ],
    [
      { REDIS_URL: 'redis://r:6379', DATABASE_REPLICA_URLS: 'http://r1/p' },
      'DATABASE_REPLICA_URLS',
    ],
    [{ REPLICA_MAX_LAG_MS: '-1' }, 'REPLICA_MAX_LAG_MS'],
    [{ REQUEST_TIMEOUT_MS: '999' }, 'REQUEST_TIMEOUT_MS'],
    [{ HEADERS_TIMEOUT_MS: '40000' }, 'HEADERS_TIMEOUT_MS'],
    [{ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '5001' }, 'HEADERS_TIMEOUT_MS'],
  ])('refuses %j with a one-line reason naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });

  it('takes replicas with Redis beside the primary (unset: none, lag bound 1 s)', () => {
    expect(loadConfig({}).replicas).toEqual({ urls: [], maxLagMs: 1000 });
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://u@db/p',
        REDIS_URL: 'redis://r:6379',
        DATABASE_REPLICA_URLS: ' postgres://u@r1/p , postgresql://u@r2:6432/p',
        REPLICA_MAX_LAG_MS: '250',
      }).replicas,
    ).toEqual({ urls: ['postgres://u@r1/p', 'postgresql://u@r2:6432/p'], maxLagMs: 250 });
  });

  it('takes a direct database URL beside a pooled one (unset: the pooled one is used)', () => {
    const pooled = 'postgres://u@pgbouncer:6432/petstore';
    const direct = 'postgres://u@db:5432/petstore';
    expect(loadConfig({ DATABASE_URL: pooled }).databaseDirectUrl).toBeUndefined();
    expect(
      loadConfig({ DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct }).databaseDirectUrl,
    ).toBe(direct);
  });

  it('reads the webhook settings: the documented default schedule, decimals, none', () => {
    expect(loadConfig({}).webhooks).toEqual({
      dispatcherEnabled: true,
      allowPrivateTargets: false,
      retryScheduleMs: [5, 30, 120, 600, 3600, 21600, 43200].map((s) => s * 1000),
      pollIntervalMs: 500,
      concurrency: 64,
      timeoutMs: 10_000,
      claimTtlMs: 60_000,
      disableAfterSeconds: 432_000,
      retentionMs: 30 * 86_400_000,
    });
    expect(loadConfig({ WEBHOOK_DISABLE_AFTER_SECONDS: '0' }).webhooks.disableAfterSeconds).toBe(0);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.2, 1.5' }).webhooks.retryScheduleMs).toEqual([
      200, 1500,
    ]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: 'none' }).webhooks.retryScheduleMs).toEqual([]);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhooks.allowPrivateTargets).toBe(
      true,
    );
  });

  it('has no metrics listener unless METRICS_PORT is set', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: undefined });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' }).metrics).toEqual({
      port: 9464,
      host: '10.0.0.5',
    });
  });

  it('lets the headers take as long as the whole request, and no longer', () => {
    expect(
      loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '5000' }).http,
    ).toMatchObject({ headersTimeoutMs: 5000, requestTimeoutMs: 5000 });
    // Idle keep-alive connections are not timed by HEADERS_TIMEOUT_MS (Node 18 and later).
    expect(
      loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '65000', HEADERS_TIMEOUT_MS: '10000' }).http,
    ).toMatchObject({ keepAliveTimeoutMs: 65_000, headersTimeoutMs: 10_000 });
  });

  it('lets half the pool stream order lists by default, at least one', () => {
    expect(loadConfig({ DB_POOL_SIZE: '1' }).db.maxStreams).toBe(1);
    expect(loadConfig({ DB_POOL_SIZE: '7' }).db.maxStreams).toBe(3);
    expect(loadConfig({ DB_POOL_SIZE: '7', DB_MAX_STREAMS: '7' }).db.maxStreams).toBe(7);
  });

  it('gives each key a third of the stream slots by default, at least one, never more than all', () => {
    expect(loadConfig({}).db.maxStreamsPerKey).toBe(2);
    expect(loadConfig({ DB_POOL_SIZE: '1' }).db.maxStreamsPerKey).toBe(1);
    expect(loadConfig({ DB_MAX_STREAMS: '9' }).db.maxStreamsPerKey).toBe(3);
    expect(
      loadConfig({ DB_MAX_STREAMS: '4', DB_MAX_STREAMS_PER_KEY: '4' }).db.maxStreamsPerKey,
    ).toBe(4);
    expect(() => loadConfig({ DB_MAX_STREAMS: '4', DB_MAX_STREAMS_PER_KEY: '5' })).toThrow(
      /DB_MAX_STREAMS_PER_KEY.*must not be greater than DB_MAX_STREAMS/,
    );
  });

  it('accepts a well-formed bootstrap key', () => {
    const key = `psk_${'a'.repeat(43)}`;
    expect(loadConfig({ BOOTSTRAP_API_KEY: key }).bootstrapApiKey).toBe(key);
  });
});
