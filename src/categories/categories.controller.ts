import { Body, Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CATEGORY_LIST_EXAMPLE } from './category-examples.js';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import type { IdempotentResponse, IdempotentRequest } from '../idempotency/idempotency.service.js';
import { IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { CategoriesService } from './categories.service.js';
import { CreateCategoryOperation } from './category-operations.js';
import { CategoryDto } from './dto/category.dto.js';
import { CreateCategoryDto } from './dto/create-category.dto.js';

@ApiTags('categories')
@ApiBearerAuth()
@Controller('categories')
export class CategoriesController {
  constructor(private readonly categories: CategoriesService) {}

  @Get()
  @ApiOperation({
    operationId: 'listCategories',
    summary: 'List every category, by id ascending',
    description: 'No filtering or pagination in v1: every category.',
  })
  @ApiOkResponse({
    type: [CategoryDto],
    description: 'Every category, by id ascending',
    example: CATEGORY_LIST_EXAMPLE,
  })
  @ApiErrorResponses()
  async list(): Promise<CategoryDto[]> {
    return (await this.categories.listAll()).map((category) => CategoryDto.from(category));
  }

  @CreateCategoryOperation('1')
  create(
    @Body() body: CreateCategoryDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<CategoryDto | IdempotentResponse> {
    return this.categories.create(body, idempotency);
  }
}
