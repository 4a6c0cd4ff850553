import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/*
 * What the bench takes from the service itself rather than copying it: sizes, SQL, settings,
 * loaded from the build of the service under test (a dist/ folder), so what the bench measures
 * against is what ships. `npm run typecheck` checks these names and types against src/
 * (service-build.check.ts); at run time each one is checked here, and a missing one stops the
 * run with its module and name.
 */

/** The order list's size limit: the harness reads it (order.repository.js loads Nest and TypeORM). */
export interface ServiceListSizes {
  /** Lists up to this long are one statement; longer ones one COPY in a read-only transaction. */
  LIST_SINGLE_QUERY_ROWS: number;
}

/** The part of the service's configuration (its AppConfig) the bare servers read. */
export interface ServiceConfig {
  databaseUrl: string | undefined;
  db: {
    poolSize: number;
    connectTimeoutMs: number;
    statementTimeoutMs: number;
    streamTimeoutMs: number;
  };
  rateLimit: { perKeyPerMinute: number };
  http: { keepAliveTimeoutMs: number };
  changelogUrl: string;
  petsDeprecatedAt: Date;
  petsSunsetAt: Date;
}

/** A count of the service's rate-limit storage (src/rate-limit/rate-limit.storage.ts). */
export interface RateLimitCount {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/** SQL text and its parameters, as the service's statement builders make them. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/**
 * What the bare servers load: statement builders and configuration, built without Nest
 * (src/…/…-statements.ts). Their methods are declared as methods: the service's objects have
 * more of them, and take the service's own types.
 */
export interface ServiceStatements {
  orderStatements: {
    listAll(): Statement;
    cancelIfPending(id: string): Statement;
  };
  categoryStatements: {
    listAll(): Statement;
    insertUnlessNameTaken(name: string, description: string | null): Statement;
  };
  petStatements: { findByIdWithCategory(id: string): Statement };
  /** The security headers of every API answer, in the order the service sets them. */
  API_SECURITY_HEADERS: ReadonlyArray<readonly [string, string]>;
  /** The limiter's in-memory counts, and the headers of a counted request. */
  MemoryRateLimitStorage: new () => {
    hit(key: string, windowMs: number, limit: number, blockMs: number): RateLimitCount;
  };
  setCountedHeaders(response: ServerResponse, limit: number, counted: RateLimitCount): void;
  RATE_LIMIT_WINDOW_MS: number;
  RATE_LIMIT_BLOCK_MS: number;
  /** An order's JSON; the raw baseline checks its own renderers against fromText at start-up. */
  ORDER_JSON: { fromText(row: Array<string | null>): string };
  /** The service's own reading of the environment: the same variables, defaults and checks. */
  loadConfig: (env: Record<string, string | undefined>) => ServiceConfig;
  /**
   * GET /v1/pets/{id}'s deprecation headers, by pet id. A method, so that its parameter may be
   * the service's whole AppConfig, which is what loadConfig gives it.
   */
  petDeprecationHeaders(
    config: ServiceConfig,
  ): (petId: unknown) => ReadonlyArray<readonly [string, string]>;
}

/** Where each name lives in dist/ (and in src/, as .ts). */
export const SERVICE_MODULES = {
  LIST_SINGLE_QUERY_ROWS: 'store/order.repository.js',
  orderStatements: 'store/order-statements.js',
  categoryStatements: 'categories/category-statements.js',
  petStatements: 'pets/pet-statements.js',
  ORDER_JSON: 'store/order-json.js',
  loadConfig: 'config/app-config.js',
  petDeprecationHeaders: 'pets/pets-deprecation.js',
  API_SECURITY_HEADERS: 'common/http/security-headers.js',
  MemoryRateLimitStorage: 'rate-limit/memory-rate-limit.storage.js',
  setCountedHeaders: 'rate-limit/rate-limit-headers.js',
  RATE_LIMIT_WINDOW_MS: 'rate-limit/rate-limit-headers.js',
  RATE_LIMIT_BLOCK_MS: 'rate-limit/rate-limit-headers.js',
} as const;

type Kind = 'number' | 'object' | 'function';

async function load<T>(dist: string, names: Record<string, Kind>): Promise<T> {
  const loaded: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(names)) {
    const file = join(dist, SERVICE_MODULES[name as keyof typeof SERVICE_MODULES]);
    let exported: Record<string, unknown>;
    try {
      exported = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      throw new Error(
        `the bench needs ${name} from ${file}, which does not load: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const value = exported[name];
    if (typeof value !== kind || value === null) {
      throw new Error(
        `the bench needs ${name} (a ${kind}) from ${file}: ${value === undefined ? 'it does not export it' : `it is a ${typeof value}`}`,
      );
    }
    loaded[name] = value;
  }
  return loaded as T;
}

export async function loadListSizes(dist: string): Promise<ServiceListSizes> {
  const sizes = await load<ServiceListSizes>(dist, { LIST_SINGLE_QUERY_ROWS: 'number' });
  if (!Number.isInteger(sizes.LIST_SINGLE_QUERY_ROWS) || sizes.LIST_SINGLE_QUERY_ROWS < 1) {
    throw new Error(`LIST_SINGLE_QUERY_ROWS is ${sizes.LIST_SINGLE_QUERY_ROWS}, not a count`);
  }
  return sizes;
}

export async function loadStatements(dist: string): Promise<ServiceStatements> {
  return load<ServiceStatements>(dist, {
    orderStatements: 'object',
    categoryStatements: 'object',
    petStatements: 'object',
    ORDER_JSON: 'object',
    loadConfig: 'function',
    petDeprecationHeaders: 'function',
    API_SECURITY_HEADERS: 'object',
    MemoryRateLimitStorage: 'function',
    setCountedHeaders: 'function',
    RATE_LIMIT_WINDOW_MS: 'number',
    RATE_LIMIT_BLOCK_MS: 'number',
  });
}
