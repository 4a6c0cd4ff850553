import {
  equalTo,
  int64,
  integer,
  resourceJson,
  text,
  timestamp,
} from '../database/resource-json.js';
import type { OrderDto } from './dto/order.dto.js';
import { OrderStatus, type Order } from './order.entity.js';

/**
 * An order's JSON (OrderDto), the one definition every statement and answer about orders uses:
 * `{ id, petId, quantity, shipDate?, complete, status }`, shipDate left out when unknown,
 * complete false until the order ships. See src/database/resource-json.ts for what each
 * rendering is for.
 */
export const ORDER_JSON = resourceJson<Order, OrderDto>(
  { id: 'id', petId: 'pet_id', quantity: 'quantity', shipDate: 'ship_date', status: 'status' },
  [
    { from: 'id', kind: integer },
    { from: 'petId', kind: int64 },
    { from: 'quantity', kind: integer },
    { from: 'shipDate', kind: timestamp, optional: true },
    { key: 'complete', from: 'status', kind: equalTo(OrderStatus.Shipped) },
    { from: 'status', kind: text },
  ],
);

/** An order as PostgreSQL renders it (json), from the row named `row` of ORDER_JSON's columns. */
export const orderJson = ORDER_JSON.sql;
