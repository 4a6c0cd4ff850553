import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiIdProperty } from '../../common/http/api-decorators.js';
import { STORED_PROSE_PATTERN } from '../../common/http/safe-text.validator.js';
import { EVENT_TYPES_SCHEMA, type WebhookEventType } from '../webhook-events.js';
import { WEBHOOK_JSON } from '../webhook-json.js';
import {
  DISABLED_REASONS,
  type DisabledReason,
  type WebhookSubscription,
} from '../webhook-subscription.repository.js';

/** A subscription as every answer but the creation shows it: never with its secret. */
@ApiSchema({ name: 'Webhook' })
export class WebhookDto {
  @ApiIdProperty(12)
  id: number;

  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'https://hooks.example.com/petstore' })
  url: string;

  @ApiProperty(EVENT_TYPES_SCHEMA)
  events: WebhookEventType[];

  @ApiPropertyOptional({
    maxLength: 500,
    pattern: STORED_PROSE_PATTERN,
    example: 'Order updates for the warehouse',
  })
  description?: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    maxLength: 24,
    example: '2026-11-25T10:00:00.000Z',
  })
  createdAt: string;

  @ApiProperty({ description: 'false: no delivery is made for events recorded meanwhile' })
  enabled: boolean;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    maxLength: 24,
    example: '2026-11-26T10:00:00.000Z',
    description: 'When it was disabled (disabled subscriptions only)',
  })
  disabledAt?: string;

  @ApiPropertyOptional({
    enum: DISABLED_REASONS,
    example: 'gone',
    description:
      'Why it was disabled: requested (enabled: false), gone (the receiver answered 410), ' +
      'failing (no attempt succeeded for WEBHOOK_DISABLE_AFTER_SECONDS)',
  })
  disabledReason?: DisabledReason;

  /** The subscription as answers show it (src/webhooks/webhook-json.ts). */
  static from(subscription: WebhookSubscription): WebhookDto {
    return WEBHOOK_JSON.view(subscription);
  }
}

/** The creation answer: the one place the secret is ever shown. */
@ApiSchema({ name: 'CreatedWebhook' })
export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({
    minLength: 50,
    maxLength: 50,
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5ZZwtZkL6xU=',
    description:
      'The signing secret (Standard Webhooks): shown only in this answer; keep it to verify deliveries',
  })
  secret: string;
}
