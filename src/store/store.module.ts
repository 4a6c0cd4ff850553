import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { OrderEntity } from './order.entity.js';
import { StreamSlots } from '../database/stream-slots.js';
import { OrderRepository } from './order.repository.js';
import { StoreController } from './store.controller.js';
import { StoreV2Controller } from './store-v2.controller.js';
import { StoreService } from './store.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([OrderEntity]), IdempotencyModule],
  controllers: [StoreController, StoreV2Controller],
  providers: [OrderRepository, StoreService, StreamSlots],
})
export class StoreModule {}
