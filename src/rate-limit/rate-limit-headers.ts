import type { ServerResponse } from 'node:http';
import type { RateLimitResult } from './rate-limit.storage.js';

/** One-minute windows; a caller over its limit waits for a minute from its last counted hit. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const RATE_LIMIT_BLOCK_MS = 60_000;

/**
 * The headers of a counted request under its limit: the plain X-RateLimit-Limit, -Remaining
 * and -Reset that clients know (docs/api.md). Free of Nest, so that the bench's bare servers
 * send the same bytes from the same code.
 */
export function setCountedHeaders(
  response: ServerResponse,
  limit: number,
  counted: RateLimitResult,
): void {
  response.setHeader('X-RateLimit-Limit', limit);
  response.setHeader('X-RateLimit-Remaining', Math.max(0, limit - counted.totalHits));
  response.setHeader('X-RateLimit-Reset', counted.timeToExpire);
}

/** The headers of a 429: Retry-After, and the X-RateLimit headers, as GitHub and most APIs do. */
export function setBlockedHeaders(response: ServerResponse, limit: number, seconds: number): void {
  response.setHeader('Retry-After', seconds);
  response.setHeader('X-RateLimit-Limit', limit);
  response.setHeader('X-RateLimit-Remaining', 0);
  response.setHeader('X-RateLimit-Reset', seconds);
}
