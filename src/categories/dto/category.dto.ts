import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { CategoryEntity } from '../category.entity.js';

export class CategoryDto {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 1, example: 1 })
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
