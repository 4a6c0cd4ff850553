import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
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
import type { Response } from 'express';
import {
  ApiErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam, Experimental } from '../common/http/api-decorators.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { JsonBodyInterceptor } from '../common/http/json-body.interceptor.js';
import { sendStreamedJson } from '../common/http/send-streamed-json.js';
import type { IdempotentAnswer, IdempotentRequest } from '../idempotency/idempotency.service.js';
import { Idempotent, IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { OrderDto } from './dto/order.dto.js';
import { PlaceOrderDto } from './dto/place-order.dto.js';
import { StoreService } from './store.service.js';

@ApiTags('store')
@ApiBearerAuth()
@Controller('store/orders')
export class StoreController {
  constructor(private readonly store: StoreService) {}

  @Get()
  @ApiOperation({
    operationId: 'listOrders',
    summary: 'List every order, by id ascending',
    description:
      'No filtering or pagination in v1: every order, cancelled ones included. The array is streamed.',
  })
  @ApiOkResponse({ type: [OrderDto], description: 'Every order, by id ascending' })
  @ApiErrorResponses()
  async list(@Res() response: Response): Promise<void> {
    await sendStreamedJson(response, this.store.streamAllAsJson());
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @Idempotent({ version: 'v1', operation: 'placeOrder', locationPrefix: '/v1/store/orders/' })
  @UseInterceptors(JsonBodyInterceptor)
  @Experimental()
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
          pattern: '^/v1/store/orders/[1-9][0-9]{0,15}$',
          example: '/v1/store/orders/42',
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
    response.location(`/v1/store/orders/${order.id}`);
    return OrderDto.from(order);
  }

  @Get(':orderId')
  @Experimental()
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
  @Experimental()
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
