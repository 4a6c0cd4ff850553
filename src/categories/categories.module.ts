import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { CategoriesController } from './categories.controller.js';
import { CategoriesV2Controller } from './categories-v2.controller.js';
import { CategoriesService } from './categories.service.js';
import { CategoryEntity } from './category.entity.js';
import { CategoryRepository } from './category.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([CategoryEntity]), IdempotencyModule],
  controllers: [CategoriesController, CategoriesV2Controller],
  providers: [CategoryRepository, CategoriesService],
})
export class CategoriesModule {}
