import type { OrderDto } from './dto/order.dto.js';
import type { PlaceOrderDto } from './dto/place-order.dto.js';
import { OrderStatus } from './order.entity.js';

/*
 * The examples the API reference (/reference) shows on the store operations: one order placed,
 * read and shipped, and a list holding an order of each status. Each must match its schema
 * (test/openapi-examples.e2e-spec.ts).
 */

/** placeOrder's request body: two of pet 7, to ship on 24 November. */
export const NEW_ORDER_EXAMPLE: PlaceOrderDto = {
  petId: 7,
  quantity: 2,
  shipDate: '2026-11-24T09:00:00Z',
};

/** The order that body places, as placeOrder and getOrderById answer it. */
export const PENDING_ORDER_EXAMPLE: OrderDto = {
  id: 42,
  petId: 7,
  quantity: 2,
  shipDate: '2026-11-24T09:00:00.000Z',
  complete: false,
  status: OrderStatus.Pending,
};

/** The same order once shipOrder has shipped it: its ship date is then. */
export const SHIPPED_ORDER_EXAMPLE: OrderDto = {
  ...PENDING_ORDER_EXAMPLE,
  shipDate: '2026-11-22T14:03:11.250Z',
  complete: true,
  status: OrderStatus.Shipped,
};

/** Orders of each status, by id, as the lists answer them. */
export const ORDER_LIST_EXAMPLE: OrderDto[] = [
  SHIPPED_ORDER_EXAMPLE,
  { id: 43, petId: 3, quantity: 1, complete: false, status: OrderStatus.Pending },
  { id: 44, petId: 7, quantity: 5, complete: false, status: OrderStatus.Cancelled },
];
