import { Body, Controller, HttpCode, HttpStatus, Post, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { Beta } from '../common/http/api-decorators.js';
import { JsonBodyInterceptor } from '../common/http/json-body.interceptor.js';
import { CategoriesService } from './categories.service.js';
import { CategoryDto } from './dto/category.dto.js';
import { CreateCategoryDto } from './dto/create-category.dto.js';

/**
 * The category operations of v2 (contract section 9): v1's over the same service, with a
 * paged list. Every operation is beta until v2 is declared stable.
 */
@ApiTags('categories')
@ApiBearerAuth()
@Controller({ path: 'categories', version: '2' })
export class CategoriesV2Controller {
  constructor(private readonly categories: CategoriesService) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @UseInterceptors(JsonBodyInterceptor)
  @Beta()
  @ApiOperation({
    operationId: 'createCategory',
    summary: 'Create a category',
    description:
      'The name is trimmed and must be unique ignoring case (409 CATEGORY_EXISTS). Unknown fields are refused.',
  })
  @ApiCreatedResponse({ type: CategoryDto, description: 'The created category with its new id' })
  @ApiErrorResponses(
    ErrorCode.VALIDATION_FAILED,
    ErrorCode.MALFORMED_JSON,
    ErrorCode.CATEGORY_EXISTS,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  )
  async create(@Body() body: CreateCategoryDto): Promise<CategoryDto> {
    return CategoryDto.from(await this.categories.create(body.name, body.description));
  }
}
