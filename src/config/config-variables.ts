import { unversionedBaseUrl } from './base-url.js';
import {
  ConfigError,
  delaysInSeconds,
  isoDateTime,
  matching,
  oneOf,
  origins,
  text,
  trueOrFalse,
  trustProxy,
  url,
  urlList,
  wholeNumber,
  type ValueKind,
} from './value-kinds.js';

/**
 * Every environment variable the service reads, declared once: what it takes, its default, the
 * rule it must keep with others, and one line of documentation. loadConfig parses the
 * environment with it; `npm run docs:config` writes docs/configuration.md's table and
 * .env.example from it.
 *
 * An entry is `variable(kind, spec)`: the kind (value-kinds.ts) turns the text into a value and
 * says what it accepts; the spec (VariableSpec below) gives the rest.
 *
 * A rule or a computed default states its return type: the table's type is inferred from its
 * entries, and without it TypeScript would have to infer the function before the table.
 */
export const CONFIG_VARIABLES = {
  PORT: variable(wholeNumber(0, 65535), { default: 3000, doc: 'HTTP port' }),
  DATABASE_URL: variable(url('postgres:', 'postgresql:'), {
    example: 'postgres://postgres@127.0.0.1:5432/petstore',
    doc: 'PostgreSQL to use (`postgres://user:pass@host:5432/db`); unset = the service runs its own embedded PostgreSQL under `PETSTORE_DATA_DIR`',
  }),
  DATABASE_DIRECT_URL: variable(url('postgres:', 'postgresql:'), {
    whenUnset: '`DATABASE_URL`',
    example: 'postgres://postgres@127.0.0.1:5432/petstore',
    rule: {
      problem: 'needs DATABASE_URL to be set as well',
      // The embedded database is always direct; a direct URL alone would be a second database.
      holds: (_direct, v): boolean => v.DATABASE_URL !== undefined,
    },
    doc: "the same database without a transaction-pooling PgBouncer, for migrations, their advisory lock and the role's timeouts",
  }),
  METRICS_PORT: variable(wholeNumber(0, 65535), {
    example: '9464',
    rule: {
      problem: 'must differ from PORT',
      // The balancer must never expose the metrics: they need a port of their own.
      holds: (port, v): boolean => port === 0 || port !== v.PORT,
    },
    doc: 'port of the Prometheus listener (`GET /metrics`), never the public one; unset = no listener, nothing sampled; `0` = any free port',
  }),
  METRICS_HOST: variable(text('an address'), {
    whenUnset: 'all interfaces',
    example: '127.0.0.1',
    rule: {
      problem: 'needs METRICS_PORT to be set as well',
      holds: (_host, v): boolean => v.METRICS_PORT !== undefined,
    },
    doc: 'address the metrics listener binds to (`127.0.0.1`, a private address)',
  }),
  PETSTORE_DATA_DIR: variable(text('a folder, relative to the working directory or absolute'), {
    default: '.data',
    doc: 'folder of the embedded PostgreSQL (cluster, password, port) and the development key',
  }),
  EMBEDDED_PG_PORT: variable(wholeNumber(1, 65535), {
    whenUnset: "the data folder's own",
    example: '54329',
    doc: "port of the embedded PostgreSQL (loopback only); unset: a free one, chosen on the data folder's first start and kept in its `postgres-port`, replaced (with a warning) if another program holds it later. A port set here is kept too; the start fails if it is held",
  }),
  SEED_DEMO: variable(trueOrFalse, {
    default: {
      doc: '`true` when embedded, else `false`',
      value: (v): boolean => v.DATABASE_URL === undefined,
    },
    example: 'true',
    doc: 'load the demo data into an empty database, once',
  }),
  BOOTSTRAP_API_KEY: variable(
    matching(
      /^psk_[A-Za-z0-9_-]{22,128}$/,
      '`psk_` followed by 22 to 128 of `A-Z a-z 0-9 _ -`',
      '"psk_" followed by 22 to 128 characters of [A-Za-z0-9_-] (at least 128 bits)',
    ),
    {
      example: 'psk_change-me-to-something-random-000000',
      doc: 'a key that must exist and be active at start-up',
    },
  ),
  PUBLIC_BASE_URL: variable(url('http:', 'https:'), {
    example: 'https://api.petstore.example',
    doc: "where clients reach the service in production: listed in each OpenAPI document's `servers` (with its `/vN`) after this instance's own, and the base of the `next` links, of the deprecated pet read's `successor-version` link and of the default `CHANGELOG_URL`",
  }),
  STAGING_BASE_URL: variable(url('http:', 'https:'), {
    example: 'https://staging.petstore.example',
    doc: "the staging address, listed in each OpenAPI document's `servers` (with its `/vN`) after `PUBLIC_BASE_URL`",
  }),
  CHANGELOG_URL: variable(url('http:', 'https:'), {
    default: {
      doc: "this service's `/changelog`",
      // Only the default may be relative (RFC 8288 allows it): a configured one names another server.
      value: (v): string =>
        `${v.PUBLIC_BASE_URL === undefined ? '' : unversionedBaseUrl(v.PUBLIC_BASE_URL)}/changelog`,
    },
    example: 'https://docs.petstore.example/changelog',
    doc: 'target of the deprecation `Link` header. The default, `GET /changelog`, serves CHANGELOG.md as a page: under `PUBLIC_BASE_URL` (its `/vN` left out) when that is set, else as the relative `/changelog`',
  }),
  PETS_DEPRECATED_AT: variable(isoDateTime, {
    default: '2026-11-01T00:00:00Z',
    doc: 'when `GET /v1/pets/{petId}` was deprecated (`Deprecation` header)',
  }),
  PETS_SUNSET_AT: variable(isoDateTime, {
    default: '2027-05-01T00:00:00Z',
    rule: {
      problem: 'must not be earlier than PETS_DEPRECATED_AT',
      // RFC 9745 section 4: a resource cannot go away before it is deprecated.
      holds: (sunset, v): boolean => sunset >= v.PETS_DEPRECATED_AT,
    },
    doc: 'when `GET /v1/pets/{petId}` goes away (`Sunset` header)',
  }),
  LOG_LEVEL: variable(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), {
    default: 'info',
    doc: 'the least severe level logged',
  }),
  LOG_FORMAT: variable(oneOf(['json', 'pretty']), {
    default: {
      doc: '`pretty` on a terminal unless `NODE_ENV` is `production`, else `json`',
      value: (_v, env): 'json' | 'pretty' =>
        env.NODE_ENV !== 'production' && process.stdout.isTTY ? 'pretty' : 'json',
    },
    example: 'pretty',
    doc: '`json` (one object per line) or `pretty` (development)',
  }),
  DATABASE_REPLICA_URLS: variable(urlList('postgres:', 'postgresql:'), {
    example:
      'postgres://postgres@replica-1:5432/petstore,postgres://postgres@replica-2:5432/petstore',
    rule: {
      problem:
        "needs REDIS_URL (it carries each key's last write to every instance) and DATABASE_URL",
      holds: (_urls, v): boolean => v.REDIS_URL !== undefined && v.DATABASE_URL !== undefined,
    },
    doc: "hot standbys of `DATABASE_URL` (directly or through their own PgBouncer) that take the listed reads, each only once it has replayed the calling key's last write (see [Operating](operating.md#read-replicas)); unset = every read on `DATABASE_URL`",
  }),
  REPLICA_MAX_LAG_MS: variable(wholeNumber(0, 3_600_000), {
    default: 1000,
    doc: 'a replica further behind the primary than this, or unreachable, takes no reads until it has caught up',
  }),
  DB_POOL_SIZE: variable(wholeNumber(1, 1000), {
    default: 10,
    doc: 'database connections per instance',
  }),
  DB_CONNECT_TIMEOUT_MS: variable(wholeNumber(100, 600_000), {
    default: 2000,
    doc: 'how long to wait for a database connection; a statement with no answer after this plus `DB_STATEMENT_TIMEOUT_MS` loses its connection (503)',
  }),
  DB_STATEMENT_TIMEOUT_MS: variable(wholeNumber(100, 3_600_000), {
    default: 5000,
    doc: "longest a single SQL statement may run (the role's `statement_timeout`, see [Operating](operating.md#pgbouncer-and-the-direct-connection))",
  }),
  MIGRATE_ON_START: variable(trueOrFalse, {
    default: true,
    doc: 'apply pending migrations at start-up (under an advisory lock: safe with many instances)',
  }),
  DB_STREAM_TIMEOUT_MS: variable(wholeNumber(1000, 86_400_000), {
    default: 300_000,
    doc: "longest a streamed `listOrders` may take, slow clients included (its `COPY`'s statement timeout)",
  }),
  DB_MAX_STREAMS: variable(wholeNumber(1, 1000), {
    default: {
      doc: 'half of `DB_POOL_SIZE`, at least 1',
      value: (v): number => Math.max(1, Math.floor(v.DB_POOL_SIZE / 2)),
    },
    example: '5',
    rule: {
      problem: 'must not be greater than DB_POOL_SIZE',
      holds: (streams, v): boolean => streams <= v.DB_POOL_SIZE,
    },
    doc: '`listOrders` answers longer than 5 000 orders (each holds a connection for its `COPY`) at once per instance; past it, 503 with `Retry-After`. Shorter lists are one statement and not counted',
  }),
  DB_MAX_STREAMS_PER_KEY: variable(wholeNumber(1, 1000), {
    default: {
      doc: 'a third of `DB_MAX_STREAMS`, rounded up',
      value: (v): number => Math.ceil(v.DB_MAX_STREAMS / 3),
    },
    example: '2',
    rule: {
      problem: 'must not be greater than DB_MAX_STREAMS',
      holds: (share, v): boolean => share <= v.DB_MAX_STREAMS,
    },
    doc: "each API key's share of `DB_MAX_STREAMS`: its streamed `listOrders` answers at once per instance; past it, 429 `RATE_LIMITED` with `Retry-After`, so one key's long lists cannot deny other keys theirs",
  }),
  API_KEY_CACHE_TTL_MS: variable(wholeNumber(0, 30_000), {
    default: 20_000,
    doc: 'how long what the database said of a key is trusted without asking again, valid or refused (at most 30 s: a revoked key stops working everywhere within 30 s, and a key refused just before it was made, such as a new `BOOTSTRAP_API_KEY`, works everywhere within 30 s); refused keys are kept apart, at most 10 000 per instance; `0` = always ask',
  }),
  IDEMPOTENCY_KEY_RETENTION_SECONDS: variable(wholeNumber(1, 31_536_000), {
    default: 86_400,
    doc: 'how long the answer to a request with an `Idempotency-Key` is remembered; after it the key is free again',
  }),
  IDEMPOTENCY_KEY_LOCK_SECONDS: variable(wholeNumber(1, 3600), {
    default: 10,
    rule: {
      problem: 'must be less than IDEMPOTENCY_KEY_RETENTION_SECONDS',
      // A record must outlive its lock: else a running request's key could expire under it.
      holds: (lock, v): boolean => lock < v.IDEMPOTENCY_KEY_RETENTION_SECONDS,
    },
    doc: 'how long a request holds its `Idempotency-Key` before a retry may take it over (a crashed instance cannot hold it for good); longer than a create can take, `DB_CONNECT_TIMEOUT_MS` + `DB_STATEMENT_TIMEOUT_MS`. A request that overruns it writes nothing and answers 409. A 503 that may leave a key held says `Retry-After` this plus 1 s',
  }),
  IDEMPOTENCY_PURGE_INTERVAL_SECONDS: variable(wholeNumber(1, 86_400), {
    default: 300,
    doc: 'how often each instance deletes expired `Idempotency-Key` records (batches of 1000, instances never wait on each other)',
  }),
  REDIS_URL: variable(url('redis:', 'rediss:'), {
    example: 'redis://127.0.0.1:6379',
    doc: 'Redis for rate limits shared by all instances; unset = in memory, per instance',
  }),
  RATE_LIMIT_PER_MINUTE: variable(wholeNumber(0, 1_000_000), {
    default: 600,
    doc: 'requests per minute per API key; `0` turns limiting off',
  }),
  RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: variable(wholeNumber(0, 1_000_000), {
    default: 60,
    doc: 'requests per minute per client address without a valid key; `0` = off',
  }),
  RATE_LIMIT_REDIS_PREFIX: variable(text('text'), {
    default: 'petstore:ratelimit:',
    doc: 'prefix of the Redis keys (several deployments can share one Redis)',
  }),
  TRUST_PROXY: variable(trustProxy, {
    example: 'loopback',
    doc: "proxies whose `X-Forwarded-For` is believed, in Express's `trust proxy` syntax; unset or `false` = none",
  }),
  CORS_ORIGINS: variable(origins, {
    default: { doc: 'none (CORS off)', value: (): string[] => [] },
    example: 'https://app.petstore.example',
    doc: 'origins allowed by CORS',
  }),
  KEEP_ALIVE_TIMEOUT_MS: variable(wholeNumber(1000, 3_600_000), {
    default: 65_000,
    doc: "idle keep-alive connections are kept this long: longer than a balancer's idle timeout (60 s is common), so the balancer closes first",
  }),
  HEADERS_TIMEOUT_MS: variable(wholeNumber(1000, 3_600_000), {
    default: 10_000,
    rule: {
      problem: 'must not be greater than REQUEST_TIMEOUT_MS',
      // Node's own rule (http.createServer refuses it): above it, Node swaps the two, and the
      // shorter one would cut whole requests.
      holds: (headers, v): boolean => headers <= v.REQUEST_TIMEOUT_MS,
    },
    doc: "time to receive a request's line and headers (at most 16 KiB), from its first byte; past it, 408 and the connection is closed. Idle keep-alive connections are not timed by it",
  }),
  REQUEST_TIMEOUT_MS: variable(wholeNumber(1000, 3_600_000), {
    default: 30_000,
    doc: 'time to receive a whole request, headers and body (at most 16 KiB each), from its first byte; past it, 408 and the connection is closed. Not a bound on the answer',
  }),
  SHUTDOWN_DRAIN_DELAY_MS: variable(wholeNumber(0, 600_000), {
    default: 5000,
    doc: 'after SIGTERM, readiness fails at once but requests are served this long',
  }),
  SHUTDOWN_TIMEOUT_MS: variable(wholeNumber(1000, 3_600_000), {
    default: 30_000,
    doc: 'bound on the whole shutdown; past it the process exits 1',
  }),
  WEBHOOK_DISPATCHER: variable(trueOrFalse, {
    default: true,
    doc: 'whether this instance sends webhook deliveries (events are recorded either way)',
  }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: variable(trueOrFalse, {
    default: false,
    doc: '`true` lets webhooks reach loopback and private addresses (local development, tests)',
  }),
  WEBHOOK_RETRY_SCHEDULE: variable(delaysInSeconds, {
    default: '5,30,120,600,3600,21600,43200',
    doc: 'seconds to wait before each retry of a failed delivery; after the last, the delivery has failed',
  }),
  WEBHOOK_POLL_INTERVAL_MS: variable(wholeNumber(50, 1500), {
    default: 500,
    doc: 'how often the dispatcher looks for due deliveries (so a first attempt starts within 2 s)',
  }),
  WEBHOOK_CONCURRENCY: variable(wholeNumber(1, 256), {
    // 8 left the dispatcher waiting on round trips: 666 deliveries/s against 2 000 with 64
    // (docs/performance.md, Whether the webhook dispatcher keeps up).
    default: 64,
    doc: 'webhook attempts in flight at once per instance (so up to that many requests at once to one receiver)',
  }),
  WEBHOOK_TIMEOUT_MS: variable(wholeNumber(100, 10_000), {
    default: 10_000,
    doc: 'an attempt without an answer by then has failed',
  }),
  WEBHOOK_CLAIM_TTL_MS: variable(wholeNumber(1000, 3_600_000), {
    default: 60_000,
    rule: {
      problem: 'must be greater than WEBHOOK_TIMEOUT_MS',
      // Otherwise a second instance could claim a delivery whose attempt is still running.
      holds: (claimTtl, v): boolean => claimTtl > v.WEBHOOK_TIMEOUT_MS,
    },
    doc: 'a delivery claimed by an instance that died is attempted again after this',
  }),
  WEBHOOK_DISABLE_AFTER_SECONDS: variable(wholeNumber(0, 31_536_000), {
    default: 432_000,
    doc: 'a subscription none of whose attempts has succeeded for this long since its first failure is disabled (`failing`); `0` never disables',
  }),
  WEBHOOK_RETENTION_DAYS: variable(wholeNumber(1, 3650), {
    default: 30,
    doc: 'finished (succeeded or failed) deliveries and their attempts are deleted this many days after their event',
  }),
  // Tracing (docs/operating.md, Tracing): the standard OpenTelemetry variables, read by the
  // OpenTelemetry SDK as its specification says; declared here for the docs, the checks and
  // the default service name. The SDK reads the other OTEL_* variables as well.
  OTEL_EXPORTER_OTLP_ENDPOINT: variable(url('http:', 'https:'), {
    example: 'http://127.0.0.1:4318',
    doc: 'OTLP receiver (a Collector, Jaeger, Tempo); set = tracing on (unless `OTEL_TRACES_EXPORTER=none`); unset with tracing on: `http://localhost:4318`',
  }),
  OTEL_TRACES_EXPORTER: variable(text('`otlp`, `console` or `none`'), {
    whenUnset: '`otlp` if `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else tracing off',
    example: 'otlp',
    doc: '`otlp` = tracing on (to `OTEL_EXPORTER_OTLP_ENDPOINT`), `none` = off. Off: no instrumentation is loaded, nothing is sent',
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: variable(oneOf(['http/protobuf', 'http/json', 'grpc']), {
    default: 'http/protobuf',
    doc: 'how spans are sent to the OTLP receiver',
  }),
  OTEL_SERVICE_NAME: variable(text('a name'), {
    default: 'petstore-api',
    doc: "the spans' `service.name`",
  }),
  OTEL_TRACES_SAMPLER: variable(
    oneOf([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ]),
    {
      default: 'parentbased_always_on',
      doc: "which traces are kept; `parentbased_traceidratio` with `OTEL_TRACES_SAMPLER_ARG=0.1`: a tenth of new traces, and a caller's sampled trace always",
    },
  ),
  OTEL_TRACES_SAMPLER_ARG: variable(
    matching(/^(0(\.[0-9]+)?|1(\.0+)?)$/, 'a ratio from 0 to 1', 'a ratio from 0 to 1'),
    {
      whenUnset: '`1`',
      example: '0.1',
      doc: 'the ratio of the `traceidratio` samplers',
    },
  ),
  OTEL_SDK_DISABLED: variable(trueOrFalse, {
    default: false,
    doc: '`true` = tracing off whatever the other OTEL_* variables say',
  }),
};

type ConfigName = keyof typeof CONFIG_VARIABLES;

/**
 * Each variable's value: its type comes from its kind, `| undefined` when it has no default. An
 * interface, which TypeScript resolves lazily, so that the table's entries can name it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a type alias would be circular
export interface ConfigValues extends ValuesOf<typeof CONFIG_VARIABLES> {}
type ValuesOf<Table> = { [K in keyof Table]: ValueOf<Table[K]> };

/** The fixed defaults, as they are written in the environment. */
export const CONFIG_DEFAULTS = Object.fromEntries(
  configVariableEntries().flatMap(([name, { default: fixed }]) =>
    fixed === undefined || typeof fixed === 'object' ? [] : [[name, fixed]],
  ),
) as FixedDefaults;

type Env = Record<string, string | undefined>;

/**
 * Every variable's value: set and not blank, it is parsed by its kind; unset, its default
 * applies. A default computed from other variables sees every other value (computed defaults
 * above it included). Rules are checked last, on the variables that have a value.
 */
export function readConfigVariables(env: Env): ConfigValues {
  const entries = configVariableEntries();
  const values: Partial<Record<ConfigName, unknown>> = {};
  for (const [name, { kind, default: fallback }] of entries) {
    const set = env[name]?.trim();
    if (set !== undefined && set !== '') {
      values[name] = kind.parse(set, name);
    } else if (fallback === undefined) {
      values[name] = undefined;
    } else if (typeof fallback !== 'object') {
      values[name] = kind.parse(String(fallback), name);
    }
  }
  // Complete once every default has been applied; the rules and computed defaults read it.
  const complete = values as ConfigValues;
  for (const [name, { default: fallback }] of entries) {
    if (typeof fallback === 'object' && !(name in values)) {
      values[name] = fallback.value(complete, env);
    }
  }
  for (const [name, { rule }] of entries) {
    if (rule !== undefined && values[name] !== undefined && !rule.holds(values[name], complete)) {
      throw new ConfigError(name, rule.problem);
    }
  }
  return complete;
}

/** The table's entries in order, for code that walks it. */
export function configVariableEntries(): [ConfigName, AnyConfigVariable][] {
  const table: Record<ConfigName, AnyConfigVariable> = CONFIG_VARIABLES;
  return Object.entries(table) as [ConfigName, AnyConfigVariable][];
}

/** A default computed from other variables or the environment. */
export interface ComputedDefault<T> {
  /** The default as docs/configuration.md states it. */
  readonly doc: string;
  value(values: ConfigValues, env: Env): T;
}

/** A condition a variable's value must meet with others'; `problem` completes "NAME …". */
export interface Rule<T> {
  readonly problem: string;
  holds(value: T, values: ConfigValues): boolean;
}

/** How a fixed default is written: as in the environment. */
type Written<T> = [T] extends [number]
  ? number
  : [T] extends [boolean]
    ? boolean
    : [T] extends [string]
      ? T
      : string;

/** One entry as the table declares it (see CONFIG_VARIABLES). */
type VariableSpec<T> = {
  /** One line for docs/configuration.md (Markdown) and .env.example. */
  readonly doc: string;
  readonly rule?: Rule<NonNullable<T>>;
} & (
  | {
      /** The value when unset, written as in the environment; `.env.example` shows it. */
      readonly default: Written<T>;
      readonly example?: undefined;
    }
  | {
      readonly default: ComputedDefault<T>;
      /** A valid value for `.env.example` (and the tests). */
      readonly example: string;
    }
  | {
      readonly default?: undefined;
      /** What an unset variable means, for the docs' default column; `unset` if not given. */
      readonly whenUnset?: string;
      readonly example: string;
    }
);

function variable<T, S extends VariableSpec<T>>(
  kind: ValueKind<T>,
  spec: S,
): S & { readonly kind: ValueKind<T> } {
  return { ...spec, kind };
}

/** Any entry of the table, for code that walks it. */
export interface AnyConfigVariable {
  readonly kind: ValueKind<unknown>;
  readonly doc: string;
  readonly default?: string | number | boolean | ComputedDefault<unknown>;
  readonly whenUnset?: string;
  readonly example?: string;
  readonly rule?: Rule<unknown>;
}

type ValueOf<V> = V extends { readonly kind: ValueKind<infer T> }
  ? V extends { readonly default: string | number | boolean | object }
    ? T
    : T | undefined
  : never;

type FixedDefaults = {
  [K in ConfigName as FixedDefault<Table[K]> extends never ? never : K]: FixedDefault<Table[K]>;
};
type FixedDefault<V> = V extends { readonly default: infer D extends string | number | boolean }
  ? D
  : never;
type Table = typeof CONFIG_VARIABLES;
