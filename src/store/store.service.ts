import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { OrderListFilter } from './dto/order-list.query.js';
import {
  IdempotencyService,
  type IdempotentAnswer,
  type IdempotentRequest,
} from '../idempotency/idempotency.service.js';
import { orderJson } from './order-json.js';
import type { Order } from './order.entity.js';
import { OrderNotFoundError, UnknownPetInOrderError } from './order.errors.js';
import { OrderRepository } from './order.repository.js';
import { assertCancelAccepted, assertShipAccepted } from './order-transitions.js';

export interface NewOrder {
  petId: number;
  quantity: number;
  shipDate?: Date;
}

@Injectable()
export class StoreService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Every order as the bytes of one JSON array (see OrderRepository.streamAllAsJson). */
  streamAllAsJson(): Readable {
    return this.orders.streamAllAsJson();
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

  async place(newOrder: NewOrder): Promise<Order> {
    // Pet ids stop at 2^53 - 1, so a larger (valid int64) id names no pet.
    const order = Number.isSafeInteger(newOrder.petId)
      ? (
          await this.orders.insertForExistingPet(
            newOrder.petId,
            newOrder.quantity,
            newOrder.shipDate ?? null,
          )
        ).order
      : null;
    if (!order) {
      throw new UnknownPetInOrderError(newOrder.petId);
    }
    return order;
  }

  /**
   * place() under an Idempotency-Key: the order and the remembered answer commit in one
   * statement; a repeat gets the remembered answer (see IdempotencyService).
   */
  placeIdempotent(newOrder: NewOrder, request: IdempotentRequest): Promise<IdempotentAnswer> {
    return this.idempotency.execute(request, {
      bodySql: orderJson('main'),
      refusal: new UnknownPetInOrderError(newOrder.petId),
      run: async (companion) =>
        (
          await this.orders.insertForExistingPet(
            // Pet ids stop at 2^53 - 1: a larger one names no pet, nor does 0, which the
            // statement then looks up in vain (so the refusal is remembered all the same).
            Number.isSafeInteger(newOrder.petId) ? newOrder.petId : 0,
            newOrder.quantity,
            newOrder.shipDate ?? null,
            [companion],
          )
        ).outputs[companion.name],
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
