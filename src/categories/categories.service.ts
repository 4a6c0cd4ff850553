import { Injectable } from '@nestjs/common';
import { CategoryExistsError } from './category.errors.js';
import type { CategoryEntity } from './category.entity.js';
import { CategoryRepository } from './category.repository.js';

@Injectable()
export class CategoriesService {
  constructor(private readonly categories: CategoryRepository) {}

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
    const created = await this.categories.insertUnlessNameTaken(name, description ?? null);
    if (!created) {
      throw new CategoryExistsError(name);
    }
    return created;
  }
}
