import autocannon from 'autocannon';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { backendCpuBetween, type BackendCpu } from './postgres-cpu.js';
import type { ServerProcess } from './processes.js';
import { median } from './service.js';

/** One autocannon run against one server. */
export interface LoadResult {
  requests: number;
  /** Requests sent, answered or not (the last ones of a run are cut off unanswered). */
  sent: number;
  durationS: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Answers with another status than the expected one (a 200 where a 201 is due, too). */
  unexpectedStatus: number;
  statusCodes: Record<string, number>;
  /** CPU time the server process used per answered request (µs), noise-resistant. */
  serverCpuUsPerRequest: number | null;
  /** Of which its threads other than the main one (µs), when measured. */
  serverOtherThreadsCpuUsPerRequest: number | null;
  /** CPU time PostgreSQL's backends used per answered request (µs). */
  postgresCpuUsPerRequest: number | null;
  /** The machine's 1-minute load average when the run started. */
  loadAverage: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  /** Stop after this many requests instead of after durationS. */
  amount?: number;
  expectedStatus: number;
  requests: autocannon.Request[];
  headers: Record<string, string>;
  /** Reads the server process's CPU time (ms). */
  serverCpuMs: () => number | null;
  /** Reads the CPU time of its threads other than the main one (ms). */
  serverOtherThreadsCpuMs?: () => number | null;
  /** Snapshots the CPU time of PostgreSQL's backends (absent: not measured). */
  postgresCpu?: () => Promise<BackendCpu | null>;
}

/** Autocannon at pipelining 1, in this process. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const loadAverage = Number(loadavg()[0]?.toFixed(2));
  const postgresBefore = (await options.postgresCpu?.()) ?? null;
  const cpuBefore = options.serverCpuMs();
  const otherBefore = options.serverOtherThreadsCpuMs?.() ?? null;
  // Autocannon notices the end of a run of a fixed `amount` only at its next whole second (its
  // duration says so too): the run lasts until the last answer arrived.
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        duration: options.durationS,
        ...(options.amount === undefined ? {} : { amount: options.amount }),
        timeout: 10,
        headers: options.headers,
        requests: options.requests,
      },
      (error: Error | null, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', () => {
      lastAnswer = performance.now();
    });
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = stats.count ?? 0;
  }
  const expected = statusCodes[String(options.expectedStatus)] ?? 0;
  const answered = Object.values(statusCodes).reduce((sum, count) => sum + count, 0);
  const elapsedS = (lastAnswer - started) / 1000;
  const cpuAfter = options.serverCpuMs();
  const otherAfter = options.serverOtherThreadsCpuMs?.() ?? null;
  const postgresMs = backendCpuBetween(postgresBefore, (await options.postgresCpu?.()) ?? null);
  return {
    requests: result.requests.total,
    sent: result.requests.sent,
    durationS: elapsedS,
    requestsPerSecond: elapsedS > 0 ? result.requests.total / elapsedS : 0,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    unexpectedStatus: answered - expected,
    statusCodes,
    serverCpuUsPerRequest: usPerRequest(cpuBefore, cpuAfter, answered),
    serverOtherThreadsCpuUsPerRequest: usPerRequest(otherBefore, otherAfter, answered),
    postgresCpuUsPerRequest:
      postgresMs === null || answered === 0 ? null : (postgresMs * 1000) / answered,
    loadAverage,
  };
}

/** CPU time between two readings (ms) per answered request, in µs; null when either is missing. */
function usPerRequest(
  beforeMs: number | null,
  afterMs: number | null,
  answered: number,
): number | null {
  return beforeMs === null || afterMs === null || answered === 0
    ? null
    : ((afterMs - beforeMs) * 1000) / answered;
}

/** One GET of the whole order list: time to the last byte and what came back. */
export interface ListFetch {
  status: number;
  ms: number;
  bytes: number;
  /** Elements of the JSON array; null when the body is not a well-formed array of objects. */
  count: number | null;
  /** The keys of the first element, to compare with the service's shape. */
  firstKeys: string[];
  /** SHA-256 of the body (hex), when asked for. */
  sha256?: string;
  error?: string;
}

/** `digest`: also hash the body, after the clock stops, to compare it with another server's. */
export function fetchOrderList(
  url: string,
  apiKey: string,
  timeoutMs: number,
  digest = false,
): Promise<ListFetch> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const elapsed = (): number => Number(process.hrtime.bigint() - started) / 1e6;
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const finish = (result: ListFetch): void => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    const req = request(
      url,
      { agent: false, headers: { Authorization: `Bearer ${apiKey}` }, timeout: timeoutMs },
      (response) => {
        response.on('data', (chunk: Buffer) => {
          // Keep the chunks and look at them after the clock stops: the client must not slow
          // the server down by parsing while it sends.
          chunks.push(chunk);
          bytes += chunk.length;
        });
        response.on('end', () => {
          const ms = elapsed();
          const status = response.statusCode ?? 0;
          const shape = status === 200 ? scanArray(chunks) : { count: null, first: null };
          let firstKeys: string[] = [];
          if (shape.first !== null) {
            try {
              firstKeys = Object.keys(JSON.parse(shape.first) as object);
            } catch {
              shape.count = null;
            }
          }
          let sha256: string | undefined;
          if (digest) {
            const hash = createHash('sha256');
            for (const chunk of chunks) hash.update(chunk);
            sha256 = hash.digest('hex');
          }
          finish({
            status,
            ms,
            bytes,
            count: shape.count,
            firstKeys,
            sha256,
            error:
              status !== 200
                ? `HTTP ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`
                : shape.count === null
                  ? 'the body is not a well-formed JSON array'
                  : undefined,
          });
        });
        response.on('error', (error) =>
          finish({
            status: response.statusCode ?? 0,
            ms: elapsed(),
            bytes,
            count: null,
            firstKeys: [],
            error: `response: ${error.message}`,
          }),
        );
        response.on('aborted', () =>
          finish({
            status: response.statusCode ?? 0,
            ms: elapsed(),
            bytes,
            count: null,
            firstKeys: [],
            error: 'the server cut the response short',
          }),
        );
      },
    );
    req.on('timeout', () => {
      req.destroy(new Error(`no complete answer within ${timeoutMs} ms`));
    });
    req.on('error', (error) =>
      finish({ status: 0, ms: elapsed(), bytes, count: null, firstKeys: [], error: error.message }),
    );
    req.end();
  });
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Counts the elements of a top-level JSON array of objects without building them (a million
 * orders would cost the harness seconds and hundreds of MB), and returns the first element's
 * text. Strings are skipped properly; a truncated or unbalanced body gives count null.
 */
function scanArray(chunks: Buffer[]): { count: number | null; first: string | null } {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let count = 0;
  let started = false;
  let closed = false;
  let firstStart = -1;
  let first: string | null = null;
  let offset = 0;
  for (let c = 0; c < chunks.length; c++) {
    const chunk = chunks[c];
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
        continue;
      }
      if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
        if (depth === 0) {
          if (byte !== OPEN_BRACKET || started) return { count: null, first: null };
          started = true;
        } else if (depth === 1) {
          if (byte !== OPEN_BRACE) return { count: null, first: null };
          count++;
          if (count === 1) firstStart = offset + i;
        }
        depth++;
      } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
        depth--;
        if (depth === 1 && first === null && firstStart >= 0) {
          const upToHere = c === 0 ? chunk : Buffer.concat(chunks.slice(0, c + 1));
          first = upToHere.subarray(firstStart, offset + i + 1).toString('utf8');
        }
        if (depth === 0) closed = true;
        if (depth < 0) return { count: null, first: null };
      }
    }
    offset += chunk.length;
  }
  return closed && depth === 0 ? { count, first } : { count: null, first: null };
}

/**
 * `amount` authenticated GETs of `path` on `server` at `connections` (200 expected), its
 * server CPU counted: the small-GET load of the pieces and tracing benches.
 */
export function loadGets(
  server: ServerProcess,
  path: string,
  apiKey: string,
  connections: number,
  amount: number,
): Promise<LoadResult> {
  return runLoad({
    url: `${server.baseUrl}${path}`,
    connections,
    durationS: 600,
    amount,
    expectedStatus: 200,
    headers: { authorization: `Bearer ${apiKey}` },
    requests: [{ method: 'GET' }],
    serverCpuMs: () => server.cpuMs(),
    serverOtherThreadsCpuMs: () => server.otherThreadsCpuMs(),
  });
}

/**
 * The median over the rounds of `combine(pick(mine[i]), pick(theirs[i]))`: two processes
 * compared within each round, so the machine's drift from round to round (its load, the
 * processes' warming) cancels. Rounds where either figure is missing are left out.
 */
export function pairedMedian(
  mine: readonly LoadResult[],
  theirs: readonly LoadResult[],
  pick: (result: LoadResult) => number | null,
  combine: (mine: number, theirs: number) => number,
): number {
  return median(
    mine.flatMap((result, round) => {
      const a = pick(result);
      const other = theirs[round];
      const b = other ? pick(other) : null;
      return typeof a === 'number' && typeof b === 'number' ? [combine(a, b)] : [];
    }),
  );
}
