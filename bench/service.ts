/**
 * The built service (dist/main.js) as production runs it, for the v2 harnesses (explain.ts,
 * v2.ts, webhooks.ts), and the HTTP reads they share.
 */
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { freePort, startServer, type ServerProcess } from './processes.js';
import { productionNodeOptions } from './production-runtime.js';

const ROOT = resolve(import.meta.dirname, '..');

export interface ServiceOptions {
  workDir: string;
  databaseUrl: string;
  apiKey: string;
  /** Added to (or overriding) the production settings. */
  env?: Record<string, string>;
  /** Node options before dist/main.js (default: the image's tracing preload). */
  nodeArgs?: string[];
  /** The Node binary (default: the harness's own). */
  node?: string;
  /** What to run (default: dist/main.js); it reads the same environment. */
  script?: string;
  /** The process's name in reports (default: service). */
  name?: string;
  /** How long its start may take (default: startServer's). */
  startTimeoutMs?: number;
}

/** The limiter's setting in production runs: on, and never reached by the bench's load. */
export const PRODUCTION_RATE_LIMIT_PER_MINUTE = '1000000';

/**
 * Production settings: NODE_ENV=production, the image's NODE_OPTIONS, the limiter on at 1 000 000 requests a minute (one
 * key sending thousands a second stays under it, so every request is counted), request logs
 * at info as JSON, to a file in the work folder, metrics on; nothing from the developer's shell.
 */
export async function startProductionService(options: ServiceOptions): Promise<ServerProcess> {
  const port = await freePort();
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'LANG', 'TZ'].flatMap((name) =>
      process.env[name] === undefined ? [] : [[name, process.env[name]]],
    ),
  ) as Record<string, string>;
  return startServer({
    name: options.name ?? 'service',
    script: options.script ?? join(ROOT, 'dist', 'main.js'),
    // As the image's CMD runs it.
    nodeArgs: options.nodeArgs ?? ['--import', join(ROOT, 'dist', 'tracing', 'register.js')],
    node: options.node,
    cwd: options.workDir,
    port,
    readyPath: '/health/ready',
    timeoutMs: options.startTimeoutMs,
    stdoutFile: join(options.workDir, `${options.name ?? 'service'}.log`),
    env: {
      ...inherited,
      NODE_ENV: 'production',
      NODE_OPTIONS: productionNodeOptions(),
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      BOOTSTRAP_API_KEY: options.apiKey,
      RATE_LIMIT_PER_MINUTE: PRODUCTION_RATE_LIMIT_PER_MINUTE,
      // Metrics on, as docker-compose runs it (on a free port: nothing scrapes it here).
      METRICS_PORT: '0',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      ...options.env,
    },
  });
}

export interface JsonAnswer {
  status: number;
  body: unknown;
}

/** GET `path` with the bearer key; the body parsed as JSON (null when it is not JSON). */
export function getJson(baseUrl: string, path: string, apiKey: string): Promise<JsonAnswer> {
  return new Promise((resolvePromise, reject) => {
    const req = request(
      `${baseUrl}${path}`,
      { agent: false, headers: { Authorization: `Bearer ${apiKey}` }, timeout: 60_000 },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let body: unknown = null;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: body stays null
          }
          resolvePromise({ status: response.statusCode ?? 0, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

interface PageBody {
  data: unknown[];
  nextCursor: string | null;
}

function isPage(body: unknown): body is PageBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as PageBody).data) &&
    ((body as PageBody).nextCursor === null || typeof (body as PageBody).nextCursor === 'string')
  );
}

/**
 * A nextCursor issued by the service after `skip` items of `listPath` (a v2 list with its
 * filters, no limit): the pages are walked, 1 000 items at a time, as a client would. The
 * cursor is the service's own (it binds the query with an HMAC), not one made up here.
 */
export async function cursorAfter(
  baseUrl: string,
  apiKey: string,
  listPath: string,
  skip: number,
): Promise<string> {
  const separator = listPath.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  for (let passed = 0; passed < skip;) {
    const limit = Math.min(1000, skip - passed);
    const path: string = `${listPath}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const answer = await getJson(baseUrl, path, apiKey);
    if (answer.status !== 200 || !isPage(answer.body)) {
      throw new Error(`GET ${path} answered ${answer.status}, not a page`);
    }
    passed += answer.body.data.length;
    cursor = answer.body.nextCursor;
    if (cursor === null) throw new Error(`${listPath} ends after ${passed} items, before ${skip}`);
  }
  if (cursor === null) throw new Error('cursorAfter: skip must be at least 1');
  return cursor;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
