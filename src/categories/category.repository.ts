import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { outboxCtes } from '../webhooks/outbox.js';
import { CategoryEntity } from './category.entity.js';

@Injectable()
export class CategoryRepository {
  constructor(
    @InjectRepository(CategoryEntity) private readonly categories: Repository<CategoryEntity>,
  ) {}

  /** Plain SQL: TypeORM's find() builds a query and hydrates entities, measurable on a request this small. */
  async listAll(): Promise<CategoryEntity[]> {
    const rows: Array<{ id: string; name: string; description: string | null }> =
      await this.categories.query('SELECT id, name, description FROM categories ORDER BY id');
    return rows.map((row) => ({
      id: Number(row.id),
      name: row.name,
      description: row.description,
    }));
  }

  /** Up to `take` categories by id in `order`, after the id `after` (exclusive): keyset. */
  async listPage(
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<CategoryEntity[]> {
    const rows: Array<{ id: string; name: string; description: string | null }> =
      await this.categories.query(
        after === undefined
          ? `SELECT id, name, description FROM categories ORDER BY id ${order} LIMIT $1`
          : `SELECT id, name, description FROM categories WHERE id ${order === 'asc' ? '>' : '<'} $2
             ORDER BY id ${order} LIMIT $1`,
        after === undefined ? [take] : [take, after],
      );
    return rows.map((row) => ({
      id: Number(row.id),
      name: row.name,
      description: row.description,
    }));
  }

  /**
   * Inserts the category with its category.created event; null when the name is taken
   * (ignoring case). One statement: the unique index decides, so two concurrent creates of one
   * name cannot both succeed, and a refused one records no event.
   */
  async insertUnlessNameTaken(
    name: string,
    description: string | null,
  ): Promise<CategoryEntity | null> {
    const rows: Array<{ id: string; name: string; description: string | null }> =
      await this.categories.query(
        `WITH changed AS (
           INSERT INTO categories (name, description) VALUES ($1, $2)
           ON CONFLICT ((lower(name))) DO NOTHING
           RETURNING id, name, description,
             json_strip_nulls(json_build_object('id', id, 'name', name, 'description', description)) AS data
         ), ${outboxCtes('category.created')}
         SELECT id, name, description FROM changed`,
        [name, description],
      );
    const row = rows[0];
    return row ? { id: Number(row.id), name: row.name, description: row.description } : null;
  }
}
