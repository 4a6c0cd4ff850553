/** Where the rate limiter keeps its counts: this process's memory, or Redis. */
export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

/** The state of one caller's counter after counting a request. Times in whole seconds. */
export interface RateLimitResult {
  /** Requests counted in the current window, this one included. */
  totalHits: number;
  /** Seconds until the current window ends. */
  timeToExpire: number;
  /** The caller is over its limit: refuse the request. */
  isBlocked: boolean;
  /** Seconds until the block ends (0 when not blocked). */
  timeToBlockExpire: number;
}

/**
 * One step per request, O(1): count the hit in a fixed window of `windowMs`, and once the
 * count passes `limit`, block the caller for `blockMs` (hits made while blocked do not count).
 */
export interface RateLimitStorage {
  hit(
    key: string,
    windowMs: number,
    limit: number,
    blockMs: number,
  ): RateLimitResult | Promise<RateLimitResult>;

  /** Seconds until `key`'s block ends, 0 when it is not blocked: a look, not a hit. */
  blockedFor(key: string): number | Promise<number>;
}
