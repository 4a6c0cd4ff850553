import { Injectable } from '@nestjs/common';
import type { PetWithCategory } from './pet.entity.js';
import { PetNotFoundError } from './pet.errors.js';
import { PetRepository } from './pet.repository.js';
import type { PetListFilter } from './pet-statements.js';

@Injectable()
export class PetsService {
  constructor(private readonly pets: PetRepository) {}

  /** One page of v2 listPets (see PetRepository.listPage). */
  listPage(
    filter: PetListFilter,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<PetWithCategory[]> {
    return this.pets.listPage(filter, order, after, take);
  }

  /** getPetById (v1) and getPet (v2): 404 PET_NOT_FOUND when there is no such pet. */
  async getById(petId: string): Promise<PetWithCategory> {
    const pet = await this.pets.findByIdWithCategory(petId);
    if (!pet) {
      throw new PetNotFoundError(petId);
    }
    return pet;
  }
}
