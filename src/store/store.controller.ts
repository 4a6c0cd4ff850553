import { Body, Controller, Get, Param, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CallerKeyId } from '../auth/caller-key.decorator.js';
import { ORDER_LIST_EXAMPLE } from './store-examples.js';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { sendJson } from '../common/http/send-streamed-json.js';
import type { IdempotentResponse, IdempotentRequest } from '../idempotency/idempotency.service.js';
import { IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { OrderDto } from './dto/order.dto.js';
import { PlaceOrderDto } from './dto/place-order.dto.js';
import {
  CancelOrderOperation,
  GetOrderByIdOperation,
  PlaceOrderOperation,
  ShipOrderOperation,
} from './store-operations.js';
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
  @ApiOkResponse({
    type: [OrderDto],
    description: 'Every order, by id ascending',
    example: ORDER_LIST_EXAMPLE,
  })
  @ApiErrorResponses()
  async list(@CallerKeyId() callerKeyId: number, @Res() response: Response): Promise<void> {
    await sendJson(response, await this.store.listAllAsJson(callerKeyId));
  }

  @PlaceOrderOperation('1')
  place(
    @Body() body: PlaceOrderDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<OrderDto | IdempotentResponse> {
    return this.store.place(body, idempotency);
  }

  @GetOrderByIdOperation('1')
  async getById(@Param('orderId', Int64IdPipe) orderId: string): Promise<OrderDto> {
    return OrderDto.from(await this.store.getById(orderId));
  }

  @ShipOrderOperation('1')
  async ship(@Param('orderId', Int64IdPipe) orderId: string): Promise<OrderDto> {
    return OrderDto.from(await this.store.ship(orderId));
  }

  @CancelOrderOperation('1')
  async cancel(@Param('orderId', Int64IdPipe) orderId: string): Promise<void> {
    await this.store.cancel(orderId);
  }
}
