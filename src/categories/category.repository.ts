import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Companion } from '../database/companion-statements.js';
import { ReadRouter } from '../database/read-router.js';
import { runStatement } from '../database/statement.js';
import { categoryStatements } from './category-statements.js';
import { CategoryEntity } from './category.entity.js';

/** A category row as pg reads it: bigint ids arrive as strings. */
interface CategoryRow {
  id: string;
  name: string;
  description: string | null;
}

function toCategory(row: CategoryRow): CategoryEntity {
  // Ids stop at 2^53 - 1 (see the initial migration), so Number() is exact.
  return { id: Number(row.id), name: row.name, description: row.description };
}

/** Runs every statement about categories (src/categories/category-statements.ts). */
@Injectable()
export class CategoryRepository {
  constructor(
    @InjectRepository(CategoryEntity) private readonly categories: Repository<CategoryEntity>,
    private readonly reads: ReadRouter,
  ) {}

  /** Plain SQL: TypeORM's find() builds a query and hydrates entities, measurable on a request this small. */
  async listAll(): Promise<CategoryEntity[]> {
    const rows = await runStatement<CategoryRow>(this.reads, categoryStatements.listAll());
    return rows.map(toCategory);
  }

  /** Up to `take` categories by id in `order`, after the id `after` (exclusive): keyset. */
  async listPage(
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<CategoryEntity[]> {
    const rows = await runStatement<CategoryRow>(
      this.reads,
      categoryStatements.listPage(order, after, take),
    );
    return rows.map(toCategory);
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
    const rows = await runStatement<CategoryRow & Record<string, unknown>>(
      this.categories,
      categoryStatements.insertUnlessNameTaken(name, description, companions),
    );
    const row = rows[0];
    const outputs = Object.fromEntries(
      companions.map((companion) => [companion.name, row?.[companion.name] ?? null]),
    );
    // With companions, the category's columns are null when it inserted nothing.
    return { category: row && row.id !== null ? toCategory(row) : null, outputs };
  }
}
