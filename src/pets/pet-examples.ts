import type { PetDto } from './dto/pet.dto.js';
import { PetStatus } from './pet.entity.js';

/*
 * The examples the API reference (/reference) shows on the pet operations. Each must match its
 * schema (test/openapi-examples.e2e-spec.ts).
 */

/** Pet 7, the one the store examples order, as getPet and getPetById answer it. */
export const PET_EXAMPLE: PetDto = {
  id: 7,
  name: 'Rex',
  category: { id: 1, name: 'dog' },
  status: PetStatus.Available,
};

/** Pets by id, as listPets answers them; a pet's category is optional. */
export const PET_LIST_EXAMPLE: PetDto[] = [
  { id: 3, name: 'Tweety', category: { id: 3, name: 'bird' }, status: PetStatus.Sold },
  { id: 5, name: 'Whiskers', status: PetStatus.Pending },
  PET_EXAMPLE,
];
