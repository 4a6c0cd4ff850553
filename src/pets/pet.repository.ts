import { Injectable } from '@nestjs/common';
import { int64Id } from '../common/http/exact-int64.js';
import { ReadRouter } from '../database/read-router.js';
import { runStatement } from '../database/statement.js';
import { type PetStatus, type PetWithCategory } from './pet.entity.js';
import { petStatements, type PetListFilter } from './pet-statements.js';

/** A pet with its category as pg reads it: bigint ids arrive as strings. */
interface PetRow {
  id: string;
  name: string;
  status: PetStatus;
  categoryId: string | null;
  categoryName: string | null;
}

function toPet(row: PetRow): PetWithCategory {
  return {
    id: int64Id(row.id),
    name: row.name,
    status: row.status,
    // Category ids stop at 2^53 - 1 (see the initial migration), so Number() is exact.
    category:
      row.categoryId === null ? null : { id: Number(row.categoryId), name: row.categoryName ?? '' },
  };
}

/** Runs every statement about pets (src/pets/pet-statements.ts). */
@Injectable()
export class PetRepository {
  constructor(private readonly reads: ReadRouter) {}

  async findByIdWithCategory(id: string): Promise<PetWithCategory | null> {
    const rows = await runStatement<PetRow>(this.reads, petStatements.findByIdWithCategory(id));
    return rows[0] ? toPet(rows[0]) : null;
  }

  /** One page of v2 listPets (see petStatements.listPage). */
  async listPage(
    filter: PetListFilter,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<PetWithCategory[]> {
    const rows = await runStatement<PetRow>(
      this.reads,
      petStatements.listPage(filter, order, after, take),
    );
    return rows.map(toPet);
  }
}
