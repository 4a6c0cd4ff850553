import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { CategoryEntity } from './category.entity.js';

@Injectable()
export class CategoryRepository {
  constructor(
    @InjectRepository(CategoryEntity) private readonly categories: Repository<CategoryEntity>,
  ) {}

  listAll(): Promise<CategoryEntity[]> {
    return this.categories.find({ order: { id: 'ASC' } });
  }

  /**
   * Inserts the category; null when the name is taken (ignoring case). One statement: the
   * unique index decides, so two concurrent creates of one name cannot both succeed.
   */
  async insertUnlessNameTaken(
    name: string,
    description: string | null,
  ): Promise<CategoryEntity | null> {
    const rows: Array<{ id: string; name: string; description: string | null }> =
      await this.categories.query(
        `INSERT INTO categories (name, description) VALUES ($1, $2)
       ON CONFLICT ((lower(name))) DO NOTHING
       RETURNING id, name, description`,
        [name, description],
      );
    const row = rows[0];
    return row ? { id: Number(row.id), name: row.name, description: row.description } : null;
  }
}
