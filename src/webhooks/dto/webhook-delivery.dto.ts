import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook-events.js';
import { WEBHOOK_DELIVERY_JSON } from '../webhook-json.js';
import type {
  AttemptLogEntry,
  WebhookDeliveryDetail,
  WebhookDeliveryView,
} from '../webhook-subscription.repository.js';

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

/** One attempt of a delivery. */
@ApiSchema({ name: 'WebhookAttempt' })
export class WebhookAttemptDto {
  @ApiProperty({ ...DATE_TIME, description: 'When the attempt started' })
  at: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    nullable: true,
    minimum: 100,
    maximum: 999,
    example: 503,
    description: "The receiver's HTTP status; null when it did not answer (or not yet)",
  })
  responseStatus: number | null;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    nullable: true,
    minimum: 0,
    maximum: 2_147_483_647,
    example: 120,
    description: 'How long it took; null while under way, or when it was interrupted',
  })
  durationMs: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 200,
    example: 'HTTP 503',
    description:
      'Why it failed (timeout, ECONNREFUSED, HTTP 503, interrupted, …); null when it succeeded or is under way',
  })
  error: string | null;
}

/** getWebhookDelivery: a delivery, its event as sent, and its last attempts. */
@ApiSchema({ name: 'WebhookDeliveryDetail' })
export class WebhookDeliveryDetailDto extends WebhookDeliveryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      id: 'evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10',
      type: 'order.cancelled',
      createdAt: '2026-11-25T10:00:00.000Z',
      data: { id: 42, petId: 7, quantity: 2, complete: false, status: 'cancelled' },
    },
    description: 'The event, exactly as every attempt sends it (docs/webhooks.md)',
  })
  event: Record<string, unknown>;

  @ApiProperty({
    type: [WebhookAttemptDto],
    maxItems: 20,
    description: 'The attempts, oldest first: the last 20 at most',
  })
  attemptLog: WebhookAttemptDto[];

  static fromDetail(delivery: WebhookDeliveryDetail): WebhookDeliveryDetailDto {
    return {
      ...WebhookDeliveryDto.from(delivery),
      event: JSON.parse(delivery.payload) as Record<string, unknown>,
      attemptLog: delivery.attemptLog.map((entry: AttemptLogEntry) => ({ ...entry })),
    };
  }
}
