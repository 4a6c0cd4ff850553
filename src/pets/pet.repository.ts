import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PetEntity, type PetStatus, type PetWithCategory } from './pet.entity.js';

@Injectable()
export class PetRepository {
  constructor(@InjectRepository(PetEntity) private readonly pets: Repository<PetEntity>) {}

  async findByIdWithCategory(id: string): Promise<PetWithCategory | null> {
    const rows: Array<{
      id: string;
      name: string;
      status: PetStatus;
      categoryId: string | null;
      categoryName: string | null;
    }> = await this.pets.query(
      `SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
         FROM pets p LEFT JOIN categories c ON c.id = p.category_id
         WHERE p.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: Number(row.id),
      name: row.name,
      status: row.status,
      category:
        row.categoryId === null
          ? null
          : { id: Number(row.categoryId), name: row.categoryName ?? '' },
    };
  }
}
