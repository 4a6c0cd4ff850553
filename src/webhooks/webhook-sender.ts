import http from 'node:http';
import https from 'node:https';
import type { ReceiverConnections } from './webhook-connections.js';
import {
  hostOf,
  resolveTarget,
  TargetError,
  type HostLookup,
  type ResolvedAddress,
} from './webhook-target.js';

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
  /** The keep-alive connections the attempt goes over. */
  connections: ReceiverConnections;
  userAgent?: string;
  /** Resolves the target's name (the system's resolver unless given: tests give their own). */
  lookupHost?: HostLookup;
}

/**
 * POSTs one delivery. The target's addresses are resolved and checked here, at every attempt,
 * and the request goes over a kept-alive connection to exactly those addresses (a name that
 * resolves to a public address when the subscription is made and to a private one later — DNS
 * rebinding — is refused before any connection is chosen; other addresses get other
 * connections). No redirects are followed (any 3xx is a failure); the whole attempt, answer
 * included, has `timeoutMs`; only 2xx is success.
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
  const controller = new AbortController();
  let deadline: NodeJS.Timeout | undefined;
  const timedOut = new Promise<AttemptResult>((resolve) => {
    deadline = setTimeout(() => {
      controller.abort();
      resolve(done({ ok: false, responseStatus: null, error: 'timeout' }));
    }, options.timeoutMs);
  });
  const abort = () => controller.abort();
  signal?.addEventListener('abort', abort, { once: true });
  const attempt = (async () => {
    const addresses = await resolveTarget(
      hostOf(target),
      options.allowPrivateTargets,
      options.lookupHost,
    );
    const send = () => post(target, addresses, headers, body, controller.signal, options);
    // A receiver may close an idle connection just as it is reused: the request never reached
    // it, so it goes once more, over another connection.
    const { status, retryAfter } = await send().catch((error: unknown) => {
      if (error instanceof StaleConnectionError) return send();
      throw error;
    });
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
    // Not aborted when it ended: its connection goes back to the pool.
    clearTimeout(deadline);
    signal?.removeEventListener('abort', abort);
  }
}

/** A kept-alive connection that the receiver had closed before the request could go. */
class StaleConnectionError extends Error {}

/** Errors of a reused connection the receiver closed before it read the request. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE']);

function post(
  target: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  options: SendOptions,
): Promise<{ status: number; retryAfter: string | undefined }> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': options.userAgent ?? 'petstore-webhooks/1',
        },
        // Pinned to `addresses`: the pool's connections go nowhere else.
        agent: options.connections.poolFor(target, addresses),
        signal,
      },
      (response) => {
        answered = true;
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
    options.connections.track(request);
    request.on('error', (error: Error & { code?: string }) => {
      const stale =
        request.reusedSocket && !answered && STALE_CONNECTION_CODES.has(error.code ?? '');
      reject(stale ? new StaleConnectionError(error.message) : error);
    });
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
  if (error instanceof StaleConnectionError) return 'ECONNRESET';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}
