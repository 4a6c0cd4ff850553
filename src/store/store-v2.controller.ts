import { Body, Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { Beta } from '../common/http/api-decorators.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { NEXT_PAGE_LINK_HEADER, PageDto, pageExample } from '../common/pagination/page.dto.js';
import { Paginator, type Page } from '../common/pagination/paginator.js';
import type { IdempotentResponse, IdempotentRequest } from '../idempotency/idempotency.service.js';
import { IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { ORDER_LIST_QUERY, type OrderListQuery } from './dto/order-list.query.js';
import { OrderDto } from './dto/order.dto.js';
import { PlaceOrderDto } from './dto/place-order.dto.js';
import {
  CancelOrderOperation,
  GetOrderByIdOperation,
  PlaceOrderOperation,
  ShipOrderOperation,
} from './store-operations.js';
import { ORDER_LIST_EXAMPLE } from './store-examples.js';
import { StoreService } from './store.service.js';

/**
 * The store operations of v2 (docs/api.md, Pages): v1's operations and rules over the same
 * service, with a paged, filtered list. Every operation is beta until v2 is declared stable.
 */
const OrderPageDto = PageDto(OrderDto, 'OrderPage', 'A page of orders, by id');

@ApiTags('store')
@ApiBearerAuth()
@Controller({ path: 'store/orders', version: '2' })
export class StoreV2Controller {
  constructor(
    private readonly store: StoreService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Beta()
  @ApiOperation({
    operationId: 'listOrders',
    summary: 'List orders, a page at a time, filtered',
    description:
      'Pages cut on the id (keyset): follow nextCursor, or the Link header, to the end. Filters combine (AND); ' +
      'unknown, repeated or empty parameters are refused, and a cursor only fits the query that issued it.',
  })
  @ORDER_LIST_QUERY.apiQuery()
  @ApiOkResponse({
    type: OrderPageDto,
    description: 'A page of the matching orders',
    headers: NEXT_PAGE_LINK_HEADER,
    example: pageExample(ORDER_LIST_EXAMPLE),
  })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED)
  async list(
    @Query(ORDER_LIST_QUERY) query: OrderListQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Page<OrderDto>> {
    const page = await this.paginator.page(request, response, {
      list: 'orders',
      query: query.page,
      filters: query.canonical,
      fetch: (after, take) => this.store.listPage(query.filter, query.page.order, after, take),
      idOf: (order) => order.id,
    });
    return { data: page.data.map((order) => OrderDto.from(order)), nextCursor: page.nextCursor };
  }

  @PlaceOrderOperation('2')
  place(
    @Body() body: PlaceOrderDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<OrderDto | IdempotentResponse> {
    return this.store.place(body, idempotency);
  }

  @GetOrderByIdOperation('2')
  async getById(@Param('orderId', Int64IdPipe) orderId: string): Promise<OrderDto> {
    return OrderDto.from(await this.store.getById(orderId));
  }

  @ShipOrderOperation('2')
  async ship(@Param('orderId', Int64IdPipe) orderId: string): Promise<OrderDto> {
    return OrderDto.from(await this.store.ship(orderId));
  }

  @CancelOrderOperation('2')
  async cancel(@Param('orderId', Int64IdPipe) orderId: string): Promise<void> {
    await this.store.cancel(orderId);
  }
}
