import { Injectable } from '@nestjs/common';
import {
  IdempotencyService,
  type IdempotentAnswer,
  type IdempotentRequest,
} from '../idempotency/idempotency.service.js';
import { categoryJson } from './category-json.js';
import { CategoryExistsError } from './category.errors.js';
import type { CategoryEntity } from './category.entity.js';
import { CategoryRepository } from './category.repository.js';

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

  async create(name: string, description: string | undefined): Promise<CategoryEntity> {
    const { category } = await this.categories.insertUnlessNameTaken(name, description ?? null);
    if (!category) {
      throw new CategoryExistsError(name);
    }
    return category;
  }

  /**
   * create() under an Idempotency-Key: the category and the remembered answer commit in one
   * statement; a repeat gets the remembered answer (see IdempotencyService).
   */
  createIdempotent(
    name: string,
    description: string | undefined,
    request: IdempotentRequest,
  ): Promise<IdempotentAnswer> {
    return this.idempotency.execute(request, {
      bodySql: categoryJson('main'),
      refusal: new CategoryExistsError(name),
      run: async (companion) =>
        (await this.categories.insertUnlessNameTaken(name, description ?? null, [companion]))
          .outputs[companion.name],
    });
  }
}
