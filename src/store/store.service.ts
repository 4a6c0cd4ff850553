import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { OrderListFilter } from './dto/order-list.query.js';
import { OrderDto } from './dto/order.dto.js';
import type { PlaceOrderDto } from './dto/place-order.dto.js';
import {
  IdempotencyService,
  type IdempotentResponse,
  type IdempotentRequest,
} from '../idempotency/idempotency.service.js';
import { orderJson } from './order-json.js';
import type { Order } from './order.entity.js';
import { OrderNotFoundError, UnknownPetInOrderError } from './order.errors.js';
import { OrderRepository } from './order.repository.js';
import { assertCancelAccepted, assertShipAccepted } from './order-transitions.js';

@Injectable()
export class StoreService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * Every order as one JSON array: text, or a stream of it (see OrderRepository.listAllAsJson);
   * a stream counts against the calling key's share of the stream slots.
   */
  listAllAsJson(callerKeyId: number): Promise<string | Readable> {
    return this.orders.listAllAsJson(callerKeyId);
  }

  /** One page of v2 listOrders (see OrderRepository.listPage). */
  listPage(
    filter: OrderListFilter,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<Order[]> {
    return this.orders.listPage(filter, order, after, take);
  }

  async getById(orderId: string): Promise<Order> {
    const order = await this.orders.findById(orderId);
    if (!order) {
      throw new OrderNotFoundError(orderId);
    }
    return order;
  }

  /**
   * placeOrder, in every version: the new pending order as the API shows it. Under an
   * Idempotency-Key, the order and the remembered answer commit in one statement, and a repeat
   * gets the remembered answer (IdempotencyService.create). The route adds the Location.
   */
  place(
    body: PlaceOrderDto,
    idempotency?: IdempotentRequest,
  ): Promise<OrderDto | IdempotentResponse> {
    // Exact, whatever its size: the body reader keeps an id beyond 2^53 as a bigint.
    const petId = String(body.petId);
    return this.idempotency.create(idempotency, {
      bodySql: orderJson('main'),
      rejection: () => new UnknownPetInOrderError(petId),
      insert: async (attachedWrites) => {
        const { order, outputs } = await this.orders.insertForExistingPet(
          petId,
          body.quantity,
          body.shipDate === undefined ? null : new Date(body.shipDate),
          attachedWrites,
        );
        return { created: order, outputs };
      },
      render: (order) => OrderDto.from(order),
    });
  }

  async cancel(orderId: string): Promise<void> {
    assertCancelAccepted(orderId, await this.orders.cancelIfPending(orderId));
  }

  async ship(orderId: string): Promise<Order> {
    const result = await this.orders.shipIfPending(orderId);
    if (!result) {
      throw new OrderNotFoundError(orderId);
    }
    assertShipAccepted(orderId, result.previousStatus);
    return result.order;
  }
}
