import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { int64Id } from '../common/http/exact-int64.js';
import { runStatement } from '../database/statement.js';
import { PetEntity, type PetStatus, type PetWithCategory } from './pet.entity.js';
import { petStatements } from './pet-statements.js';

/** Runs every statement about pets (src/pets/pet-statements.ts). */
@Injectable()
export class PetRepository {
  constructor(@InjectRepository(PetEntity) private readonly pets: Repository<PetEntity>) {}

  async findByIdWithCategory(id: string): Promise<PetWithCategory | null> {
    const rows = await runStatement<{
      id: string;
      name: string;
      status: PetStatus;
      categoryId: string | null;
      categoryName: string | null;
    }>(this.pets, petStatements.findByIdWithCategory(id));
    const row = rows[0];
    if (!row) return null;
    return {
      id: int64Id(row.id),
      name: row.name,
      status: row.status,
      category:
        row.categoryId === null
          ? null
          : { id: Number(row.categoryId), name: row.categoryName ?? '' },
    };
  }
}
