import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook-events.js';
import { WEBHOOK_DELIVERY_JSON } from '../webhook-json.js';
import type { WebhookDeliveryView } from '../webhook-subscription.repository.js';

const DATE_TIME = {
  type: 'string',
  format: 'date-time',
  maxLength: 24,
  example: '2026-11-25T10:00:02.000Z',
} as const;

/** One event's delivery to one subscription, and where it stands. */
@ApiSchema({ name: 'WebhookDelivery' })
export class WebhookDeliveryDto {
  @ApiProperty({
    pattern: '^evt_[0-9a-f]{32}$',
    minLength: 36,
    maxLength: 36,
    example: 'evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10',
    description: 'The event id, sent as webhook-id on every attempt',
  })
  eventId: string;

  @ApiProperty({ enum: [...WEBHOOK_EVENT_TYPES], example: 'order.cancelled' })
  type: WebhookEventType;

  @ApiProperty({
    enum: ['pending', 'succeeded', 'failed'],
    example: 'succeeded',
    description: 'failed: every retry of WEBHOOK_RETRY_SCHEDULE was used up',
  })
  status: 'pending' | 'succeeded' | 'failed';

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0, maximum: 1000, example: 1 })
  attempts: number;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 100,
    maximum: 999,
    example: 200,
    description: "The receiver's HTTP status at the last attempt; absent when it did not answer",
  })
  lastResponseStatus?: number;

  @ApiPropertyOptional({ ...DATE_TIME, description: 'When the last attempt started' })
  lastAttemptAt?: string;

  @ApiPropertyOptional({
    ...DATE_TIME,
    description: 'When the next attempt is due (pending deliveries only)',
  })
  nextAttemptAt?: string;

  /** The delivery as answers show it (src/webhooks/webhook-json.ts). */
  static from(delivery: WebhookDeliveryView): WebhookDeliveryDto {
    return WEBHOOK_DELIVERY_JSON.view(delivery);
  }
}
