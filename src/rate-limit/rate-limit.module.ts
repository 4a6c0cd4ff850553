import { Module } from '@nestjs/common';
import { ThrottlerModule, seconds } from '@nestjs/throttler';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.provider.js';
import { RedisThrottlerStorage, createRedisClient } from './redis-throttler.storage.js';

export const RATE_LIMITED_MESSAGE =
  'Too many requests; retry after the number of seconds in Retry-After.';

/**
 * Counts per minute, in Redis when REDIS_URL is set (shared by every instance), else in this
 * process's memory. The limit itself depends on the caller (see RateLimitGuard).
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        throttlers: [
          { name: 'default', ttl: seconds(60), limit: config.rateLimit.perKeyPerMinute },
        ],
        errorMessage: RATE_LIMITED_MESSAGE,
        storage: config.redisUrl
          ? new RedisThrottlerStorage(
              createRedisClient(config.redisUrl),
              config.rateLimit.redisKeyPrefix,
            )
          : undefined,
      }),
    }),
  ],
})
export class RateLimitModule {}
