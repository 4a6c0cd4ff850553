import { Injectable } from '@nestjs/common';
import {
  IdempotencyService,
  type IdempotentResponse,
  type IdempotentRequest,
} from '../idempotency/idempotency.service.js';
import { categoryJson } from './category-json.js';
import { CategoryExistsError } from './category.errors.js';
import type { CategoryEntity } from './category.entity.js';
import { CategoryRepository } from './category.repository.js';
import { CategoryDto } from './dto/category.dto.js';
import type { CreateCategoryDto } from './dto/create-category.dto.js';

@Injectable()
export class CategoriesService {
  constructor(
    private readonly categories: CategoryRepository,
    private readonly idempotency: IdempotencyService,
  ) {}

  listAll(): Promise<CategoryEntity[]> {
    return this.categories.listAll();
  }

  /** One page of v2 listCategories, by id. */
  listPage(
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<CategoryEntity[]> {
    return this.categories.listPage(order, after, take);
  }

  /**
   * createCategory, in every version: the new category as the API shows it. Under an
   * Idempotency-Key, the category and the remembered answer commit in one statement, and a
   * repeat gets the remembered answer (IdempotencyService.create).
   */
  create(
    body: CreateCategoryDto,
    idempotency?: IdempotentRequest,
  ): Promise<CategoryDto | IdempotentResponse> {
    return this.idempotency.create(idempotency, {
      bodySql: categoryJson('main'),
      rejection: () => new CategoryExistsError(body.name),
      insert: async (attachedWrites) => {
        const { category, outputs } = await this.categories.insertUnlessNameTaken(
          body.name,
          body.description ?? null,
          attachedWrites,
        );
        return { created: category, outputs };
      },
      render: (category) => CategoryDto.from(category),
    });
  }
}
