import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.provider.js';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage.js';
import { RateLimiter } from './rate-limiter.js';
import { RedisRateLimitStorage, createRedisClient } from './redis-rate-limit.storage.js';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './rate-limit.storage.js';

/**
 * Counts per minute, in Redis when REDIS_URL is set (shared by every instance), else in this
 * process's memory. The limit itself depends on the caller (see RateLimiter).
 */
@Module({
  imports: [AuthModule],
  providers: [
    RateLimiter,
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RateLimitStorage =>
        config.redisUrl
          ? new RedisRateLimitStorage(
              createRedisClient(config.redisUrl),
              config.rateLimit.redisKeyPrefix,
            )
          : new MemoryRateLimitStorage(),
    },
  ],
  exports: [RATE_LIMIT_STORAGE, RateLimiter],
})
export class RateLimitModule {}
