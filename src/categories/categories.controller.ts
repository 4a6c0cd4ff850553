import { Body, Controller, Get, HttpCode, HttpStatus, Post, UseInterceptors } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  ApiErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { JsonBodyInterceptor } from '../common/http/json-body.interceptor.js';
import type { IdempotentAnswer, IdempotentRequest } from '../idempotency/idempotency.service.js';
import { Idempotent, IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { CategoriesService } from './categories.service.js';
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
  @ApiOkResponse({ type: [CategoryDto], description: 'Every category, by id ascending' })
  @ApiErrorResponses()
  async list(): Promise<CategoryDto[]> {
    return (await this.categories.listAll()).map((category) => CategoryDto.from(category));
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @Idempotent({ version: 'v1', operation: 'createCategory' })
  @UseInterceptors(JsonBodyInterceptor)
  @ApiOperation({
    operationId: 'createCategory',
    summary: 'Create a category',
    description:
      'The name is trimmed and must be unique ignoring case (409 CATEGORY_EXISTS). Unknown fields are refused.',
  })
  @ApiCreatedResponse({
    type: CategoryDto,
    description: 'The created category with its new id',
    headers: IDEMPOTENT_REPLAYED_HEADER,
  })
  @ApiErrorResponses(
    ErrorCode.VALIDATION_FAILED,
    ErrorCode.MALFORMED_JSON,
    ErrorCode.CATEGORY_EXISTS,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.IDEMPOTENCY_KEY_IN_USE,
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
  )
  async create(
    @Body() body: CreateCategoryDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<CategoryDto | IdempotentAnswer> {
    if (idempotency) {
      return this.categories.createIdempotent(body.name, body.description, idempotency);
    }
    return CategoryDto.from(await this.categories.create(body.name, body.description));
  }
}
