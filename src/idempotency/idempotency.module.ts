import { Module } from '@nestjs/common';
import { IdempotencyPurge } from './idempotency-purge.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';
import { IdempotencyInterceptor } from './idempotent.decorator.js';

/** Idempotency-Key for the operations that create (docs/api.md, Idempotency-Key). */
@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyInterceptor, IdempotencyPurge],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
