import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.provider.js';
import { MetricsService } from '../metrics/metrics.service.js';
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
      inject: [APP_CONFIG, MetricsService],
      useFactory: (config: AppConfig, metrics: MetricsService): RateLimitStorage => {
        if (!config.redisUrl) return new MemoryRateLimitStorage();
        const unchecked = metrics.counter({
          name: 'petstore_rate_limit_unchecked_total',
          help: 'Rate-limit counts and checks that Redis did not answer: each let its request through unlimited',
        });
        return new RedisRateLimitStorage(
          createRedisClient(config.redisUrl),
          config.rateLimit.redisKeyPrefix,
          () => unchecked.inc(),
        );
      },
    },
  ],
  exports: [RATE_LIMIT_STORAGE, RateLimiter],
})
export class RateLimitModule {}
