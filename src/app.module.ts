import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { AuthModule } from './auth/auth.module.js';
import { CategoriesModule } from './categories/categories.module.js';
import { ChangelogModule } from './changelog/changelog.module.js';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter.js';
import { OpenApiModule } from './common/openapi/openapi.module.js';
import { PaginationModule } from './common/pagination/pagination.module.js';
import type { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/app-config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthModule } from './health/health.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { LoggingModule, createHttpLogger } from './logging/logging.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PetsModule } from './pets/pets.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { StoreModule } from './store/store.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

/** The configuration the app runs with: the database URL is known (embedded or given). */
export type RuntimeConfig = AppConfig & { databaseUrl: string };

@Module({})
export class AppModule {
  static forRoot(config: RuntimeConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        LoggingModule.forRoot(createHttpLogger(config)),
        LifecycleModule,
        MetricsModule,
        DatabaseModule.forRoot(config),
        AuthModule,
        RateLimitModule,
        PaginationModule,
        StoreModule,
        CategoriesModule,
        PetsModule,
        WebhooksModule,
        HealthModule,
        ChangelogModule,
        OpenApiModule,
      ],
      providers: [
        // The one global guard: counts the request against its key's (or, without a valid
        // key, its address's) limit, then refuses it unless the key is valid.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}
