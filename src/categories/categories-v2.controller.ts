import { Body, Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { Beta } from '../common/http/api-decorators.js';
import { NEXT_PAGE_LINK_HEADER, PageDto, pageExample } from '../common/pagination/page.dto.js';
import { ApiPageQuery } from '../common/pagination/page-query.decorator.js';
import type { PageQuery } from '../common/pagination/page-query.js';
import { Paginator, type Page } from '../common/pagination/paginator.js';
import type { IdempotentResponse, IdempotentRequest } from '../idempotency/idempotency.service.js';
import { IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { CategoriesService } from './categories.service.js';
import { CreateCategoryOperation } from './category-operations.js';
import { CATEGORY_LIST_EXAMPLE } from './category-examples.js';
import { CategoryDto } from './dto/category.dto.js';
import { CategoryListQueryPipe } from './dto/category-list.query.js';
import { CreateCategoryDto } from './dto/create-category.dto.js';

const CategoryPageDto = PageDto(CategoryDto, 'CategoryPage', 'A page of categories, by id');

/**
 * The category operations of v2 (docs/api.md, Pages): v1's over the same service, with a
 * paged list. Every operation is beta until v2 is declared stable.
 */
@ApiTags('categories')
@ApiBearerAuth()
@Controller({ path: 'categories', version: '2' })
export class CategoriesV2Controller {
  constructor(
    private readonly categories: CategoriesService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Beta()
  @ApiOperation({
    operationId: 'listCategories',
    summary: 'List categories, a page at a time',
    description:
      'Pages cut on the id (keyset): follow nextCursor, or the Link header, to the end. ' +
      'Unknown, repeated or empty parameters are refused, and a cursor only fits the order that issued it.',
  })
  @ApiPageQuery()
  @ApiOkResponse({
    type: CategoryPageDto,
    description: 'A page of categories',
    headers: NEXT_PAGE_LINK_HEADER,
    example: pageExample(CATEGORY_LIST_EXAMPLE),
  })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED)
  async list(
    @Query(CategoryListQueryPipe) query: PageQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Page<CategoryDto>> {
    const page = await this.paginator.page(request, response, {
      list: 'categories',
      query,
      filters: [],
      fetch: (after, take) => this.categories.listPage(query.order, after, take),
      idOf: (category) => category.id,
    });
    return {
      data: page.data.map((category) => CategoryDto.from(category)),
      nextCursor: page.nextCursor,
    };
  }

  @CreateCategoryOperation('2')
  create(
    @Body() body: CreateCategoryDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<CategoryDto | IdempotentResponse> {
    return this.categories.create(body, idempotency);
  }
}
