import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { MAX_ASSIGNED_ID } from '../../common/http/int64-id.pipe.js';
import type { CategoryEntity } from '../category.entity.js';

@ApiSchema({ name: 'Category' })
export class CategoryDto {
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

  @ApiPropertyOptional({ maxLength: 500, example: 'Domestic dogs of every breed' })
  description?: string;

  static from(category: CategoryEntity): CategoryDto {
    const dto: CategoryDto = { id: category.id, name: category.name };
    if (category.description !== null) {
      dto.description = category.description;
    }
    return dto;
  }
}
