import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { hostOf, resolveTarget, TargetError, type ResolvedAddress } from './webhook-target.js';

/** Of the receiver's answer, at most this much is read (and thrown away). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The longest a receiver's Retry-After may hold a delivery back. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export interface AttemptResult {
  ok: boolean;
  /** The receiver's HTTP status, when it answered. */
  responseStatus: number | null;
  durationMs: number;
  /** Why it failed, short and free of secrets and bodies (for the attempt record and the log). */
  error: string | null;
  /** How long a 429 or 503 asked to wait (Retry-After), at most MAX_RETRY_AFTER_MS; else null. */
  retryAfterMs: number | null;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  userAgent?: string;
}

/**
 * POSTs one delivery. The target's addresses are resolved and checked here, at every attempt,
 * and the connection goes to exactly those addresses (a name that resolves to a public address
 * when the subscription is made and to a private one later — DNS rebinding — is refused).
 * No redirects are followed (any 3xx is a failure); the whole attempt, answer included, has
 * `timeoutMs`; only 2xx is success.
 */
export async function sendDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (
    result: Omit<AttemptResult, 'durationMs' | 'retryAfterMs'>,
    retryAfterMs: number | null = null,
  ): AttemptResult => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
    retryAfterMs,
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return done({ ok: false, responseStatus: null, error: 'invalid URL' });
  }
  let deadline: NodeJS.Timeout | undefined;
  const timedOut = new Promise<AttemptResult>((resolve) => {
    deadline = setTimeout(
      () => resolve(done({ ok: false, responseStatus: null, error: 'timeout' })),
      options.timeoutMs,
    );
  });
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal?.addEventListener('abort', abort, { once: true });
  const attempt = (async () => {
    const addresses = await resolveTarget(hostOf(target), options.allowPrivateTargets);
    const { status, retryAfter } = await post(
      target,
      addresses,
      headers,
      body,
      controller.signal,
      options,
    );
    return done(
      {
        ok: status >= 200 && status < 300,
        responseStatus: status,
        error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
      },
      status === 429 || status === 503 ? retryAfterMs(retryAfter) : null,
    );
  })().catch((error: unknown) => done({ ok: false, responseStatus: null, error: describe(error) }));
  try {
    return await Promise.race([attempt, timedOut]);
  } finally {
    clearTimeout(deadline);
    controller.abort();
    signal?.removeEventListener('abort', abort);
  }
}

function post(
  target: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  options: SendOptions,
): Promise<{ status: number; retryAfter: string | undefined }> {
  // Hand the connection the addresses checked above, never a second answer from DNS.
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    const { all } = lookupOptions as { all?: boolean };
    if (all) {
      (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, addresses);
    } else {
      callback(null, addresses[0].address, addresses[0].family);
    }
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': options.userAgent ?? 'petstore-webhooks/1',
        },
        lookup: pinned,
        agent: false,
        signal,
      },
      (response) => {
        const answer = {
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
        };
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) {
            response.destroy();
            resolve(answer);
          }
        });
        response.on('end', () => resolve(answer));
        response.on('error', () => resolve(answer));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * A Retry-After header's wait (RFC 9110: whole seconds, or an HTTP date), at most
 * MAX_RETRY_AFTER_MS; null when absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    const at = Date.parse(text);
    if (Number.isNaN(at) || !/GMT$/.test(text)) return null;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

function describe(error: unknown): string {
  if (error instanceof TargetError) return error.message;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}
