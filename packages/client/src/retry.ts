import { PetstoreConnectionError, PetstoreTimeoutError } from './errors.js';

/** What a call may set for itself; each falls back to the client's setting. */
export interface RequestOptions {
  /** Retries after the first attempt (the client's default is 2). 0 turns retries off. */
  maxRetries?: number;
  /** Time allowed for each attempt, in milliseconds (the client's default is 60 000). */
  timeoutMs?: number;
  /** Aborts the call, between or during attempts. */
  signal?: AbortSignal;
}

export interface RetryPolicy {
  maxRetries: number;
  timeoutMs: number;
  fetch: (request: Request) => Promise<Response>;
  /** Waits between attempts; tests replace it to count the waits. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** In [0, 1): the backoff's jitter. */
  random: () => number;
}

/** The first backoff, without Retry-After; it doubles on each retry, up to MAX_BACKOFF_MS. */
const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is not waited for: the call fails with the answer instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Methods that HTTP defines as safe to repeat. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Failures where no request reached the server, so even a create without an Idempotency-Key
 * can be sent again. Node's fetch names them in the error's cause; a browser does not, and
 * there such a create is not retried.
 */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * A fetch that retries what is safe to retry (README "Retries"):
 * - a request that can run twice without harm (an idempotent method, an Idempotency-Key, or
 *   an operation the API declares safe to repeat: `repeatable`) after a connection error, a
 *   timeout, 429, 503 or 409 IDEMPOTENCY_KEY_IN_USE;
 * - any other request only when it cannot have run: 429 (refused before it ran) or a
 *   connection that never opened.
 * Waits honour Retry-After; without it, exponential backoff with jitter.
 */
export function retryingFetch(
  policy: RetryPolicy,
  call: { repeatable?: boolean } & RequestOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = call.maxRetries ?? policy.maxRetries;
  const timeoutMs = call.timeoutMs ?? policy.timeoutMs;
  return async (request) => {
    const repeatable =
      call.repeatable === true ||
      IDEMPOTENT_METHODS.has(request.method) ||
      request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signals = call.signal ? [call.signal, timeout] : [timeout];
      let response: Response;
      try {
        // A clone per attempt: each attempt consumes its body, the original stays whole.
        response = await policy.fetch(
          new Request(request.clone(), { signal: AbortSignal.any(signals) }),
        );
      } catch (error) {
        if (call.signal?.aborted) throw error;
        const timedOut = timeout.aborted;
        if (attempt < maxRetries && (repeatable || (!timedOut && neverSent(error)))) {
          await policy.sleep(backoffMs(attempt, policy.random), call.signal);
          continue;
        }
        throw timedOut
          ? new PetstoreTimeoutError(`no answer within ${timeoutMs} ms`, { cause: error })
          : new PetstoreConnectionError(`the request failed: ${describe(error)}`, {
              cause: error,
            });
      }
      if (attempt >= maxRetries || !(await isRetried(response, repeatable))) return response;
      const waitMs = retryAfterMs(response.headers.get('retry-after'));
      if (waitMs !== undefined && waitMs > MAX_RETRY_AFTER_MS) return response;
      await response.body?.cancel();
      await policy.sleep(waitMs ?? backoffMs(attempt, policy.random), call.signal);
    }
  };
}

async function isRetried(response: Response, repeatable: boolean): Promise<boolean> {
  if (response.status === 429) return true;
  if (!repeatable) return false;
  if (response.status === 503) return true;
  if (response.status !== 409) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return (body as { code?: unknown } | undefined)?.code === 'IDEMPOTENCY_KEY_IN_USE';
}

/** Exponential from INITIAL_BACKOFF_MS, capped, less up to a quarter at random. */
export function backoffMs(attempt: number, random: () => number): number {
  const ms = Math.min(INITIAL_BACKOFF_MS * 2 ** attempt, MAX_BACKOFF_MS);
  return Math.round(ms * (1 - 0.25 * random()));
}

/** Retry-After as seconds or as an HTTP date, in milliseconds from now; undefined if absent. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' && NEVER_SENT_CODES.has(cause.code);
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after `ms`, or rejects when the signal aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
