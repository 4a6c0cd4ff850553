import { Delete, Get, HttpCode, HttpStatus, Post, applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import type { ApiVersion } from '../common/api-version.js';
import {
  ApiErrorResponses,
  ApiIdempotentErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam, Stability, locationHeader } from '../common/http/api-decorators.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { OrderDto } from './dto/order.dto.js';
import { PlaceOrderDto } from './dto/place-order.dto.js';
import {
  NEW_ORDER_EXAMPLE,
  PENDING_ORDER_EXAMPLE,
  SHIPPED_ORDER_EXAMPLE,
} from './store-examples.js';

/*
 * The store operations that every version serves alike, each once: route, behaviour and
 * documentation, parameterised by the version (its paths and its x-stability). listOrders
 * differs per version and stays with its controller.
 */

/** POST /store/orders: the create, its Idempotency-Key and its Location under `/v{version}`. */
export const PlaceOrderOperation = (version: ApiVersion): MethodDecorator =>
  applyDecorators(
    Post(),
    HttpCode(HttpStatus.CREATED),
    Idempotent({
      version: `v${version}`,
      operation: 'placeOrder',
      locationPrefix: `/v${version}/store/orders/`,
    }),
    Stability(version, 'experimental'),
    ApiOperation({
      operationId: 'placeOrder',
      summary: 'Place an order (pending)',
      description:
        'Creates a pending order for an existing pet. Unknown fields are refused; an unknown pet is a 422.',
    }),
    ApiBody({
      type: PlaceOrderDto,
      examples: { order: { summary: 'Two of pet 7', value: NEW_ORDER_EXAMPLE } },
    }),
    ApiCreatedResponse({
      type: OrderDto,
      description: 'The new order, pending',
      example: PENDING_ORDER_EXAMPLE,
      headers: {
        ...locationHeader('Path of the new order', `/v${version}/store/orders/`, 42),
        ...IDEMPOTENT_REPLAYED_HEADER,
      },
    }),
    ApiIdempotentErrorResponses({
      code: ErrorCode.PET_NOT_FOUND,
      status: HttpStatus.UNPROCESSABLE_ENTITY,
    }),
  );

/** GET /store/orders/{orderId}. */
export const GetOrderByIdOperation = (version: ApiVersion): MethodDecorator =>
  applyDecorators(
    Get(':orderId'),
    Stability(version, 'experimental'),
    ApiOperation({
      operationId: 'getOrderById',
      summary: 'Read one order',
      description: 'Any order, whatever its status; cancelled orders are kept and can be read.',
    }),
    ApiInt64IdParam('orderId', 'Identifier of the order'),
    ApiOkResponse({ type: OrderDto, description: 'The order', example: PENDING_ORDER_EXAMPLE }),
    ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.ORDER_NOT_FOUND),
  );

/** POST /store/orders/{orderId}/ship. */
export const ShipOrderOperation = (version: ApiVersion): MethodDecorator =>
  applyDecorators(
    Post(':orderId/ship'),
    HttpCode(HttpStatus.OK),
    Stability(version, 'experimental'),
    ApiOperation({
      operationId: 'shipOrder',
      summary: 'Ship a pending order',
      description:
        'Sets status shipped, complete true and shipDate now. Shipping a shipped order changes nothing.',
    }),
    ApiInt64IdParam('orderId', 'Identifier of the order to ship'),
    ApiOkResponse({
      type: OrderDto,
      description: 'The order, shipped',
      example: SHIPPED_ORDER_EXAMPLE,
    }),
    ApiErrorResponses(
      ErrorCode.VALIDATION_FAILED,
      ErrorCode.ORDER_NOT_FOUND,
      ErrorCode.ORDER_NOT_PENDING,
    ),
  );

/** DELETE /store/orders/{orderId}: part of the original interface, so stable in v1. */
export const CancelOrderOperation = (version: ApiVersion): MethodDecorator =>
  applyDecorators(
    Delete(':orderId'),
    HttpCode(HttpStatus.NO_CONTENT),
    Stability(version, 'stable'),
    ApiOperation({
      operationId: 'cancelOrder',
      summary: 'Cancel a pending order',
      description:
        'The order is kept with status cancelled. Cancelling a cancelled order answers 204 again; a shipped order cannot be cancelled.',
    }),
    ApiInt64IdParam('orderId', 'Identifier of the order to cancel'),
    ApiNoContentResponse({ description: 'Cancelled (or already cancelled)' }),
    ApiErrorResponses(
      ErrorCode.VALIDATION_FAILED,
      ErrorCode.ORDER_NOT_FOUND,
      ErrorCode.ORDER_ALREADY_SHIPPED,
    ),
  );
