import { Injectable } from '@nestjs/common';
import type { PetWithCategory } from './pet.entity.js';
import { PetNotFoundError } from './pet.errors.js';
import { PetRepository } from './pet.repository.js';

@Injectable()
export class PetsService {
  constructor(private readonly pets: PetRepository) {}

  async getById(petId: string): Promise<PetWithCategory> {
    const pet = await this.pets.findByIdWithCategory(petId);
    if (!pet) {
      throw new PetNotFoundError(petId);
    }
    return pet;
  }
}
