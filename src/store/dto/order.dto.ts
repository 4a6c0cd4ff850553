import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiIdProperty } from '../../common/http/api-decorators.js';
import type { Int64Id } from '../../common/http/exact-int64.js';
import { OrderStatus, type Order } from '../order.entity.js';
import { ORDER_JSON } from '../order-json.js';

@ApiSchema({ name: 'Order' })
export class OrderDto {
  @ApiIdProperty(42)
  id: number;

  @ApiIdProperty(7)
  petId: Int64Id;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 1000, example: 2 })
  quantity: number;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    // UTC with milliseconds, as Date.prototype.toISOString writes it: a year beyond 0000-9999
    // (an offset can push 9999-12-31 over) takes a sign and six digits.
    maxLength: 27,
    pattern: '^(\\d{4}|[+-]\\d{6})-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
    example: '2026-11-21T10:00:00.000Z',
    description: 'Expected or actual ship date (UTC); omitted when unknown.',
  })
  shipDate?: string;

  @ApiProperty({ description: 'false until the order ships, then true', example: false })
  complete: boolean;

  @ApiProperty({ enum: OrderStatus, enumName: 'OrderStatus', example: OrderStatus.Pending })
  status: OrderStatus;

  /** The order as answers show it (src/store/order-json.ts). */
  static from(order: Order): OrderDto {
    return ORDER_JSON.view(order);
  }
}
