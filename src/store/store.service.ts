import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { OrderListFilter } from './dto/order-list.query.js';
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
  constructor(private readonly orders: OrderRepository) {}

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
      ? await this.orders.insertForExistingPet(
          newOrder.petId,
          newOrder.quantity,
          newOrder.shipDate ?? null,
        )
      : null;
    if (!order) {
      throw new UnknownPetInOrderError(newOrder.petId);
    }
    return order;
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
