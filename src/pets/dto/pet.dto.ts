import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { INT64_MAX } from '../../common/http/int64-id.pipe.js';
import { PetStatus, type PetWithCategory } from '../pet.entity.js';

export class PetCategoryDto {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: Number(INT64_MAX),
    example: 1,
  })
  id: number;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'dog' })
  name: string;
}

export class PetDto {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: Number(INT64_MAX),
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
