import { HttpCode, HttpStatus, Post, applyDecorators } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import type { ApiVersion } from '../common/api-version.js';
import {
  ApiIdempotentErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { Stability } from '../common/http/api-decorators.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { CATEGORY_EXAMPLE, NEW_CATEGORY_EXAMPLE } from './category-examples.js';
import { CategoryDto } from './dto/category.dto.js';
import { CreateCategoryDto } from './dto/create-category.dto.js';

/**
 * POST /categories in every version, once: route, Idempotency-Key and documentation (part of
 * the original interface, so stable in v1). listCategories differs per version.
 */
export const CreateCategoryOperation = (version: ApiVersion): MethodDecorator =>
  applyDecorators(
    Post(),
    HttpCode(HttpStatus.CREATED),
    Idempotent({ version: `v${version}`, operation: 'createCategory' }),
    Stability(version, 'stable'),
    ApiOperation({
      operationId: 'createCategory',
      summary: 'Create a category',
      description:
        'The name is normalised to Unicode NFC and trimmed, and must be unique ignoring case (409 CATEGORY_EXISTS). Unknown fields are refused.',
    }),
    ApiBody({
      type: CreateCategoryDto,
      examples: { category: { summary: 'A category for hamsters', value: NEW_CATEGORY_EXAMPLE } },
    }),
    ApiCreatedResponse({
      type: CategoryDto,
      description: 'The created category with its new id',
      example: CATEGORY_EXAMPLE,
      headers: IDEMPOTENT_REPLAYED_HEADER,
    }),
    ApiIdempotentErrorResponses(ErrorCode.CATEGORY_EXISTS),
  );
