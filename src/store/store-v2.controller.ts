import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  ApiErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam, Beta } from '../common/http/api-decorators.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { JsonBodyInterceptor } from '../common/http/json-body.interceptor.js';
import { NEXT_PAGE_LINK_HEADER, PageDto } from '../common/pagination/page.dto.js';
import { Paginator, type Page } from '../common/pagination/paginator.js';
import {
  ApiOrderListQuery,
  OrderListQueryPipe,
  type OrderListQuery,
} from './dto/order-list.query.js';
import { OrderDto } from './dto/order.dto.js';
import { PlaceOrderDto } from './dto/place-order.dto.js';
import type { IdempotentAnswer, IdempotentRequest } from '../idempotency/idempotency.service.js';
import { Idempotent, IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { StoreService } from './store.service.js';

/**
 * The store operations of v2 (contract section 9): v1's operations and rules over the same
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
  @ApiOrderListQuery()
  @ApiOkResponse({
    type: OrderPageDto,
    description: 'A page of the matching orders',
    headers: NEXT_PAGE_LINK_HEADER,
  })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED)
  async list(
    @Query(OrderListQueryPipe) query: OrderListQuery,
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

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @Idempotent({ version: 'v2', operation: 'placeOrder', locationPrefix: '/v2/store/orders/' })
  @UseInterceptors(JsonBodyInterceptor)
  @Beta()
  @ApiOperation({
    operationId: 'placeOrder',
    summary: 'Place an order (pending)',
    description:
      'Creates a pending order for an existing pet. Unknown fields are refused; an unknown pet is a 422.',
  })
  @ApiCreatedResponse({
    type: OrderDto,
    description: 'The new order, pending',
    headers: {
      Location: {
        description: 'Path of the new order',
        // Ids are assigned up to 2^53 - 1: at most 16 digits.
        schema: {
          type: 'string',
          format: 'uri-reference',
          maxLength: 33,
          pattern: '^/v2/store/orders/[1-9][0-9]{0,15}$',
          example: '/v2/store/orders/42',
        },
      },
      ...IDEMPOTENT_REPLAYED_HEADER,
    },
  })
  @ApiErrorResponses(
    ErrorCode.VALIDATION_FAILED,
    ErrorCode.MALFORMED_JSON,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    { code: ErrorCode.PET_NOT_FOUND, status: HttpStatus.UNPROCESSABLE_ENTITY },
    ErrorCode.IDEMPOTENCY_KEY_IN_USE,
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
  )
  async place(
    @Body() body: PlaceOrderDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrderDto | IdempotentAnswer> {
    const newOrder = {
      petId: body.petId,
      quantity: body.quantity,
      shipDate: body.shipDate === undefined ? undefined : new Date(body.shipDate),
    };
    if (idempotency) return this.store.placeIdempotent(newOrder, idempotency);
    const order = await this.store.place(newOrder);
    response.location(`/v2/store/orders/${order.id}`);
    return OrderDto.from(order);
  }

  @Get(':orderId')
  @Beta()
  @ApiOperation({
    operationId: 'getOrderById',
    summary: 'Read one order',
    description: 'Any order, whatever its status; cancelled orders are kept and can be read.',
  })
  @ApiInt64IdParam('orderId', 'Identifier of the order')
  @ApiOkResponse({ type: OrderDto, description: 'The order' })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.ORDER_NOT_FOUND)
  async getById(@Param('orderId', Int64IdPipe) orderId: string): Promise<OrderDto> {
    return OrderDto.from(await this.store.getById(orderId));
  }

  @Post(':orderId/ship')
  @HttpCode(HttpStatus.OK)
  @Beta()
  @ApiOperation({
    operationId: 'shipOrder',
    summary: 'Ship a pending order',
    description:
      'Sets status shipped, complete true and shipDate now. Shipping a shipped order changes nothing.',
  })
  @ApiInt64IdParam('orderId', 'Identifier of the order to ship')
  @ApiOkResponse({ type: OrderDto, description: 'The order, shipped' })
  @ApiErrorResponses(
    ErrorCode.VALIDATION_FAILED,
    ErrorCode.ORDER_NOT_FOUND,
    ErrorCode.ORDER_NOT_PENDING,
  )
  async ship(@Param('orderId', Int64IdPipe) orderId: string): Promise<OrderDto> {
    return OrderDto.from(await this.store.ship(orderId));
  }

  @Delete(':orderId')
  @HttpCode(HttpStatus.NO_CONTENT)
  @Beta()
  @ApiOperation({
    operationId: 'cancelOrder',
    summary: 'Cancel a pending order',
    description:
      'The order is kept with status cancelled. Cancelling a cancelled order answers 204 again; a shipped order cannot be cancelled.',
  })
  @ApiInt64IdParam('orderId', 'Identifier of the order to cancel')
  @ApiNoContentResponse({ description: 'Cancelled (or already cancelled)' })
  @ApiErrorResponses(
    ErrorCode.VALIDATION_FAILED,
    ErrorCode.ORDER_NOT_FOUND,
    ErrorCode.ORDER_ALREADY_SHIPPED,
  )
  async cancel(@Param('orderId', Int64IdPipe) orderId: string): Promise<void> {
    await this.store.cancel(orderId);
  }
}
