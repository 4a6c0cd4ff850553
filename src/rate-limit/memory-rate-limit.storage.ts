import type { OnApplicationShutdown } from '@nestjs/common';
import type { RateLimitResult, RateLimitStorage } from './rate-limit.storage.js';

interface Counter {
  hits: number;
  /** When the current window ends (ms since the epoch). */
  windowEnds: number;
  /** When the block ends; 0 or past when not blocked. */
  blockedUntil: number;
}

/**
 * The counts of one instance, in memory: a fixed window per caller, the same steps as the
 * Redis script (redis-rate-limit.storage.ts), so both answer alike. One Map entry per caller,
 * updated in place: the cost of a request does not depend on the limit, the load or the number
 * of callers. (@nestjs/throttler's storage kept a timestamp per hit and filtered them all on
 * every request.) Entries whose window and block are over are swept once per `sweepMs`, so
 * memory follows the callers of the last minute or so, not every caller ever seen.
 */
export class MemoryRateLimitStorage implements RateLimitStorage, OnApplicationShutdown {
  private readonly counters = new Map<string, Counter>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    sweepMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), sweepMs);
    // The sweep alone must not keep the process alive.
    this.sweeper.unref();
  }

  hit(key: string, windowMs: number, limit: number, blockMs: number): RateLimitResult {
    const now = this.now();
    let counter = this.counters.get(key);
    if (counter && counter.blockedUntil > now) {
      return {
        totalHits: counter.windowEnds > now ? counter.hits : 0,
        timeToExpire: seconds(counter.windowEnds - now),
        isBlocked: true,
        timeToBlockExpire: seconds(counter.blockedUntil - now),
      };
    }
    if (!counter) {
      counter = { hits: 0, windowEnds: now + windowMs, blockedUntil: 0 };
      this.counters.set(key, counter);
    } else if (counter.windowEnds <= now) {
      counter.hits = 0;
      counter.windowEnds = now + windowMs;
    }
    counter.hits += 1;
    const timeToExpire = seconds(counter.windowEnds - now);
    if (counter.hits > limit) {
      counter.blockedUntil = now + blockMs;
      return {
        totalHits: counter.hits,
        timeToExpire,
        isBlocked: true,
        timeToBlockExpire: seconds(blockMs),
      };
    }
    return { totalHits: counter.hits, timeToExpire, isBlocked: false, timeToBlockExpire: 0 };
  }

  blockedFor(key: string): number {
    const blockedUntil = this.counters.get(key)?.blockedUntil ?? 0;
    return seconds(blockedUntil - this.now());
  }

  /** How many callers are tracked (for tests and diagnostics). */
  get size(): number {
    return this.counters.size;
  }

  /** Forgets callers whose window and block are both over: they would start afresh anyway. */
  sweep(): void {
    const now = this.now();
    for (const [key, counter] of this.counters) {
      if (counter.windowEnds <= now && counter.blockedUntil <= now) this.counters.delete(key);
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.counters.clear();
  }
}

function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
