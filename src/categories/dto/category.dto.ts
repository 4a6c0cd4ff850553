import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiIdProperty } from '../../common/http/api-decorators.js';
import {
  STORED_PROSE_PATTERN,
  STORED_TEXT_PATTERN,
} from '../../common/http/safe-text.validator.js';
import { CATEGORY_JSON } from '../category-json.js';
import type { CategoryEntity } from '../category.entity.js';

@ApiSchema({ name: 'Category' })
export class CategoryDto {
  @ApiIdProperty(1)
  id: number;

  @ApiProperty({ minLength: 1, maxLength: 64, pattern: STORED_TEXT_PATTERN, example: 'dog' })
  name: string;

  @ApiPropertyOptional({
    maxLength: 500,
    pattern: STORED_PROSE_PATTERN,
    example: 'Domestic dogs of every breed',
  })
  description?: string;

  /** The category as answers show it (src/categories/category-json.ts). */
  static from(category: CategoryEntity): CategoryDto {
    return CATEGORY_JSON.view(category);
  }
}
