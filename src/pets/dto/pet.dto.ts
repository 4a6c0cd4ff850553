import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { MAX_ASSIGNED_ID } from '../../common/http/int64-id.pipe.js';
import { PetStatus, type PetWithCategory } from '../pet.entity.js';

@ApiSchema({ name: 'PetCategory' })
export class PetCategoryDto {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: MAX_ASSIGNED_ID,
    example: 1,
  })
  id: number;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'dog' })
  name: string;
}

@ApiSchema({ name: 'Pet' })
export class PetDto {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: MAX_ASSIGNED_ID,
    example: 7,
  })
  id: number;

  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Rex' })
  name: string;

  @ApiPropertyOptional({
    type: PetCategoryDto,
    description: 'Omitted when the pet has no category',
  })
  category?: PetCategoryDto;

  @ApiProperty({ enum: PetStatus, enumName: 'PetStatus', example: PetStatus.Available })
  status: PetStatus;

  static from(pet: PetWithCategory): PetDto {
    const dto: PetDto = { id: pet.id, name: pet.name, status: pet.status };
    if (pet.category) {
      dto.category = { id: pet.category.id, name: pet.category.name };
    }
    return dto;
  }
}
