import { OrderStatus } from './order.entity.js';
import {
  OrderAlreadyShippedError,
  OrderNotFoundError,
  OrderNotPendingError,
} from './order.errors.js';

/**
 * The order state rules. The repository applies a transition in one conditional statement
 * and reports the status the order had just before; these functions say what the caller is
 * told. `null` means there was no such order.
 *
 *   pending --cancel--> cancelled   (cancelling again: fine, nothing changes)
 *   pending --ship----> shipped     (shipping again: fine, nothing changes)
 *   shipped --cancel--> 409 ORDER_ALREADY_SHIPPED
 *   cancelled --ship--> 409 ORDER_NOT_PENDING
 */
export function assertCancelAccepted(orderId: string, previous: OrderStatus | null): void {
  switch (previous) {
    case null:
      throw new OrderNotFoundError(orderId);
    case OrderStatus.Shipped:
      throw new OrderAlreadyShippedError(orderId);
    case OrderStatus.Pending:
    case OrderStatus.Cancelled:
      return;
  }
}

export function assertShipAccepted(orderId: string, previous: OrderStatus | null): void {
  switch (previous) {
    case null:
      throw new OrderNotFoundError(orderId);
    case OrderStatus.Cancelled:
      throw new OrderNotPendingError(orderId, previous);
    case OrderStatus.Pending:
    case OrderStatus.Shipped:
      return;
  }
}
