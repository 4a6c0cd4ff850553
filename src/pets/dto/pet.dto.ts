import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiIdProperty } from '../../common/http/api-decorators.js';
import type { Int64Id } from '../../common/http/exact-int64.js';
import { STORED_TEXT_PATTERN } from '../../common/http/safe-text.validator.js';
import { PetStatus, type PetWithCategory } from '../pet.entity.js';

@ApiSchema({ name: 'PetCategory' })
export class PetCategoryDto {
  @ApiIdProperty(1)
  id: number;

  /** A category's name, as CategoryDto documents it. */
  @ApiProperty({ minLength: 1, maxLength: 64, pattern: STORED_TEXT_PATTERN, example: 'dog' })
  name: string;
}

@ApiSchema({ name: 'Pet' })
export class PetDto {
  @ApiIdProperty(7)
  id: Int64Id;

  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Rex' })
  name: string;

  @ApiPropertyOptional({
    type: PetCategoryDto,
    description: 'Omitted when the pet has no category',
  })
  category?: PetCategoryDto;

  @ApiProperty({ enum: PetStatus, enumName: 'PetStatus', example: PetStatus.Available })
  status: PetStatus;

  /** The keys in the schema's order: `category` (when the pet has one) before `status`. */
  static from(pet: PetWithCategory): PetDto {
    return pet.category
      ? {
          id: pet.id,
          name: pet.name,
          category: { id: pet.category.id, name: pet.category.name },
          status: pet.status,
        }
      : { id: pet.id, name: pet.name, status: pet.status };
  }
}
