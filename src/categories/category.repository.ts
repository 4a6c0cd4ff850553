import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Companion } from '../database/companion-statements.js';
import { insertCategoryStatement } from './category-statements.js';
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
   * name cannot both succeed, and a refused one records no event. Companions
   * (src/database/companion-statements.ts) commit with it; their outputs are answered by name.
   */
  async insertUnlessNameTaken(
    name: string,
    description: string | null,
    companions: readonly Companion[] = [],
  ): Promise<{ category: CategoryEntity | null; outputs: Record<string, unknown> }> {
    const statement = insertCategoryStatement(name, description, companions);
    const rows: Array<
      { id: string | null; name: string; description: string | null } & Record<string, unknown>
    > = await this.categories.query(statement.sql, [...statement.params]);
    const row = rows[0];
    const outputs = Object.fromEntries(
      companions.map((companion) => [companion.name, row?.[companion.name] ?? null]),
    );
    return {
      category:
        row && row.id !== null
          ? { id: Number(row.id), name: row.name, description: row.description }
          : null,
      outputs,
    };
  }
}
