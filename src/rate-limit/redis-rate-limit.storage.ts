import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { RateLimitResult, RateLimitStorage } from './rate-limit.storage.js';

/**
 * One atomic step per request, so instances sharing Redis never race: count the hit in a
 * window of `ttl` ms, and once the count passes `limit`, block for `block` ms.
 * Returns {hits, ms until the window ends, blocked (0/1), ms until the block ends}.
 */
const INCREMENT_SCRIPT = `
local block_ms = redis.call('PTTL', KEYS[2])
if block_ms > 0 then
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]), 1, block_ms}
end
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local window_ms = redis.call('PTTL', KEYS[1])
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return {hits, window_ms, 1, tonumber(ARGV[3])}
end
return {hits, window_ms, 0, 0}`;

type ThrottleCommand = (
  hitsKey: string,
  blockKey: string,
  ttl: number,
  limit: number,
  block: number,
) => Promise<number[]>;

/**
 * Rate-limit counts shared by every instance through Redis, one script call per request.
 * If Redis cannot be reached, requests are let through (a warning logged, and each one counted
 * by `unchecked`): an outage of the limiter must not become an outage of the API.
 */
export class RedisRateLimitStorage implements RateLimitStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly throttle: ThrottleCommand;
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** Called for each count or look that Redis did not answer (the request went unchecked). */
    private readonly unchecked: () => void,
  ) {
    redis.defineCommand('petstoreThrottle', { numberOfKeys: 2, lua: INCREMENT_SCRIPT });
    const command = (redis as unknown as { petstoreThrottle: ThrottleCommand }).petstoreThrottle;
    this.throttle = command.bind(redis);
    redis.on('error', (error: Error) => this.warn(`Redis: ${error.message}`));
  }

  async hit(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
  ): Promise<RateLimitResult> {
    const base = this.base(key);
    try {
      const [totalHits, windowMs, blocked, blockMs] = await this.throttle(
        `${base}:hits`,
        `${base}:block`,
        ttl,
        limit,
        blockDuration,
      );
      return {
        totalHits,
        timeToExpire: Math.max(0, Math.ceil(windowMs / 1000)),
        isBlocked: blocked === 1,
        timeToBlockExpire: Math.max(0, Math.ceil(blockMs / 1000)),
      };
    } catch (error) {
      this.notApplied(error);
      return {
        totalHits: 0,
        timeToExpire: Math.ceil(ttl / 1000),
        isBlocked: false,
        timeToBlockExpire: 0,
      };
    }
  }

  async blockedFor(key: string): Promise<number> {
    try {
      const blockMs = await this.redis.pttl(`${this.base(key)}:block`);
      return Math.max(0, Math.ceil(blockMs / 1000));
    } catch (error) {
      this.notApplied(error);
      return 0;
    }
  }

  /**
   * The braces are a Redis Cluster hash tag: both keys of one counter live on one node.
   * `default:` is the layout of the versions on @nestjs/throttler (its throttler's name):
   * counts carry over a rolling update.
   */
  private base(key: string): string {
    return `${this.prefix}{default:${key}}`;
  }

  async onApplicationShutdown(): Promise<void> {
    // quit() waits for a connection that may never come; disconnect() stops reconnecting.
    if (this.redis.status === 'ready') {
      await this.redis.quit().catch(() => this.redis.disconnect());
    } else {
      this.redis.disconnect();
    }
  }

  private notApplied(error: unknown): void {
    this.unchecked();
    this.warn(
      `rate limit not applied, Redis did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  /** At most one warning every 10 s: an outage must not flood the logs. */
  private warn(message: string): void {
    if (Date.now() - this.lastWarning > 10_000) {
      this.lastWarning = Date.now();
      this.logger.warn(message);
    }
  }
}

export function createRedisClient(url: string): Redis {
  return new Redis(url, {
    // Fail fast rather than queue: a rate-limit check must not hold a request.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}
